import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { claimDueDeliveries, LOCK_CLAIMS_SQL } from '../../src/webhooks/delivery/sql.js';
import { register } from './helpers.js';

// A worker claims several times a second on the same connection. PostgreSQL plans a prepared
// statement anew at each execution (a custom plan) until a generic plan looks no dearer; the claim's
// scan bound, as a parameter, made the generic plan look dearer for good, and every claim was
// planned again. With the bound in the text the statement settles on one generic plan.

describe('the claim statement', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('is planned once and reused, not planned at every claim', async () => {
    await register(ctx, 'https://receiver.example/plan', { eventTypes: ['Capture'] });
    for (let i = 0; i < 3; i++)
      await withTransaction(ctx.tdb.db, (tx) =>
        enqueueEvent(tx, ctx, {
          merchantId: ctx.merchant.merchantId,
          eventType: 'Capture',
          checkoutReference: null,
          payfacReference: `plan${i}`,
          merchantReference: null,
          amount: i,
          currency: 'EUR',
          reason: null,
          success: true,
        }),
      );
    // A backlog of 50,000 due deliveries (copies of the last one, a millisecond apart), with the
    // statistics PostgreSQL keeps of it: a generic plan is weighed against the custom plans by their
    // estimates, and its guess for a limit given as a parameter (a tenth of the rows) grows with the
    // table. With 20,000 rows the old statement still settled on a generic plan; with 50,000 it did not.
    await ctx.tdb.db.pool.query(
      `INSERT INTO webhook_deliveries (id, event_id, webhook_id, event_type, payfac_reference, body, state, attempt_count, next_attempt_at, created_at, updated_at)
       SELECT d.id || '-' || i, d.event_id, d.webhook_id, d.event_type, d.payfac_reference, d.body, d.state, 0, d.next_attempt_at - i * interval '1 ms', d.created_at, d.updated_at
         FROM (SELECT * FROM webhook_deliveries ORDER BY created_at DESC LIMIT 1) d, generate_series(1, 50000) i`,
    );
    await ctx.tdb.db.pool.query('ANALYZE webhook_deliveries');
    // Claims on one connection, as a worker's cycles run them (each rolled back: the rows stay due).
    const client = await ctx.tdb.db.pool.connect();
    try {
      for (let i = 0; i < 10; i++) {
        await client.query(`BEGIN; ${LOCK_CLAIMS_SQL}`);
        const now = ctx.clock.now();
        const rows = await claimDueDeliveries(client, {
          now,
          leaseUntil: new Date(now.getTime() + 3_000),
          claimToken: '00000000-0000-4000-8000-00000000000' + String(i % 10),
          limit: 100,
          perEndpoint: 10,
          scan: 400,
        });
        expect(rows).toHaveLength(100);
        await client.query('ROLLBACK');
      }
      const { rows } = await client.query<{ generic: number; custom: number }>(
        `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name LIKE 'delivery.claimDueDeliveries%'`,
      );
      expect(rows).toHaveLength(1);
      // PostgreSQL tries five custom plans first; after them the generic plan is the one used.
      expect(rows[0]?.generic).toBeGreaterThanOrEqual(5);
    } finally {
      client.release();
    }
  });
});
