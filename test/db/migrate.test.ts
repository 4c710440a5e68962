import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openDatabase, withTransaction, type Database } from '../../src/db/database.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { ADMIN_URL } from '../helpers/globalSetup.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

describe('migrations', () => {
  it('are numbered without gaps or duplicates', () => {
    const versions = loadMigrations().map((m) => m.version);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions).toEqual(versions.map((_, i) => i + 1));
  });

  it.skipIf(TEST_DB !== 'postgres')('apply once when two processes migrate an empty database at the same moment', async () => {
    const name = `paylinks_mig_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const u = new URL(ADMIN_URL);
    u.pathname = `/${name}`;
    const dbs: Database[] = [];
    try {
      for (let i = 0; i < 3; i++) dbs.push(await openDatabase({ databaseUrl: u.toString(), dataDir: '' }));
      const results = await Promise.all(dbs.map((db) => migrate(db)));
      const all = results.flat();
      expect(all.sort()).toEqual(
        loadMigrations()
          .map((m) => m.name)
          .sort(),
      );
      const { rows } = await dbs[0]!.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      expect(rows[0]?.n).toBe(loadMigrations().length);
      expect(await migrate(dbs[0]!)).toEqual([]);
    } finally {
      for (const db of dbs) await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  describe('on a migrated database', () => {
    let tdb: TestDatabase;
    beforeAll(async () => {
      tdb = await createTestDatabase();
    });
    afterAll(async () => {
      await tdb.drop();
    });

    it('has nothing left to apply', async () => {
      expect(await migrate(tdb.db)).toEqual([]);
    });

    it('rolls a failing transaction back entirely', async () => {
      await expect(
        withTransaction(tdb.db, async (tx) => {
          await tx.query("INSERT INTO merchants (id, name) VALUES ('mch_rollback', 'x')");
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const { rows } = await tdb.db.pool.query("SELECT 1 FROM merchants WHERE id = 'mch_rollback'");
      expect(rows).toHaveLength(0);
    });
  });
});
