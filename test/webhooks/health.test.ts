import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueueEvent, type EventType } from '../../src/webhooks/events.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { register, reply, startReceiver, testWorker, type Receiver } from './helpers.js';

// Endpoint health: a webhook knows its last success and since when it fails; after days of failures
// with no success in between the worker disables it and tells the merchant's other webhooks.

const DAY = 86_400_000;
const MINUTE = 60_000;

interface WebhookRead {
  enabled: boolean;
  lastSuccessAt: string | null;
  failingSince: string | null;
  failedDeliveries: number;
  disabledReason: string | null;
  disabledAt: string | null;
}

describe('endpoint health', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let n = 0;

  const read = async (webhookId: string): Promise<WebhookRead> => (await call(ctx, 'GET', `/api/v1/webhooks/${webhookId}`)).body.webhook as WebhookRead;
  const emit = async (eventType: EventType): Promise<void> => {
    n++;
    await withTransaction(ctx.tdb.db, (tx) =>
      enqueueEvent(tx, ctx, {
        merchantId: ctx.merchant.merchantId,
        eventType,
        checkoutReference: null,
        payfacReference: `health${n}`,
        merchantReference: null,
        amount: 100,
        currency: 'EUR',
        reason: null,
        success: true,
      }),
    );
  };
  /** Lets every due attempt run and be recorded. */
  const drain = async (): Promise<void> => {
    worker.wake();
    await worker.settled();
  };
  /** Moves the clock through the retry schedule (1 min, 10 min, 1 h, 6 h) so that every delivery ends. */
  const toTheEnd = async (): Promise<void> => {
    for (const step of [MINUTE, 10 * MINUTE, 60 * MINUTE, 6 * 60 * MINUTE]) {
      ctx.clock.advance(step);
      await drain();
    }
  };

  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await worker.stop(5_000);
  });
  afterAll(async () => {
    await receiver.close();
    await ctx.close();
  });

  it('records the last success, since when deliveries fail and how many ended Failed; a success clears it', async () => {
    worker = testWorker(ctx, { config: { ...ctx.config, deliveryRetentionDays: 0, webhookDisableAfterDays: 5 } });
    await worker.start();
    receiver.on('/flaky', reply(200));
    const wh = await register(ctx, `${receiver.url}/flaky`, { eventTypes: ['Tokenization'] });
    expect(await read(wh.webhookId)).toMatchObject({ lastSuccessAt: null, failingSince: null, failedDeliveries: 0, disabledReason: null });

    await emit('Tokenization');
    await drain();
    const healthy = await read(wh.webhookId);
    expect(healthy.lastSuccessAt).toBe(ctx.clock.now().toISOString());
    expect(healthy).toMatchObject({ failingSince: null, failedDeliveries: 0 });

    receiver.on('/flaky', reply(500));
    ctx.clock.advance(MINUTE);
    const firstFailure = ctx.clock.now().toISOString();
    await emit('Tokenization');
    await drain();
    expect(await read(wh.webhookId)).toMatchObject({ lastSuccessAt: healthy.lastSuccessAt, failingSince: firstFailure, failedDeliveries: 0 });
    await toTheEnd();
    // The first failure still dates the trouble; the delivery has now ended Failed.
    expect(await read(wh.webhookId)).toMatchObject({ failingSince: firstFailure, failedDeliveries: 1 });

    receiver.on('/flaky', reply(200));
    ctx.clock.advance(MINUTE);
    await emit('Tokenization');
    await drain();
    expect(await read(wh.webhookId)).toMatchObject({ lastSuccessAt: ctx.clock.now().toISOString(), failingSince: null, failedDeliveries: 0 });
  });

  it("disables a webhook failing for five days, ends its pending deliveries and tells the merchant's other webhooks; enabling starts afresh", async () => {
    worker = testWorker(ctx, { config: { ...ctx.config, deliveryRetentionDays: 0, webhookDisableAfterDays: 5 } });
    await worker.start();
    receiver.on('/down', reply(503));
    receiver.on('/other', reply(200));
    const down = await register(ctx, `${receiver.url}/down`, { eventTypes: ['Capture'] });
    // It chose Refund only: the notice is sent to it all the same.
    const other = await register(ctx, `${receiver.url}/other`, { eventTypes: ['Refund'] });

    await emit('Capture');
    await drain();
    const since = (await read(down.webhookId)).failingSince;
    expect(since).toBe(ctx.clock.now().toISOString());
    await toTheEnd();

    // Failures keep coming for days; a minute short of five days it is still enabled.
    ctx.clock.advance(5 * DAY - 7 * 60 * MINUTE - 12 * MINUTE);
    await emit('Capture');
    await drain();
    expect(await worker.disableFailing()).toEqual([]);
    expect((await read(down.webhookId)).enabled).toBe(true);

    ctx.clock.advance(2 * MINUTE);
    expect(await worker.disableFailing()).toEqual([down.webhookId]);
    expect(await worker.disableFailing()).toEqual([]);
    const disabled = await read(down.webhookId);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'failing', disabledAt: ctx.clock.now().toISOString(), failingSince: since });
    // The delivery still being retried ended as Failed, as when a person disables the webhook. One
    // that a worker had on the wire at that moment ends Failed when its attempt is recorded: wait for
    // the worker to settle before counting (under load the retry that came due may be in flight).
    // On a loaded machine that attempt may still be on its way when one settle returns: count again
    // for a few seconds; a delivery left Pending for good still fails this.
    const pendingOf = async (): Promise<number | undefined> =>
      (
        await ctx.tdb.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND state = 'Pending'`, [
          down.webhookId,
        ])
      ).rows[0]?.n;
    const until = Date.now() + 5_000;
    await drain();
    while ((await pendingOf()) !== 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      await drain();
    }
    expect(await pendingOf()).toBe(0);

    await drain();
    const notices = receiver.received
      .filter((r) => r.path === '/other')
      .map((r) => JSON.parse(r.body) as { payfacReference: string; success: string; additionalData: Record<string, string> });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      payfacReference: down.webhookId,
      success: 'false',
      additionalData: { eventType: 'EndpointDisabled', webhookId: down.webhookId, url: `${receiver.url}/down`, failingSince: since, failedDeliveries: '1' },
    });
    // Recorded as an event, and nothing was sent to the disabled webhook itself.
    const events = await ctx.tdb.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_events WHERE event_type = 'EndpointDisabled' AND payfac_reference = $1`,
      [down.webhookId],
    );
    expect(events.rows[0]?.n).toBe(1);

    const enabled = await call(ctx, 'POST', `/api/v1/webhooks/${down.webhookId}/update`, { enabled: true });
    expect(enabled.body.webhook).toMatchObject({ enabled: true, failingSince: null, failedDeliveries: 0, disabledReason: null, disabledAt: null });
    ctx.clock.advance(DAY);
    expect(await worker.disableFailing()).toEqual([]);
    await call(ctx, 'POST', `/api/v1/webhooks/${other.webhookId}/delete`);
    await call(ctx, 'POST', `/api/v1/webhooks/${down.webhookId}/delete`);
  });

  it('a success within the window keeps the webhook; a webhook disabled by a person is not the worker’s; zero days never disables', async () => {
    worker = testWorker(ctx, { config: { ...ctx.config, deliveryRetentionDays: 0, webhookDisableAfterDays: 5 } });
    await worker.start();
    receiver.on('/recovers', reply(500));
    const wh = await register(ctx, `${receiver.url}/recovers`, { eventTypes: ['TokenDisabled'] });
    await emit('TokenDisabled');
    await drain();
    ctx.clock.advance(3 * DAY);
    receiver.on('/recovers', reply(200));
    await emit('TokenDisabled');
    await drain();
    ctx.clock.advance(3 * DAY);
    expect(await worker.disableFailing()).toEqual([]);
    expect(await read(wh.webhookId)).toMatchObject({ enabled: true, failingSince: null });

    receiver.on('/recovers', reply(500));
    await emit('TokenDisabled');
    await drain();
    await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/update`, { enabled: false });
    ctx.clock.advance(6 * DAY);
    expect(await worker.disableFailing()).toEqual([]);
    expect(await read(wh.webhookId)).toMatchObject({ enabled: false, disabledReason: null, disabledAt: expect.any(String) as string });

    await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/update`, { enabled: true });
    await emit('TokenDisabled');
    await drain();
    await worker.stop(5_000);
    worker = testWorker(ctx);
    await worker.start();
    ctx.clock.advance(30 * DAY);
    expect(await worker.disableFailing()).toEqual([]);
    expect((await read(wh.webhookId)).enabled).toBe(true);
  });
});
