import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { register } from './helpers.js';

// Every payment, capture and refund makes an event and its deliveries in its own transaction, so
// those statements are prepared and planned once per connection. The deliveries' insert took its
// rows as seven arrays, and PostgreSQL, estimating an unnest of array values from their lengths,
// judged the plan for the values cheaper every time: the statement was planned anew at every event
// (a third of PostgreSQL's CPU per event went to parsing and planning the event's statements).

describe("an event's statements", () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    await register(ctx, 'https://receiver.example/a', { eventTypes: ['Capture'] });
    await register(ctx, 'https://receiver.example/b', { eventTypes: [] });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('are planned once per connection and the plans reused', async () => {
    // Events on a connection of their own, each in its transaction, as a payment's would be.
    const client = await ctx.tdb.db.pool.connect();
    try {
      for (let i = 0; i < 12; i++) {
        await client.query('BEGIN');
        const { deliveryIds } = await enqueueEvent(client, ctx, {
          merchantId: ctx.merchant.merchantId,
          eventType: 'Capture',
          checkoutReference: null,
          payfacReference: `plan-${i}`,
          merchantReference: null,
          amount: 100,
          currency: 'EUR',
          reason: null,
          success: true,
        });
        await client.query('COMMIT');
        expect(deliveryIds).toHaveLength(2);
      }
      const { rows } = await client.query<{ name: string; generic: number; custom: number }>(
        `SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name LIKE 'webhooks.%' ORDER BY name`,
      );
      // PostgreSQL tries five custom plans first; after them the generic plan is the one used.
      expect(rows.map((r) => r.name)).toEqual(['webhooks.insertDeliveryRows', 'webhooks.insertEvent', 'webhooks.webhooksForEvent']);
      for (const r of rows) {
        expect(r.custom, r.name).toBe(5);
        expect(r.generic, r.name).toBeGreaterThanOrEqual(7);
      }
    } finally {
      client.release();
    }
    // The deliveries are made as before: one per webhook and event, due.
    const { rows } = await ctx.tdb.db.pool.query<{ n: number; due: boolean }>(
      `SELECT count(*)::int AS n, bool_and(state = 'Pending' AND next_attempt_at IS NOT NULL) AS due FROM webhook_deliveries WHERE payfac_reference LIKE 'plan-%'`,
    );
    expect(rows[0]).toEqual({ n: 24, due: true });
  });
});
