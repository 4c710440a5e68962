import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../src/db/database.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { buildTemplate } from '../../src/db/buildTemplate.js';
import { templateUsable } from '../../src/db/template.js';
import { TEST_DB } from '../helpers/db.js';

// A new embedded folder started from the build's template (src/db/template.ts) must end up with the
// same schema, and the same migrations recorded, as one that ran initdb and every migration. The
// template here is made one migration short, as one built before a migration was added would be.

/** What the schema is: tables and columns, indexes, constraints, functions, triggers, migrations recorded. */
async function catalog(db: Database): Promise<Record<string, unknown[]>> {
  const q = async (text: string): Promise<unknown[]> => (await db.pool.query(text)).rows;
  return {
    columns: await q(`SELECT table_name, column_name, data_type, is_nullable, column_default, ordinal_position
                        FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name`),
    indexes: await q(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname`),
    constraints: await q(`SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(c.oid) AS def
                            FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                           WHERE n.nspname = 'public' ORDER BY 1, 2`),
    functions: await q(`SELECT proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                         WHERE n.nspname = 'public' ORDER BY 1, 2`),
    triggers: await q(`SELECT tgrelid::regclass::text AS tbl, tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
                        WHERE NOT tgisinternal ORDER BY 1, 2`),
    sequences: await q(`SELECT sequence_name, data_type FROM information_schema.sequences WHERE sequence_schema = 'public' ORDER BY 1`),
    migrations: await q('SELECT version, name FROM schema_migrations ORDER BY version'),
  };
}

describe.skipIf(TEST_DB !== 'pglite')('the embedded data template', () => {
  const root = mkdtempSync(join(tmpdir(), 'paylinks-template-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const all = loadMigrations();

  it('starts a folder with the same schema and migrations recorded as initdb and every migration', { timeout: 600_000 }, async () => {
    const templateDir = join(root, 'template');
    expect(await buildTemplate(templateDir, all.slice(0, -1))).toBe(true);
    // Current already: not made again.
    expect(await buildTemplate(templateDir, all.slice(0, -1))).toBe(false);
    expect(templateUsable(templateDir, all)).toBe(true);

    const fresh = await openDatabase({ databaseUrl: null, dataDir: join(root, 'fresh'), template: null });
    let freshCatalog: Record<string, unknown[]>;
    try {
      expect(await migrate(fresh)).toEqual(all.map((m) => m.name));
      freshCatalog = await catalog(fresh);
    } finally {
      await fresh.close();
    }

    const seededDir = join(root, 'seeded');
    const seeded = await openDatabase({ databaseUrl: null, dataDir: seededDir, template: templateDir });
    try {
      // Only the migration the template lacks runs on the copy.
      expect(await migrate(seeded)).toEqual([all.at(-1)?.name]);
      expect(await catalog(seeded)).toEqual(freshCatalog);
    } finally {
      await seeded.close();
    }
    expect(existsSync(join(seededDir, 'PG_VERSION'))).toBe(true);
  });

  it('is not used for migrations it holds in another version', () => {
    const templateDir = join(root, 'template');
    const changed = all.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    expect(templateUsable(templateDir, changed)).toBe(false);
    expect(templateUsable(join(root, 'no-such-template'), all)).toBe(false);
  });
});
