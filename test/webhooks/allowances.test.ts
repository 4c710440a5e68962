import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { claimAndRecord } from '../../src/webhooks/delivery/claim.js';
import { enqueueMany, register } from './helpers.js';

// What a worker that was held back at its claim (other workers held too many of a webhook's places)
// may put on the wire now: the webhook's max in flight less what the others hold (§Deliveries). The
// three-worker test of test/webhooks/concurrency.test.ts needs PostgreSQL's connections; this one
// reads the same allowance in one process, on both databases.

describe('the allowance of a held-back worker', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('is the max in flight less the places held by the other workers', async () => {
    const wh = await register(ctx, 'https://receiver.example/allowance', { eventTypes: ['Authorization'] });
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/update`, { maxInFlight: 5 })).status).toBe(200);
    await enqueueMany(ctx, 6, 'Authorization', 'allow');
    const leaseMs = ctx.config.deliveryLeaseMs;

    // Another worker claims three of them.
    const other = await claimAndRecord(ctx.tdb.db, ctx.clock, { records: [], limit: 3, perEndpoint: 5, leaseMs });
    expect(other.claim.rows).toHaveLength(3);

    // A worker holding none of them may send two; one holding one of those three, three.
    const none = await claimAndRecord(ctx.tdb.db, ctx.clock, { records: [], limit: 0, perEndpoint: 5, leaseMs, refresh: () => new Map([[wh.webhookId, 0]]) });
    expect(none.allowances.get(wh.webhookId)).toBe(2);
    const one = await claimAndRecord(ctx.tdb.db, ctx.clock, { records: [], limit: 0, perEndpoint: 5, leaseMs, refresh: () => new Map([[wh.webhookId, 1]]) });
    expect(one.allowances.get(wh.webhookId)).toBe(3);
  });
});
