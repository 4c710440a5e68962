import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { inject } from 'vitest';
import { openDatabase, wrapPglite, type Database, type DatabaseKind } from '../../src/db/database.js';
import { PGLITE_EXTENSIONS } from '../../src/db/pgliteExtensions.js';
import { ADMIN_URL } from './globalSetup.js';

export const TEST_DB: DatabaseKind = process.env.TEST_DB === 'pglite' ? 'pglite' : 'postgres';

export interface TestDatabase {
  db: Database;
  /** PostgreSQL only: the URL of this file's own database (for extra processes and connections). */
  url: string | null;
  drop(): Promise<void>;
}

function urlFor(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh, migrated database of the project's kind (TEST_DB) for one test file. */
export async function createTestDatabase(opts: { poolSize?: number } = {}): Promise<TestDatabase> {
  if (TEST_DB === 'pglite') {
    const dump = await readFile(inject('pgliteDump'));
    const pglite = await PGlite.create({ loadDataDir: new Blob([dump]), extensions: PGLITE_EXTENSIONS });
    const db = wrapPglite(pglite, createPgConfig);
    return { db, url: null, drop: () => db.close() };
  }
  const template = inject('pgTemplate');
  if (!template) throw new Error('no PostgreSQL template: the postgres project needs globalSetup');
  const name = `paylinks_t${process.ppid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = urlFor(name);
  const db = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: opts.poolSize ?? 10 });
  return {
    db,
    url,
    drop: async () => {
      await db.close();
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
