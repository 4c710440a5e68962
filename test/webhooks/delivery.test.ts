import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { hmacSignature } from '../../src/webhooks/delivery/sign.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import {
  blackHole,
  eventually,
  refusedPort,
  register,
  reply,
  slow,
  startReceiver,
  testWorker,
  trickle,
  trustingAgent,
  TEST_ATTEMPT_TIMEOUT_MS,
  type Receiver,
} from './helpers.js';

// End to end against real HTTPS receivers (interface §3, 5.2, 6, 8; §Deliveries), on the injected clock.

const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Attempt {
  attemptNumber: number;
  correlationId: string;
  sentAt: string;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  errorKind: string | null;
  errorDetail: string | null;
}
interface Delivery {
  deliveryId: string;
  state: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  body: string;
  attempts: Attempt[];
}

describe('webhook delivery end to end', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let badReceiver: Receiver;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await startReceiver();
    badReceiver = await startReceiver({ badCert: true });
    worker = testWorker(ctx);
  });
  afterAll(async () => {
    await worker.stop(5_000);
    await receiver.close();
    await badReceiver.close();
    await ctx.close();
  });

  async function event(body: Record<string, unknown> = {}): Promise<{ eventId: string; payfacReference: string }> {
    const r = await call(ctx, 'POST', '/api/v1/sandbox/events', {
      eventType: 'Authorization',
      amount: 48900,
      currency: 'ISK',
      merchantReference: 'order-1',
      ...body,
    });
    expect(r.status).toBe(200);
    return r.body as { eventId: string; payfacReference: string };
  }

  async function deliveryOf(payfacReference: string, webhookId?: string): Promise<Delivery> {
    const list = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { payfacReference, ...(webhookId ? { webhookId } : {}) } });
    const id = (list.body.data as { deliveryId: string }[])[0]?.deliveryId;
    expect(id).toBeDefined();
    const r = await call(ctx, 'GET', `/api/v1/webhooks/deliveries/${id}`);
    return r.body.delivery as Delivery;
  }

  it('sends a signed message with the interface headers and records a 200 as Delivered', async () => {
    const wh = await register(ctx, `${receiver.url}/ok`);
    const e = await event({ checkoutReference: null, reason: null });
    await worker.settled();
    const got = receiver.received.filter((r) => r.path === '/ok');
    expect(got).toHaveLength(1);
    const req = got[0];
    expect(req?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req?.headers.authorization).toBe(wh.apiKey);
    expect(req?.headers['x-webhook-correlationid']).toMatch(UUID4);
    const body = JSON.parse(req?.body ?? '{}') as Record<string, string | null | Record<string, string>>;
    expect(body).toMatchObject({
      checkoutReference: null,
      payfacReference: e.payfacReference,
      merchantReference: 'order-1',
      amount: '48900',
      currency: 'ISK',
      reason: null,
      success: 'true',
    });
    expect(body.additionalData).toEqual({ eventType: 'Authorization' });
    // The receiver's check of 5.2 with the key it was given at registration.
    const { hmacSignature: sig, ...rest } = body;
    expect(sig).toBe(hmacSignature(wh.hmacKey, rest as unknown as Parameters<typeof hmacSignature>[1]));

    const d = await deliveryOf(e.payfacReference);
    expect(d).toMatchObject({ state: 'Delivered', attemptCount: 1, nextAttemptAt: null });
    expect(d.body).toBe(req?.body);
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({
      attemptNumber: 1,
      correlationId: req?.headers['x-webhook-correlationid'],
      responseStatus: 200,
      responseBody: 'ok',
      errorKind: null,
    });
  });

  const within = `no complete response within ${TEST_ATTEMPT_TIMEOUT_MS} ms`;
  const failures: [string, (r: Receiver) => Promise<string>, { status: number | null; kind: string; detail: string | RegExp | null }][] = [
    ['201', async (r) => (r.on('/201', reply(201)), `${r.url}/201`), { status: 201, kind: 'status', detail: null }],
    ['202', async (r) => (r.on('/202', reply(202)), `${r.url}/202`), { status: 202, kind: 'status', detail: null }],
    ['204', async (r) => (r.on('/204', reply(204)), `${r.url}/204`), { status: 204, kind: 'status', detail: null }],
    ['500', async (r) => (r.on('/500', reply(500, 'boom')), `${r.url}/500`), { status: 500, kind: 'status', detail: null }],
    [
      'a reply slower than the limit',
      async (r) => (r.on('/slow', slow(TEST_ATTEMPT_TIMEOUT_MS * 3)), `${r.url}/slow`),
      { status: null, kind: 'timeout', detail: within },
    ],
    [
      'a 200 whose body trickles past the limit',
      async (r) => (r.on('/trickle', trickle(100, TEST_ATTEMPT_TIMEOUT_MS * 3)), `${r.url}/trickle`),
      { status: 200, kind: 'timeout', detail: within },
    ],
    ['a receiver that never answers', async (r) => (r.on('/void', blackHole), `${r.url}/void`), { status: null, kind: 'timeout', detail: within }],
    [
      'connection refused',
      async () => `https://127.0.0.1:${await refusedPort()}/x`,
      { status: null, kind: 'connection', detail: /^ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+$/ },
    ],
  ];

  for (const [name, setup, expected] of failures) {
    it(`records ${name} as a failed attempt (${expected.kind}) and schedules the next one`, async () => {
      const url = await setup(receiver);
      const wh = await register(ctx, url);
      const e = await event();
      await worker.settled();
      const d = await deliveryOf(e.payfacReference, wh.webhookId);
      expect(d.state).toBe('Pending');
      expect(d.attemptCount).toBe(1);
      expect(d.attempts[0]).toMatchObject({ attemptNumber: 1, responseStatus: expected.status, errorKind: expected.kind });
      // Why, without the server's log: the merchant reads it on the attempt.
      if (expected.detail instanceof RegExp) expect(d.attempts[0]?.errorDetail).toMatch(expected.detail);
      else expect(d.attempts[0]?.errorDetail).toBe(expected.detail);
      expect(new Date(d.nextAttemptAt ?? 0).getTime()).toBe(new Date(d.attempts[0]?.sentAt ?? 0).getTime() + 60_000);
      // Stop it from being retried by later tests.
      await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/delete`);
    });
  }

  it('ends a delivery as Failed, not retried, when its webhook is deleted while the attempt is on the wire (§Webhooks)', async () => {
    receiver.on('/gone', blackHole);
    const wh = await register(ctx, `${receiver.url}/gone`);
    const e = await event();
    worker.wake();
    await eventually(() => receiver.received.some((r) => r.path === '/gone'), 'the attempt to reach the receiver');
    const deleted = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/delete`);
    expect(deleted.status).toBe(200);
    await worker.settled();
    const d = await deliveryOf(e.payfacReference, wh.webhookId);
    expect(d).toMatchObject({ state: 'Failed', attemptCount: 1, nextAttemptAt: null });
    expect(d.attempts[0]).toMatchObject({ errorKind: 'timeout' });
    ctx.clock.advance(2 * 60_000);
    await worker.settled();
    expect(receiver.received.filter((r) => r.path === '/gone')).toHaveLength(1);
  });

  it('records a certificate the worker does not trust as a tls failure', async () => {
    const wh = await register(ctx, `${badReceiver.url}/x`);
    const e = await event();
    await worker.settled();
    const d = await deliveryOf(e.payfacReference, wh.webhookId);
    expect(d.attempts[0]).toMatchObject({ responseStatus: null, errorKind: 'tls' });
    // The certificate error's own code, as OpenSSL names it, so the merchant knows what to fix.
    expect(d.attempts[0]?.errorDetail).toMatch(/^DEPTH_ZERO_SELF_SIGNED_CERT: self[- ]signed certificate$/);
    expect(badReceiver.received).toHaveLength(0);
    await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/delete`);
  });

  it('follows the whole 7-hour schedule on the injected clock: 1 min, 10 min, 1 h, 6 h, then Failed', async () => {
    receiver.on('/down', reply(503, 'down'));
    const wh = await register(ctx, `${receiver.url}/down`);
    const e = await event({ amount: 100 });
    const t0 = ctx.clock.now().getTime();
    await worker.settled();
    const sends = () => receiver.received.filter((r) => r.path === '/down');
    expect(sends()).toHaveLength(1);

    const steps = [60_000, 600_000, 3_600_000, 21_600_000];
    let expectedCount = 1;
    for (const step of steps) {
      // One millisecond early: nothing is due yet.
      ctx.clock.advance(step - 1);
      await worker.settled();
      expect(sends()).toHaveLength(expectedCount);
      ctx.clock.advance(1);
      await worker.settled();
      expectedCount++;
      expect(sends()).toHaveLength(expectedCount);
    }
    const d = await deliveryOf(e.payfacReference, wh.webhookId);
    expect(d).toMatchObject({ state: 'Failed', attemptCount: 5, nextAttemptAt: null });
    expect(d.attempts.map((a) => new Date(a.sentAt).getTime() - t0)).toEqual([0, 60_000, 660_000, 4_260_000, 25_860_000]);
    expect(d.attempts.every((a) => a.errorKind === 'status' && a.responseStatus === 503 && a.responseBody === 'down')).toBe(true);

    // Every attempt sent the same bytes, each with its own correlation id.
    const bodies = new Set(sends().map((r) => r.body));
    expect(bodies.size).toBe(1);
    expect([...bodies][0]).toBe(d.body);
    const ids = sends().map((r) => r.headers['x-webhook-correlationid']);
    expect(new Set(ids).size).toBe(5);
    expect(d.attempts.map((a) => a.correlationId)).toEqual(ids);

    // Nothing after the fifth.
    ctx.clock.advance(48 * 3_600_000);
    await worker.settled();
    expect(sends()).toHaveLength(5);
  });

  it('stops retrying once an attempt succeeds', async () => {
    let n = 0;
    receiver.on('/flaky', (req, res, body) => (++n < 3 ? reply(500)(req, res, body) : reply(200)(req, res, body)));
    const wh = await register(ctx, `${receiver.url}/flaky`);
    const e = await event();
    await worker.settled();
    ctx.clock.advance(60_000);
    await worker.settled();
    ctx.clock.advance(600_000);
    await worker.settled();
    const d = await deliveryOf(e.payfacReference, wh.webhookId);
    expect(d).toMatchObject({ state: 'Delivered', attemptCount: 3, nextAttemptAt: null });
    expect(d.attempts.map((a) => a.errorKind)).toEqual(['status', 'status', null]);
    ctx.clock.advance(7 * 3_600_000);
    await worker.settled();
    expect(receiver.received.filter((r) => r.path === '/flaky')).toHaveLength(3);
  });

  it('keeps only the first 64 KiB of a large response body', async () => {
    receiver.on('/big', (_req, res) => res.writeHead(200).end('x'.repeat(200 * 1024)));
    const wh = await register(ctx, `${receiver.url}/big`);
    const e = await event();
    await worker.settled();
    const d = await deliveryOf(e.payfacReference, wh.webhookId);
    expect(d.state).toBe('Delivered');
    expect(d.attempts[0]?.responseBody).toHaveLength(64 * 1024);
  });

  it('sends only the subscribed event types, and nothing to a disabled webhook', async () => {
    receiver.on('/refunds', reply(200));
    receiver.on('/off', reply(200));
    const refunds = await register(ctx, `${receiver.url}/refunds`, { eventTypes: ['Refund'] });
    const off = await register(ctx, `${receiver.url}/off`);
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${off.webhookId}/update`, { enabled: false })).status).toBe(200);
    const auth = await event({ eventType: 'Authorization' });
    const refund = await event({ eventType: 'Refund' });
    await worker.settled();
    const got = receiver.received.filter((r) => r.path === '/refunds').map((r) => (JSON.parse(r.body) as { payfacReference: string }).payfacReference);
    expect(got).toEqual([refund.payfacReference]);
    expect(got).not.toContain(auth.payfacReference);
    expect(receiver.received.filter((r) => r.path === '/off')).toHaveLength(0);
    await call(ctx, 'POST', `/api/v1/webhooks/${refunds.webhookId}/delete`);
  });

  it('in production refuses at send time a URL that now reaches a loopback address (§Webhooks, DNS rebinding)', async () => {
    // Registered while the name was fine (here: development mode); the address is checked again
    // at the connection, by name (localhost resolves to 127.0.0.1) and for an IP literal.
    receiver.on('/prod', reply(200));
    const byName = await register(ctx, `https://localhost:${receiver.port}/prod`, { eventTypes: ['Capture'] });
    const byIp = await register(ctx, `${receiver.url}/prod`, { eventTypes: ['Capture'] });
    const production = testWorker(ctx, { config: { ...ctx.config, env: 'production' }, dispatcher: trustingAgent({ publicOnly: true }) });
    try {
      const e = await event({ eventType: 'Capture' });
      await production.settled();
      expect(receiver.received.filter((r) => r.path === '/prod')).toHaveLength(0);
      for (const wh of [byName, byIp]) {
        const d = await deliveryOf(e.payfacReference, wh.webhookId);
        expect(d.attempts[0]).toMatchObject({ responseStatus: null, errorKind: 'connection' });
        await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/delete`);
      }
    } finally {
      await production.stop(5_000);
    }
  });

  it('never writes the webhook secrets to the logs', async () => {
    const wh = await register(ctx, `${receiver.url}/ok`);
    await event();
    await worker.settled();
    const all = ctx.logs.join('\n');
    expect(all).not.toContain(wh.apiKey);
    expect(all).not.toContain(wh.hmacKey);
  });
});
