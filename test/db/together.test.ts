import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitSql } from '../../src/db/database.js';
import { NOTHING, readOne, readTogether, type Read } from '../../src/db/together.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

// Reads of several modules in one statement (src/db/together.ts): each read's parameters are its
// own, numbered from $1, and each answer comes back to its read, decoded.

describe('reads in one statement', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await tdb.drop();
  });

  const sum = (a: number, b: number): Read<number> => ({ name: 'sum', sql: 'SELECT $1::int + $2::int', values: [a, b], decode: (v) => Number(v) });
  const list = (from: number, to: number): Read<number[]> => ({
    name: 'list',
    sql: 'SELECT json_agg(i ORDER BY i) FROM generate_series($1::int, $2::int) i',
    values: [from, to],
    decode: (v) => v as number[],
  });

  it('gives each read its own parameters and its own answer, in order', async () => {
    let statements = 0;
    const pool = tdb.db.pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as { query: unknown }).query = (...args: unknown[]) => {
      statements++;
      return query(...args);
    };
    try {
      const [a, b, none, c] = await readTogether(pool, [sum(1, 2), list(10, 12), NOTHING, sum(20, 22)] as const);
      expect([a, b, none, c]).toEqual([3, [10, 11, 12], null, 42]);
      expect(statements).toBe(1);
      // The same reads again (a prepared statement of that name), with other values.
      expect(await readTogether(pool, [sum(5, 5), list(1, 2), NOTHING, sum(0, 1)] as const)).toEqual([10, [1, 2], null, 1]);
    } finally {
      (pool as { query: unknown }).query = query;
    }
    expect(await readOne(pool, list(3, 4))).toEqual([3, 4]);
  });

  it('keeps a limit written into the text apart by the name, and writes only whole numbers', async () => {
    // A limit in the text (db/database.ts limitSql) changes the statement, so the name names it too:
    // two statements of one name but different texts are refused by the driver.
    const first = (n: number): Read<number[]> => ({
      name: `first${n}`,
      sql: `SELECT json_agg(i ORDER BY i) FROM (SELECT i FROM generate_series($1::int, 100) i ORDER BY i LIMIT ${limitSql(n)}) s`,
      values: [7],
      decode: (v) => v as number[],
    });
    // On one connection, where the driver keeps a statement's name and text: the same read with
    // another limit is another statement.
    const client = await tdb.db.pool.connect();
    try {
      expect(await readOne(client, first(1))).toEqual([7]);
      expect(await readOne(client, first(2))).toEqual([7, 8]);
      expect(await readTogether(client, [first(2), first(3)] as const)).toEqual([
        [7, 8],
        [7, 8, 9],
      ]);
    } finally {
      client.release();
    }
    // A name PostgreSQL would cut short is refused before it could be taken for another statement's.
    await expect(readOne(tdb.db.pool, { ...first(1), name: 'x'.repeat(60) })).rejects.toThrow(/over 63 bytes/);
    for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => limitSql(bad)).toThrow(/not a row limit/);
  });
});
