import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PoolClient } from 'pg';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { withTransaction, type Queryable } from '../../src/db/database.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { claimDueDeliveries, LOCK_CLAIMS_SQL } from '../../src/webhooks/delivery/sql.js';
import { scanFor } from '../../src/webhooks/delivery/claim.js';
import { register } from './helpers.js';

// A worker claims several times a second on the same connection. PostgreSQL plans a prepared
// statement anew at each execution (a custom plan) until a generic plan looks no dearer; the claim's
// scan bound, as a parameter, made the generic plan look dearer for good at a large backlog, and
// every claim was planned again. With the bound in the text the statement settles on a generic plan,
// and the claim's transaction keeps that plan on its indexes even when it was made while the table
// was empty.

/** One event (one due delivery for the webhook registered). */
async function oneEvent(ctx: TestContext, reference: string): Promise<void> {
  await withTransaction(ctx.tdb.db, (tx) =>
    enqueueEvent(tx, ctx, {
      merchantId: ctx.merchant.merchantId,
      eventType: 'Capture',
      checkoutReference: null,
      payfacReference: reference,
      merchantReference: null,
      amount: 1,
      currency: 'EUR',
      reason: null,
      success: true,
    }),
  );
}

/** `n` copies of the one delivery there is, a millisecond apart (through `db`: PGlite has one connection). */
async function backlog(db: Queryable, n: number): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, event_type, payfac_reference, body, state, attempt_count, next_attempt_at, created_at, updated_at)
     SELECT d.id || '-copy' || i, d.event_id, d.webhook_id, d.event_type, d.payfac_reference, d.body, d.state, 0, d.next_attempt_at - i * interval '1 ms', d.created_at, d.updated_at
       FROM (SELECT * FROM webhook_deliveries ORDER BY created_at, id LIMIT 1) d, generate_series(1, $1::int) i`,
    [n],
  );
}

/** Claims `times` times on `client`, each in a transaction rolled back (the rows stay due); the rows each claim took. */
async function claims(ctx: TestContext, client: PoolClient, times: number, limit = 100): Promise<number[]> {
  const taken: number[] = [];
  for (let i = 0; i < times; i++) {
    await client.query(`BEGIN; ${LOCK_CLAIMS_SQL}`);
    try {
      const now = ctx.clock.now();
      const rows = await claimDueDeliveries(client, {
        now,
        leaseUntil: new Date(now.getTime() + 3_000),
        claimToken: '00000000-0000-4000-8000-000000000001',
        limit,
        // A max in flight of 100: with its queue, room for the largest claim.
        perEndpoint: 100,
        scan: scanFor(limit),
      });
      taken.push(rows.length);
    } finally {
      await client.query('ROLLBACK');
    }
  }
  return taken;
}

describe('the claim statement', () => {
  // Each case on a database of its own: a prepared statement lives on its connection.
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createTestContext();
    await register(ctx, 'https://receiver.example/plan', { eventTypes: ['Capture'] });
    await oneEvent(ctx, 'plan');
  });
  afterEach(async () => {
    await ctx.close();
  });

  it('keeps a plan made while the table was empty on its indexes once a backlog comes', async () => {
    const client = await ctx.tdb.db.pool.connect();
    try {
      // Claims while one delivery is due: the generic plan is made now, for a table of one row.
      expect(await claims(ctx, client, 7)).toEqual([1, 1, 1, 1, 1, 1, 1]);
      await backlog(client, 20_000);
      // The plan it runs for a backlog is that one (nothing has analysed the table since). A plan
      // that reads the whole table to find the claimed rows by id took 235 ms a claim at 50,000.
      await client.query(`BEGIN; ${LOCK_CLAIMS_SQL}`);
      try {
        // EXECUTE takes no bound parameters: the two times as literals (the test's own clock).
        const now = ctx.clock.now();
        const lease = new Date(now.getTime() + 3_000);
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (COSTS OFF) EXECUTE "delivery.claimDueDeliveries.scan400"('${now.toISOString()}', '${lease.toISOString()}',
             '00000000-0000-4000-8000-000000000001', 100, 10, '{}', '{}', '{}', '{}', '{}', '{}')`,
        );
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan).toMatch(/Index Scan using webhook_deliveries_pkey/);
        expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
      } finally {
        await client.query('ROLLBACK');
      }
    } finally {
      client.release();
    }
  });

  // A worker's claims take up to its batch: those of up to 100 read 400 due rows, the larger ones 800.
  it.each([100, 200])('is planned once per connection and reused, not planned at every claim (claims of %i)', async (limit) => {
    // A backlog of 50,000 due deliveries, analysed: a generic plan is weighed against the
    // custom plans by their estimates, and its guess for a limit given as a parameter (a tenth of
    // the rows) grows with the table. With 20,000 rows the old statement still settled on a generic
    // plan; with 50,000 it did not.
    await backlog(ctx.tdb.db.pool, 50_000);
    await ctx.tdb.db.pool.query('ANALYZE webhook_deliveries');
    // Claims on a connection of their own, as a worker's cycles run them.
    const client = await ctx.tdb.db.pool.connect();
    try {
      // Each takes its limit (the webhook's max in flight of 100 and a queue as deep would take 200).
      expect(await claims(ctx, client, 10, limit)).toEqual(Array.from({ length: 10 }, () => limit));
      const { rows } = await client.query<{ generic: number }>(`SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE name = $1`, [
        `delivery.claimDueDeliveries.scan${scanFor(limit)}`,
      ]);
      expect(rows).toHaveLength(1);
      // PostgreSQL tries five custom plans first; after them the generic plan is the one used.
      expect(rows[0]?.generic).toBeGreaterThanOrEqual(5);
    } finally {
      client.release();
    }
  });
});
