import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { foldDeliveryCounts } from '../../src/webhooks/deliveries/service.js';
import { register, reply, startReceiver, testWorker, type Receiver } from './helpers.js';

// The delivery list's totalCount is a kept count (insert-only changes written by triggers, folded by
// the worker): after every kind of change it must equal counting the rows.

const STATES = [undefined, 'Pending', 'Delivered', 'Failed'] as const;

describe("the delivery list's kept count", () => {
  let ctx: TestContext;
  let receiver: Receiver;

  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await ctx.close();
  });

  /** Every filter's totalCount from the API against count(*) of the rows. */
  async function expectExact(webhookIds: readonly string[]): Promise<void> {
    for (const webhookId of [undefined, ...webhookIds]) {
      for (const state of STATES) {
        const query: Record<string, string> = { PageSize: '1', ...(webhookId ? { webhookId } : {}), ...(state ? { state } : {}) };
        const listed = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query });
        expect(listed.status).toBe(200);
        const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE w.merchant_id = $1 AND ($2::text IS NULL OR d.webhook_id = $2) AND ($3::text IS NULL OR d.state = $3)`,
          [ctx.merchant.merchantId, webhookId ?? null, state ?? null],
        );
        expect(listed.body.totalCount, `${webhookId ?? 'all'} ${state ?? 'any'}`).toBe(rows[0]?.n);
      }
    }
  }

  const emit = (n: number, from: number): Promise<unknown> =>
    withTransaction(ctx.tdb.db, async (tx) => {
      for (let i = 0; i < n; i++) {
        await enqueueEvent(tx, ctx, {
          merchantId: ctx.merchant.merchantId,
          eventType: 'Capture',
          checkoutReference: null,
          payfacReference: `count${from + i}`,
          merchantReference: null,
          amount: 1,
          currency: 'EUR',
          reason: null,
          success: true,
        });
      }
    });

  it('equals counting the rows after deliveries are made, delivered, failed, redelivered, rolled back, folded and removed', async () => {
    receiver.on('/ok', reply(200));
    receiver.on('/bad', reply(500));
    const ok = await register(ctx, `${receiver.url}/ok`);
    const bad = await register(ctx, `${receiver.url}/bad`);
    const ids = [ok.webhookId, bad.webhookId];
    const worker = testWorker(ctx);
    try {
      await emit(12, 0);
      await expectExact(ids);

      // A transaction that rolls back leaves no count behind.
      await expect(
        withTransaction(ctx.tdb.db, async (tx) => {
          await enqueueEvent(tx, ctx, {
            merchantId: ctx.merchant.merchantId,
            eventType: 'Capture',
            checkoutReference: null,
            payfacReference: 'gone',
            merchantReference: null,
            amount: 1,
            currency: 'EUR',
            reason: null,
            success: true,
          });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');

      await worker.start();
      await worker.settled();
      await expectExact(ids);
      // Through the retries to Failed.
      for (const step of [60_000, 600_000, 3_600_000, 21_600_000]) {
        ctx.clock.advance(step);
        worker.wake();
        await worker.settled();
      }
      await expectExact(ids);

      const failed = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { webhookId: bad.webhookId, state: 'Failed', PageSize: '1' } });
      const deliveryId = (failed.body.data as { deliveryId: string }[])[0]?.deliveryId ?? '';
      expect((await call(ctx, 'POST', `/api/v1/webhooks/deliveries/${deliveryId}/redeliver`)).status).toBe(200);
      await expectExact(ids);

      expect(await foldDeliveryCounts({ db: ctx.tdb.db })).toBeGreaterThan(0);
      const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_delivery_counts WHERE webhook_id = ANY ($1)', [ids]);
      expect(rows[0]?.n).toBeLessThanOrEqual(6);
      await expectExact(ids);

      // Disabling the failing webhook ends its pending deliveries; retention removes the old ones.
      await call(ctx, 'POST', `/api/v1/webhooks/${bad.webhookId}/update`, { enabled: false });
      await expectExact(ids);
      await emit(3, 100);
      // The running worker delivers them: counted once it is done.
      await worker.settled();
      ctx.clock.advance(40 * 86_400_000);
      const keeper = testWorker(ctx, { config: { ...ctx.config, deliveryRetentionDays: 30 } });
      expect(await keeper.removeOld()).toBeGreaterThan(0);
      await expectExact(ids);
      await foldDeliveryCounts({ db: ctx.tdb.db });
      await expectExact(ids);
    } finally {
      await worker.stop(5_000);
    }
  });
});
