import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createMerchant, createPartner, type CreatedMerchant } from '../../src/accounts/service.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { hmacSignature } from '../../src/webhooks/delivery/sign.js';
import { register, reply, startReceiver, testWorker, type Receiver } from './helpers.js';

// Trace, replay and sandbox (§Deliveries), and tenant isolation of every delivery route.

interface DeliveryEntry {
  deliveryId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payfacReference: string;
  state: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
}

describe('delivery trace, replay and sandbox (§Deliveries)', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let other: CreatedMerchant;

  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await startReceiver();
    worker = testWorker(ctx);
    other = await createMerchant(ctx.tdb.db, 'Other');
  });
  afterAll(async () => {
    await worker.stop(5_000);
    await receiver.close();
    await ctx.close();
  });

  const sandboxEvent = async (body: Record<string, unknown> = {}, apiKey?: string) => {
    const r = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Capture', amount: 1000, currency: 'EUR', ...body }, apiKey ? { apiKey } : {});
    expect(r.status).toBe(200);
    return r.body as { eventId: string; payfacReference: string };
  };
  const list = async (query: Record<string, string>, apiKey?: string) => {
    const r = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query, ...(apiKey ? { apiKey } : {}) });
    expect(r.status).toBe(200);
    return r.body as { data: DeliveryEntry[]; totalCount: number };
  };

  it('records a sandbox event with a fresh payfacReference and every field of the body', async () => {
    receiver.on('/sb', reply(200));
    const wh = await register(ctx, `${receiver.url}/sb`, { eventTypes: ['Tokenization'] });
    const e = await sandboxEvent({
      eventType: 'Tokenization',
      amount: 0,
      currency: 'ISK',
      success: false,
      reason: 'Tokenized:4242:03/2030',
      merchantReference: 'ref-1',
      checkoutReference: 'cs_1',
      additionalData: { token: 'tok_1', cardSummary: '4242' },
    });
    expect(e.payfacReference).toMatch(/^\d+$/);
    expect(e.eventId).toMatch(/^evt_/);
    await worker.settled();
    const got = receiver.received.find((r) => r.path === '/sb');
    const body = JSON.parse(got?.body ?? '{}') as Record<string, unknown>;
    expect(body).toMatchObject({
      checkoutReference: 'cs_1',
      payfacReference: e.payfacReference,
      merchantReference: 'ref-1',
      amount: '0',
      currency: 'ISK',
      reason: 'Tokenized:4242:03/2030',
      success: 'false',
      additionalData: { token: 'tok_1', cardSummary: '4242', eventType: 'Tokenization' },
    });
    const { hmacSignature: sig, ...rest } = body;
    expect(sig).toBe(hmacSignature(wh.hmacKey, rest as unknown as Parameters<typeof hmacSignature>[1]));
  });

  it('validates sandbox events and writes nothing for a rejected one', async () => {
    const before = (await list({ PageSize: '100' })).totalCount;
    const r = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Nope', amount: -1, currency: 'euro', extra: 1 });
    expect(r.status).toBe(400);
    expect([...new Set((r.body.errors as { field: string }[]).map((e) => e.field))].sort()).toEqual(['amount', 'currency', 'eventType', 'extra']);
    expect((await list({ PageSize: '100' })).totalCount).toBe(before);
  });

  it('filters by payfacReference, correlationId, webhookId and state; pages newest first', async () => {
    receiver.on('/t-ok', reply(200));
    receiver.on('/t-bad', reply(500));
    const ok = await register(ctx, `${receiver.url}/t-ok`, { eventTypes: ['Refund'] });
    const bad = await register(ctx, `${receiver.url}/t-bad`, { eventTypes: ['Refund'] });
    const events = [];
    for (let i = 0; i < 3; i++) {
      ctx.clock.advance(1000);
      events.push(await sandboxEvent({ eventType: 'Refund' }));
    }
    await worker.settled();

    const byRef = await list({ payfacReference: events[0]?.payfacReference ?? '' });
    expect(byRef.totalCount).toBe(2);
    expect(byRef.data.map((d) => d.webhookId).sort()).toEqual([ok.webhookId, bad.webhookId].sort());

    const okList = await list({ webhookId: ok.webhookId });
    expect(okList.totalCount).toBe(3);
    expect(okList.data.map((d) => d.payfacReference)).toEqual(events.map((e) => e.payfacReference).reverse());
    expect(okList.data.every((d) => d.state === 'Delivered' && d.nextAttemptAt === null && d.eventType === 'Refund')).toBe(true);

    const pending = await list({ webhookId: bad.webhookId, state: 'Pending' });
    expect(pending.totalCount).toBe(3);
    expect(pending.data.every((d) => d.attemptCount === 1 && d.nextAttemptAt !== null)).toBe(true);
    expect((await list({ webhookId: bad.webhookId, state: 'Delivered' })).totalCount).toBe(0);

    const page = await list({ webhookId: ok.webhookId, page: '1', pagesize: '2' });
    expect(page.totalCount).toBe(3);
    expect(page.data.map((d) => d.payfacReference)).toEqual([events[0]?.payfacReference]);

    // By the X-Webhook-CorrelationId the receiver saw.
    const sent = receiver.received.filter((r) => r.path === '/t-bad').at(-1);
    const cid = String(sent?.headers['x-webhook-correlationid']);
    const byCid = await list({ correlationId: cid });
    expect(byCid.totalCount).toBe(1);
    expect(byCid.data[0]?.webhookId).toBe(bad.webhookId);
    expect((await list({ correlationId: 'not-a-uuid' })).totalCount).toBe(0);

    expect((await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { state: 'Lost' } })).status).toBe(400);
    expect((await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { PageSize: '0' } })).status).toBe(400);
    await call(ctx, 'POST', `/api/v1/webhooks/${bad.webhookId}/delete`);
    expect((await list({ webhookId: bad.webhookId, state: 'Failed' })).totalCount).toBe(3);
  });

  it('redelivers an event as a new delivery with its own attempts, signed with the current key', async () => {
    receiver.on('/re', reply(200));
    const wh = await register(ctx, `${receiver.url}/re`, { eventTypes: ['Adjustment'] });
    const e = await sandboxEvent({ eventType: 'Adjustment' });
    await worker.settled();
    const first = (await list({ payfacReference: e.payfacReference })).data[0] as DeliveryEntry;
    expect(first.state).toBe('Delivered');

    const rot = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/rotate-secrets`);
    const r = await call(ctx, 'POST', `/api/v1/webhooks/deliveries/${first.deliveryId}/redeliver`);
    expect(r.status).toBe(200);
    const newId = String(r.body.deliveryId);
    expect(newId).not.toBe(first.deliveryId);
    const fresh = (await call(ctx, 'GET', `/api/v1/webhooks/deliveries/${newId}`)).body.delivery as DeliveryEntry & { attempts: unknown[]; body: string };
    expect(fresh).toMatchObject({ eventId: first.eventId, webhookId: wh.webhookId, state: 'Pending', attemptCount: 0, attempts: [] });
    await worker.settled();
    const sends = receiver.received.filter((x) => x.path === '/re');
    expect(sends).toHaveLength(2);
    expect(sends[1]?.headers.authorization).toBe(rot.body.apiKey);
    const body = JSON.parse(sends[1]?.body ?? '{}') as Record<string, unknown>;
    const { hmacSignature: sig, ...rest } = body;
    expect(sig).toBe(hmacSignature(String(rot.body.hmacKey), rest as unknown as Parameters<typeof hmacSignature>[1]));
    expect((await list({ payfacReference: e.payfacReference })).totalCount).toBe(2);
  });

  it('advances a pending delivery to now; the schedule continues from the real send time', async () => {
    receiver.on('/adv', reply(502));
    const wh = await register(ctx, `${receiver.url}/adv`, { eventTypes: ['TokenDisabled'] });
    const e = await sandboxEvent({ eventType: 'TokenDisabled' });
    await worker.settled();
    const d = (await list({ payfacReference: e.payfacReference })).data[0] as DeliveryEntry;
    expect(d.attemptCount).toBe(1);
    ctx.clock.advance(5_000);
    const a = await call(ctx, 'POST', `/api/v1/sandbox/deliveries/${d.deliveryId}/advance`);
    expect(a.status).toBe(200);
    await worker.settled();
    const after = (await call(ctx, 'GET', `/api/v1/webhooks/deliveries/${d.deliveryId}`)).body.delivery as DeliveryEntry & { attempts: { sentAt: string }[] };
    expect(after.attemptCount).toBe(2);
    const sent2 = new Date(after.attempts[1]?.sentAt ?? 0).getTime();
    expect(sent2).toBe(ctx.clock.now().getTime());
    expect(new Date(after.nextAttemptAt ?? 0).getTime()).toBe(sent2 + 600_000);

    // Not Pending any more: 409.
    await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/delete`);
    const done = await call(ctx, 'POST', `/api/v1/sandbox/deliveries/${d.deliveryId}/advance`);
    expect(done.status).toBe(409);
    expect(done.body.code).toBe('INVALID_STATE');
  });

  it("advances every pending delivery of the caller at once, or of one webhook, and no one else's", async () => {
    receiver.on('/all-a', reply(500));
    receiver.on('/all-b', reply(500));
    const a = await register(ctx, `${receiver.url}/all-a`, { eventTypes: ['Refund'] });
    const b = await register(ctx, `${receiver.url}/all-b`, { eventTypes: ['Refund'] });
    const theirs = await register(ctx, `${receiver.url}/all-a`, { eventTypes: ['Refund'], apiKey: other.apiKey });
    await sandboxEvent({ eventType: 'Refund' });
    await sandboxEvent({ eventType: 'Refund' });
    await sandboxEvent({ eventType: 'Refund' }, other.apiKey);
    await worker.settled();
    const pendingOf = async (webhookId: string, apiKey?: string) => (await list({ webhookId, state: 'Pending' }, apiKey)).data as DeliveryEntry[];
    expect((await pendingOf(a.webhookId)).map((d) => d.attemptCount)).toEqual([1, 1]);
    // One webhook first: only its two deliveries.
    const one = await call(ctx, 'POST', '/api/v1/sandbox/deliveries/advance', { webhookId: a.webhookId });
    expect([one.status, one.body.advanced]).toEqual([200, 2]);
    await worker.settled();
    expect((await pendingOf(a.webhookId)).map((d) => d.attemptCount)).toEqual([2, 2]);
    expect((await pendingOf(b.webhookId)).map((d) => d.attemptCount)).toEqual([1, 1]);
    // Then all of the caller's: b's two and a's two again; the other merchant's stays where it was.
    const all = await call(ctx, 'POST', '/api/v1/sandbox/deliveries/advance', {});
    expect(all.body.advanced).toBe(4);
    await worker.settled();
    expect((await pendingOf(b.webhookId)).map((d) => d.attemptCount)).toEqual([2, 2]);
    expect((await pendingOf(theirs.webhookId, other.apiKey)).map((d) => d.attemptCount)).toEqual([1]);
    // Another merchant's webhook by id: not found, nothing advanced.
    const foreign = await call(ctx, 'POST', '/api/v1/sandbox/deliveries/advance', { webhookId: theirs.webhookId });
    expect(foreign.status).toBe(404);
    expect((await pendingOf(theirs.webhookId, other.apiKey)).map((d) => d.attemptCount)).toEqual([1]);
  });

  it("recovers a webhook's failed deliveries of a window as new deliveries, once per window", async () => {
    let down = true;
    receiver.on('/recover', (req, res, body) => reply(down ? 503 : 200)(req, res, body));
    const wh = await register(ctx, `${receiver.url}/recover`, { eventTypes: ['Adjustment'] });
    const t0 = ctx.clock.now();
    const early = [await sandboxEvent({ eventType: 'Adjustment' }), await sandboxEvent({ eventType: 'Adjustment' })];
    ctx.clock.advance(2 * 3_600_000);
    const late = await sandboxEvent({ eventType: 'Adjustment' });
    await worker.settled();
    // Five attempts each, all refused: the three deliveries end Failed.
    for (let i = 0; i < 4; i++) {
      await call(ctx, 'POST', '/api/v1/sandbox/deliveries/advance', { webhookId: wh.webhookId });
      await worker.settled();
    }
    expect((await list({ webhookId: wh.webhookId, state: 'Failed' })).totalCount).toBe(3);
    down = false;
    const window = { since: new Date(t0.getTime() - 1000).toISOString(), until: new Date(t0.getTime() + 3_600_000).toISOString() };
    const r = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/recover`, window);
    expect([r.status, r.body.requeued, r.body.repeated]).toEqual([200, 2, false]);
    await worker.settled();
    const delivered = (await list({ webhookId: wh.webhookId, state: 'Delivered' })).data as DeliveryEntry[];
    expect(delivered.map((d) => d.payfacReference).sort()).toEqual(early.map((e) => e.payfacReference).sort());
    expect(delivered.every((d) => d.attemptCount === 1)).toBe(true);
    // The same window again: nothing more is queued.
    const again = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/recover`, window);
    expect([again.body.requeued, again.body.repeated]).toEqual([2, true]);
    expect((await list({ webhookId: wh.webhookId, state: 'Pending' })).totalCount).toBe(0);
    // An open window from the late event on takes only it.
    const rest = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/recover`, { since: new Date(t0.getTime() + 3_600_000).toISOString() });
    expect(rest.body.requeued).toBe(1);
    await worker.settled();
    expect(((await list({ webhookId: wh.webhookId, state: 'Delivered' })).data as DeliveryEntry[]).map((d) => d.payfacReference)).toContain(
      late.payfacReference,
    );
    // A window that ends before it starts, and another merchant's webhook, are refused.
    const bad = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/recover`, { since: window.until, until: window.since });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/recover`, window, { apiKey: other.apiKey })).status).toBe(404);
  });

  it('removes finished deliveries older than the retention period with their attempts, never a pending one', async () => {
    receiver.on('/keep-ok', reply(200));
    receiver.on('/keep-down', reply(503));
    const ok = await register(ctx, `${receiver.url}/keep-ok`, { eventTypes: ['TokenDisabled'] });
    const down = await register(ctx, `${receiver.url}/keep-down`, { eventTypes: ['TokenDisabled'] });
    const old = await sandboxEvent({ eventType: 'TokenDisabled' });
    await worker.settled();
    ctx.clock.advance(31 * 86_400_000);
    const recent = await sandboxEvent({ eventType: 'TokenDisabled' });
    await worker.settled();
    const keeper = testWorker(ctx, { config: { ...ctx.config, deliveryRetentionDays: 30 } });
    const removed = await keeper.removeOld();
    // The old Delivered one (and its attempt) went; the old pending one to the down receiver stays,
    // and so does everything recent.
    expect(removed).toBeGreaterThanOrEqual(1);
    expect((await list({ payfacReference: old.payfacReference, webhookId: ok.webhookId })).totalCount).toBe(0);
    expect((await list({ payfacReference: old.payfacReference, webhookId: down.webhookId })).data.map((d) => (d as DeliveryEntry).state)).toEqual(['Pending']);
    expect((await list({ payfacReference: recent.payfacReference })).totalCount).toBe(2);
    const { rows } = await ctx.tdb.db.pool.query('SELECT 1 FROM webhook_attempts a LEFT JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.id IS NULL');
    expect(rows).toEqual([]);
    expect(await keeper.removeOld()).toBe(0);
    // 0 days keeps everything.
    expect(await testWorker(ctx, { config: { ...ctx.config, deliveryRetentionDays: 0 } }).removeOld()).toBe(0);
  });

  it("shows a key only its own deliveries: another merchant's or partner's is 404 and untouched", async () => {
    receiver.on('/iso', reply(500));
    await register(ctx, `${receiver.url}/iso`, { eventTypes: ['Authorization'] });
    const e = await sandboxEvent({ eventType: 'Authorization' });
    await worker.settled();
    const d = (await list({ payfacReference: e.payfacReference })).data[0] as DeliveryEntry;
    const partner = await createPartner(ctx.tdb.db, 'Unlinked');
    for (const apiKey of [other.apiKey, partner.apiKey]) {
      expect((await call(ctx, 'GET', `/api/v1/webhooks/deliveries/${d.deliveryId}`, undefined, { apiKey })).status).toBe(404);
      expect((await call(ctx, 'POST', `/api/v1/webhooks/deliveries/${d.deliveryId}/redeliver`, undefined, { apiKey })).status).toBe(404);
      expect((await call(ctx, 'POST', `/api/v1/sandbox/deliveries/${d.deliveryId}/advance`, undefined, { apiKey })).status).toBe(404);
      expect((await list({ payfacReference: e.payfacReference }, apiKey)).totalCount).toBe(0);
      expect((await list({ webhookId: d.webhookId }, apiKey)).totalCount).toBe(0);
      expect((await list({ PageSize: '100' }, apiKey)).data.map((x) => x.deliveryId)).not.toContain(d.deliveryId);
    }
    // Nothing was redelivered or advanced by them.
    const mine = await list({ payfacReference: e.payfacReference });
    expect(mine.totalCount).toBe(1);
    expect(mine.data[0]?.nextAttemptAt).toBe(d.nextAttemptAt);
    // An event of the other merchant never reaches this merchant's webhooks.
    const theirs = await sandboxEvent({ eventType: 'Authorization' }, other.apiKey);
    expect((await list({ payfacReference: theirs.payfacReference })).totalCount).toBe(0);
    expect((await call(ctx, 'GET', '/api/v1/webhooks/deliveries/dlv_unknown')).status).toBe(404);
  });
});

describe('sandbox switched off (PAYLINKS_SANDBOX=off)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ PAYLINKS_SANDBOX: 'off' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('answers 404 for both sandbox operations, and still serves the rest', async () => {
    const ev = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Capture', amount: 1, currency: 'EUR' });
    expect(ev.status).toBe(404);
    expect(ev.body.code).toBe('NOT_FOUND');
    expect((await call(ctx, 'POST', '/api/v1/sandbox/deliveries/dlv_x/advance')).status).toBe(404);
    expect((await call(ctx, 'GET', '/api/v1/webhooks/deliveries')).status).toBe(200);
  });
});
