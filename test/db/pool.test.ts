import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

// An SQL error must cost its own query only. On PGlite the pool's clients share one connection, and
// pg-pool used to end a client after any SQL error, after which every later query failed
// ("Connection terminated unexpectedly") until a restart: one bad request broke `npm start`.

describe('the database pool after SQL errors', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('answers the next queries, plain and named, after failing ones of both kinds', async () => {
    const pool = tdb.db.pool;
    await expect(pool.query('SELECT 1 / $1::int AS x', [0])).rejects.toMatchObject({ code: '22012' });
    expect((await pool.query<{ x: number }>('SELECT 2 AS x')).rows).toEqual([{ x: 2 }]);
    expect((await pool.query<{ x: number }>({ name: 'pool.test.div', text: 'SELECT 6 / $1::int AS x', values: [3] })).rows).toEqual([{ x: 2 }]);
    await expect(pool.query({ name: 'pool.test.div', text: 'SELECT 6 / $1::int AS x', values: [0] })).rejects.toMatchObject({ code: '22012' });
    await expect(
      pool.query({
        name: 'pool.test.fk',
        text: "INSERT INTO terminals (terminal_identifier, merchant_id) VALUES ('AAAAAAAAAAAA', $1)",
        values: ['mch_nobody'],
      }),
    ).rejects.toMatchObject({ code: '23503' });
    expect((await pool.query<{ x: number }>({ name: 'pool.test.div', text: 'SELECT 6 / $1::int AS x', values: [2] })).rows).toEqual([{ x: 3 }]);
    const many = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => pool.query<{ x: number }>('SELECT 10 / $1::int AS x', [i % 2])));
    expect(many.map((r) => r.status)).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'rejected' : 'fulfilled')));
    expect((await pool.query<{ x: number }>('SELECT 3 AS x')).rows).toEqual([{ x: 3 }]);
  });
});
