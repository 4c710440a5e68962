import { writeFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase, wrapPglite } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { PGLITE_EXTENSIONS } from '../../src/db/pgliteExtensions.js';

// Migrate a template database once per run; each test file then gets its own copy (docs/style.md, Tests):
// PostgreSQL clones the template database, PGlite loads a dump of a migrated instance. Vitest runs this
// for each project of the run; each builds only the template its own tests use.

export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | null;
    pgliteDump: string;
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cleanups: (() => Promise<void>)[] = [];

  // PostgreSQL template (skipped only when no test project needs it)
  let pgTemplate: string | null = null;
  if (project.name === 'postgres') {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    // The fault tests restart the server (npm run test:faults): no connection is held across the run.
    admin.on('error', () => undefined);
    try {
      await admin.connect();
    } catch (err) {
      throw new Error(
        `PostgreSQL is not reachable at ${ADMIN_URL} (${String(err)}); start it, or run only the pglite project: npx vitest run --project pglite --project unit`,
      );
    }
    pgTemplate = `paylinks_tpl_${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS ${pgTemplate}`);
    await admin.query(`CREATE DATABASE ${pgTemplate}`);
    await admin.end();
    const db = await openDatabase({ databaseUrl: withDatabase(ADMIN_URL, pgTemplate), dataDir: '' });
    await migrate(db);
    await db.close();
    const name = pgTemplate;
    cleanups.push(async () => {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      // Drop the template and any per-file clones left by an interrupted run of this process.
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`paylinks_t${process.pid}_%`]);
      for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    });
  }

  // PGlite template
  let dumpPath = '';
  if (project.name === 'pglite') dumpPath = await pgliteTemplate(cleanups);

  project.provide('pgTemplate', pgTemplate);
  project.provide('pgliteDump', dumpPath);
  return async () => {
    for (const c of cleanups.reverse()) await c();
  };
}

/** A migrated PGlite database, dumped to a file that each test file loads. */
async function pgliteTemplate(cleanups: (() => Promise<void>)[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'paylinks-pglite-'));
  const pglite = await PGlite.create('memory://', { extensions: PGLITE_EXTENSIONS });
  const db = wrapPglite(pglite, createPgConfig);
  await migrate(db);
  await db.pool.end();
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const dumpPath = join(dir, 'template.tar');
  await writeFile(dumpPath, Buffer.from(await dump.arrayBuffer()));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dumpPath;
}
