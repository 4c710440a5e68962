import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { wrapPglite } from './database.js';
import { PGLITE_EXTENSIONS } from './pgliteExtensions.js';
import { migrate } from './migrate.js';
import { loadMigrations, type Migration } from './migrations.js';
import { digest, PG_VERSION, pgliteVersion, readManifest, TEMPLATE_DIR, type TemplateManifest } from './template.js';

// Making the embedded data template (template.ts says what it is for): run by `npm run build`
// through scripts/build-data-template.mjs, apart from the server, which only copies the template.

/**
 * Makes the template in templateDir (initdb, then the migrations given), unless the one there
 * already holds exactly these migrations for this PGlite version. Returns whether it made one.
 * Runs at build time: this is where initdb's memory is spent, once.
 */
export async function buildTemplate(templateDir: string = TEMPLATE_DIR, migrations: Migration[] = loadMigrations()): Promise<boolean> {
  const wanted: TemplateManifest = { pglite: pgliteVersion(), migrations: migrations.map(digest) };
  const current = readManifest(templateDir);
  if (current && JSON.stringify(current) === JSON.stringify(wanted) && existsSync(join(templateDir, 'pgdata', PG_VERSION))) return false;
  // Made next to its final place and renamed into it, so a build cut short leaves no half template.
  const parent = dirname(templateDir.replace(/\/+$/, ''));
  mkdirSync(parent, { recursive: true });
  const work = mkdtempSync(join(parent, '.data-template-'));
  try {
    const pglite = await PGlite.create(join(work, 'pgdata'), { extensions: PGLITE_EXTENSIONS });
    const db = wrapPglite(pglite, createPgConfig);
    try {
      await migrate(db, migrations);
    } finally {
      await db.close();
    }
    writeFileSync(join(work, 'template.json'), `${JSON.stringify(wanted, null, 2)}\n`);
    rmSync(templateDir, { recursive: true, force: true });
    renameSync(work, templateDir);
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  return true;
}
