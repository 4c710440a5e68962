import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { claimAndRecord } from '../../src/webhooks/delivery/claim.js';
import { register } from './helpers.js';

// A claim that cannot take every due delivery (its limit is the worker's free places) takes each
// webhook's longest-waiting delivery first. Before, the webhooks it cut off were the same at every
// claim, and a drain of 100 webhooks left one of them nearly its whole backlog at the end.

describe('which due deliveries a claim takes when it cannot take them all', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('takes every webhook’s oldest delivery before any webhook’s next, claim after claim', async () => {
    const hooks = await Promise.all(['a', 'b', 'c'].map((p) => register(ctx, `https://receiver.example/${p}`, { eventTypes: ['Capture'] })));
    const names = new Map(hooks.map((h, i) => [h.webhookId, 'abc'[i]]));
    // Four events a second apart: each webhook has a delivery due at each second.
    for (let i = 0; i < 4; i++) {
      await withTransaction(ctx.tdb.db, (tx) =>
        enqueueEvent(tx, ctx, {
          merchantId: ctx.merchant.merchantId,
          eventType: 'Capture',
          checkoutReference: null,
          payfacReference: `fair${i}`,
          merchantReference: null,
          amount: i,
          currency: 'EUR',
          reason: null,
          success: true,
        }),
      );
      ctx.clock.advance(1_000);
    }
    // A worker with one free place at a time, holding what it claimed (sent, not yet answered).
    const order: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { claim } = await claimAndRecord(ctx.tdb.db, ctx.clock, { records: [], limit: 1, perEndpoint: 10, leaseMs: 60_000 });
      expect(claim.rows).toHaveLength(1);
      order.push(names.get(claim.rows[0]?.webhookId ?? '') ?? '?');
    }
    // Each round of three claims reaches every webhook once: none waits while another gets its next.
    for (let round = 0; round < 4; round++) expect(order.slice(round * 3, round * 3 + 3).sort()).toEqual(['a', 'b', 'c']);
  });
});
