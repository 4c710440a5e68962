import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoolClient } from 'pg';
import { anyOfArray } from '../../src/db/database.js';
import { findKeysByHashes } from '../../src/accounts/sql.js';
import { findLinksWithSubmissions } from '../../src/paymentLinks/sql.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, payByLink } from '../paymentLinks/fixtures.js';

// A batched lookup (every API request's key, a GET's link) is a prepared statement of an array of
// keys. Written as `= ANY($1::bytea[])`, PostgreSQL planned it anew at every execution: a plan made
// for the values knows the array's length and always looked cheaper than the generic one. Through
// anyOfArray the generic plan is kept after PostgreSQL's five custom ones.

async function plans(client: PoolClient, name: string): Promise<{ generic: number; custom: number } | undefined> {
  const { rows } = await client.query<{ generic: number; custom: number }>(
    'SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = $1',
    [name],
  );
  return rows[0];
}

describe('batched lookups', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('keep their generic plans on a connection', async () => {
    const reference = await createLink(ctx, payByLink(ctx));
    const { rows } = await ctx.tdb.db.pool.query<{ keyHash: Buffer }>('SELECT key_hash AS "keyHash" FROM api_keys WHERE merchant_id = $1', [
      ctx.merchant.merchantId,
    ]);
    const client = await ctx.tdb.db.pool.connect();
    try {
      for (let i = 0; i < 10; i++) {
        // One key at times, several at others, as the batches of a turn come.
        const keys = await findKeysByHashes(client, i % 2 === 0 ? rows.map((r) => r.keyHash) : [...rows.map((r) => r.keyHash), Buffer.alloc(32)]);
        expect(keys.map((k) => k.merchantId)).toEqual(rows.map(() => ctx.merchant.merchantId));
        const links = await findLinksWithSubmissions(client, i % 2 === 0 ? [reference] : [reference, 'pl_none']);
        expect(links.map((l) => l.reference)).toEqual([reference]);
      }
      // The connection may have served the link's create too: at least the last five runs generic.
      for (const name of ['accounts.findKeysByHashes', 'paymentLinks.findLinksWithSubmissions']) {
        const p = await plans(client, name);
        expect(p?.custom, name).toBe(5);
        expect(p?.generic, name).toBeGreaterThanOrEqual(5);
      }
    } finally {
      client.release();
    }
  });

  it('take only a numbered array parameter into their text', () => {
    expect(anyOfArray('$1::text[]')).toBe('ANY (ARRAY(SELECT unnest($1::text[])))');
    for (const bad of ['$1', '$0::text[]', "$1::text[]) OR 'x' = ANY('{x}'", 'id']) expect(() => anyOfArray(bad)).toThrow(/not an array parameter/);
  });
});
