import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Paylinks } from '@paylinks/sdk';
import { PaylinksApiError, verifyStandardWebhook, verifyWebhook, type ListenerAttempt, type ListenerEvent } from '@paylinks/sdk';
import { createMerchant } from '../../src/accounts/service.js';
import { ListenerHub, type StreamedAttempt } from '../../src/webhooks/listen/hub.js';
import { startLiveService, type LiveService } from '../sdk/helpers.js';
import { call } from '../helpers/app.js';
import { testWorker } from './helpers.js';

// Listener webhooks, the service's side of `paylinks listen`: deliveries go down a stream the client
// opens, the client reports its receiver's answer, and the attempt is recorded as any other.

interface Attempt {
  attemptNumber: number;
  correlationId: string;
  responseStatus: number | null;
  responseBody: string | null;
  errorKind: string | null;
  errorDetail: string | null;
}

/** Reads a listener's stream in the background; `next()` waits for its next attempt. */
function reader(
  client: Paylinks,
  webhookId: string,
  session?: string,
): { next(): Promise<ListenerAttempt>; ready: Promise<void>; stop(): void; ended: Promise<unknown> } {
  const abort = new AbortController();
  const queue: ListenerAttempt[] = [];
  const waiters: ((a: ListenerAttempt) => void)[] = [];
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const ended = (async () => {
    for await (const e of client.webhooks.listen(webhookId, {
      signal: abort.signal,
      ...(session === undefined ? {} : { session }),
    }) as AsyncIterable<ListenerEvent>) {
      if (e.type === 'ready') markReady();
      else {
        const w = waiters.shift();
        if (w) w(e.attempt);
        else queue.push(e.attempt);
      }
    }
  })().catch((err: unknown) => err);
  return {
    ready,
    ended,
    next: () => {
      const a = queue.shift();
      if (a) return Promise.resolve(a);
      return new Promise<ListenerAttempt>((resolve, reject) => {
        waiters.push(resolve);
        setTimeout(() => reject(new Error('no attempt arrived within 10 s')), 10_000).unref();
      });
    },
    stop: () => abort.abort(),
  };
}

describe('listener webhooks (paylinks listen)', () => {
  let live: LiveService;
  let client: Paylinks;

  beforeAll(async () => {
    live = await startLiveService();
    client = live.client();
  });
  afterAll(async () => {
    await live.close();
  });

  async function trigger(eventType = 'Authorization'): Promise<string> {
    const r = await client.sandbox.trigger({ eventType: eventType as 'Authorization', amount: 48900, currency: 'ISK', merchantReference: 'order-7' });
    return r.payfacReference;
  }

  async function attemptsOf(deliveryId: string): Promise<{ state: string; attempts: Attempt[]; nextAttemptAt: string | null }> {
    const r = await call(live.ctx, 'GET', `/api/v1/webhooks/deliveries/${deliveryId}`);
    return r.body.delivery as { state: string; attempts: Attempt[]; nextAttemptAt: string | null };
  }

  it('streams each delivery with the headers and exact body a URL receiver gets, and records the reported answer', async () => {
    const l = await client.webhooks.registerListener({ eventTypes: ['Authorization'] });
    expect(l).toMatchObject({ kind: 'listener', url: `listen:${l.webhookId}`, eventTypes: ['Authorization'], reused: false });
    expect(l.hmacKey).toMatch(/^[0-9a-f]{64}$/);
    const stream = reader(client, l.webhookId);
    try {
      await stream.ready;
      const payfacReference = await trigger();
      const a = await stream.next();
      expect(a).toMatchObject({ eventType: 'Authorization', payfacReference, attemptNumber: 1 });
      expect(a.headers).toEqual({
        'content-type': 'application/json; charset=utf-8',
        authorization: l.apiKey,
        'x-webhook-correlationid': a.correlationId,
        'webhook-id': a.deliveryId,
        'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
        'webhook-signature': expect.stringMatching(/^v1,/),
      });
      // What the local receiver gets verifies with the secrets the listener was registered with.
      const message = verifyWebhook({ rawBody: a.body, headers: a.headers, apiKey: l.apiKey, hmacKey: l.hmacKey });
      expect(verifyStandardWebhook({ rawBody: a.body, headers: a.headers, secret: l.signingSecret, now: live.ctx.clock.now() }).payfacReference).toBe(
        payfacReference,
      );
      expect(message).toMatchObject({ payfacReference, merchantReference: 'order-7', amount: '48900' });

      await client.webhooks.reportAttempt(l.webhookId, {
        deliveryId: a.deliveryId,
        attemptToken: a.attemptToken,
        responseStatus: 200,
        responseBody: 'thanks',
        durationMs: 12,
        errorKind: null,
        errorDetail: null,
      });
      const d = await attemptsOf(a.deliveryId);
      expect(d.state).toBe('Delivered');
      expect(d.attempts).toEqual([
        expect.objectContaining({ attemptNumber: 1, correlationId: a.correlationId, responseStatus: 200, responseBody: 'thanks', errorKind: null }),
      ]);

      // Reporting it again records nothing more.
      await expect(
        client.webhooks.reportAttempt(l.webhookId, {
          deliveryId: a.deliveryId,
          attemptToken: a.attemptToken,
          responseStatus: 200,
          responseBody: '',
          durationMs: 1,
          errorKind: null,
          errorDetail: null,
        }),
      ).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE' });

      // Event types it did not subscribe to do not come.
      await trigger('Refund');
      const refunds = await call(live.ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { webhookId: l.webhookId } });
      expect((refunds.body.data as unknown[]).length).toBe(1);
    } finally {
      stream.stop();
      await client.webhooks.delete(l.webhookId);
    }
  });

  it('retries a non-200 answer on the schedule, with a new correlation id, over the same stream', async () => {
    const l = await client.webhooks.registerListener({ eventTypes: ['Capture'] });
    const stream = reader(client, l.webhookId);
    try {
      await stream.ready;
      await trigger('Capture');
      const first = await stream.next();
      await client.webhooks.reportAttempt(l.webhookId, {
        deliveryId: first.deliveryId,
        attemptToken: first.attemptToken,
        responseStatus: 500,
        responseBody: 'boom',
        durationMs: 3,
        errorKind: 'status',
        errorDetail: null,
      });
      const d = await attemptsOf(first.deliveryId);
      expect(d.state).toBe('Pending');
      expect(d.attempts[0]).toMatchObject({ responseStatus: 500, responseBody: 'boom', errorKind: 'status', errorDetail: null });
      live.ctx.clock.advance(60_000);
      live.ctx.app.listeners.wakeAll();
      const second = await stream.next();
      expect(second).toMatchObject({ deliveryId: first.deliveryId, attemptNumber: 2 });
      expect(second.correlationId).not.toBe(first.correlationId);
      expect(second.body).toBe(first.body);
      await client.webhooks.reportAttempt(l.webhookId, {
        deliveryId: second.deliveryId,
        attemptToken: second.attemptToken,
        responseStatus: null,
        responseBody: null,
        durationMs: 2,
        errorKind: 'connection',
        errorDetail: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:3000',
      });
      expect((await attemptsOf(first.deliveryId)).attempts[1]).toMatchObject({
        attemptNumber: 2,
        responseStatus: null,
        errorKind: 'connection',
        errorDetail: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:3000',
      });
    } finally {
      stream.stop();
      await client.webhooks.delete(l.webhookId);
    }
  });

  it('is never sent by the ordinary delivery worker: its deliveries wait for a stream', async () => {
    const l = await client.webhooks.registerListener({ eventTypes: ['Tokenization'] });
    const worker = testWorker(live.ctx);
    try {
      await trigger('Tokenization');
      await worker.start();
      await worker.settled();
      const list = await call(live.ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { webhookId: l.webhookId } });
      const [d] = list.body.data as { deliveryId: string; state: string; attemptCount: number }[];
      expect(d).toMatchObject({ state: 'Pending', attemptCount: 0 });
      expect(worker.stats.attempts).toBe(0);
      // When a client listens, it comes.
      const stream = reader(client, l.webhookId);
      try {
        expect((await stream.next()).deliveryId).toBe(d?.deliveryId);
      } finally {
        stream.stop();
      }
    } finally {
      await worker.stop(5_000);
      await client.webhooks.delete(l.webhookId);
    }
  });

  it('reuses a listener left behind without a stream for a minute, secrets and all; never one in use', async () => {
    const first = await client.webhooks.registerListener({ eventTypes: ['Adjustment'] });
    const meanwhile = await client.webhooks.registerListener({ eventTypes: ['Adjustment'] });
    expect(meanwhile.webhookId).not.toBe(first.webhookId);
    live.ctx.clock.advance(61_000);
    const again = await client.webhooks.registerListener({ eventTypes: ['Adjustment'] });
    expect(again.reused).toBe(true);
    expect([first.webhookId, meanwhile.webhookId]).toContain(again.webhookId);
    const original = again.webhookId === first.webhookId ? first : meanwhile;
    expect([again.apiKey, again.hmacKey]).toEqual([original.apiKey, original.hmacKey]);
    await client.webhooks.delete(first.webhookId);
    await client.webhooks.delete(meanwhile.webhookId);
  });

  it("is another owner's 404, a URL webhook's 409, and takes one stream at a time", async () => {
    const l = await client.webhooks.registerListener({ eventTypes: ['Refund'] });
    const other = await createMerchant(live.ctx.tdb.db, 'Someone else');
    const stranger = live.client({ apiKey: other.apiKey });
    await expect(stranger.webhooks.listen(l.webhookId).next()).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(
      stranger.webhooks.reportAttempt(l.webhookId, {
        deliveryId: 'dlv_x',
        attemptToken: 'x',
        responseStatus: 200,
        responseBody: '',
        durationMs: 1,
        errorKind: null,
        errorDetail: null,
      }),
    ).rejects.toMatchObject({ status: 404 });
    const url = await client.webhooks.register({ url: 'https://hooks.example.com/x' });
    await expect(client.webhooks.listen(url.webhookId).next()).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE' });
    const plain = await call(live.ctx, 'GET', `/api/v1/webhooks/${l.webhookId}/listen`);
    expect(plain.status).toBe(400);
    expect(plain.body.errors).toEqual([{ field: 'Accept', code: 'FORMAT', message: 'must accept text/event-stream' }]);
    const noUrl = await call(live.ctx, 'POST', `/api/v1/webhooks/${l.webhookId}/update`, { url: 'https://x.example.com/' });
    expect(noUrl.status).toBe(400);

    const stream = reader(client, l.webhookId);
    try {
      await stream.ready;
      const second = await client.webhooks
        .listen(l.webhookId)
        .next()
        .catch((e: unknown) => e);
      expect(second).toBeInstanceOf(PaylinksApiError);
      expect(second).toMatchObject({ status: 409 });
    } finally {
      stream.stop();
      await client.webhooks.delete(l.webhookId);
      await client.webhooks.delete(url.webhookId);
    }
  });

  it("lets a stream of the same session replace the one it left open, refuses another session's, and keeps the new one when the old closes", async () => {
    const l = await client.webhooks.registerListener({ eventTypes: ['Capture'] });
    const first = reader(client, l.webhookId, 'run-1');
    let second: ReturnType<typeof reader> | undefined;
    try {
      await first.ready;
      const stranger = await client.webhooks
        .listen(l.webhookId, { session: 'run-2' })
        .next()
        .catch((e: unknown) => e);
      expect(stranger).toMatchObject({ status: 409, code: 'INVALID_STATE' });
      const bad = await call(live.ctx, 'GET', `/api/v1/webhooks/${l.webhookId}/listen?session=${encodeURIComponent('a b')}`, undefined, {
        headers: { accept: 'text/event-stream' },
      });
      expect(bad.status).toBe(400);

      // The same client comes back (its connection died without closing): the service ends the
      // stream it held and serves the new one.
      second = reader(client, l.webhookId, 'run-1');
      await second.ready;
      expect(await first.ended).toBeUndefined();
      const payfacReference = await trigger('Capture');
      const a = await second.next();
      expect(a).toMatchObject({ payfacReference, attemptNumber: 1 });
      await client.webhooks.reportAttempt(l.webhookId, {
        deliveryId: a.deliveryId,
        attemptToken: a.attemptToken,
        responseStatus: 200,
        responseBody: 'ok',
        durationMs: 3,
        errorKind: null,
        errorDetail: null,
      });
      expect((await attemptsOf(a.deliveryId)).state).toBe('Delivered');
    } finally {
      first.stop();
      second?.stop();
      await client.webhooks.delete(l.webhookId);
    }
  });
});

describe('listener hub', () => {
  let live: LiveService;
  beforeAll(async () => {
    live = await startLiveService();
  });
  afterAll(async () => {
    await live.close();
  });

  it('records an unreported attempt as a timeout, and a closed stream as a connection failure, both to be retried', async () => {
    const client = live.client();
    const l = await client.webhooks.registerListener({ eventTypes: ['Authorization'] });
    const sent: StreamedAttempt[] = [];
    const hub = new ListenerHub({
      db: live.ctx.tdb.db,
      clock: live.ctx.clock,
      sealer: live.ctx.sealer,
      leaseMs: 60_000,
      reportTimeoutMs: 300,
      pollIntervalMs: 50,
    });
    const sink = {
      send: (event: string, data: unknown) => void (event === 'attempt' && sent.push(data as StreamedAttempt)),
      comment: () => undefined,
      end: () => undefined,
    };
    expect(hub.open(l.webhookId, sink)).toBe(true);
    expect(hub.open(l.webhookId, sink)).toBe(false);
    await client.sandbox.trigger({ eventType: 'Authorization', amount: 100, currency: 'EUR' });
    const wait = async (n: number): Promise<void> => {
      for (let i = 0; i < 200 && sent.length < n; i++) await new Promise((r) => setTimeout(r, 25));
    };
    await wait(1);
    const first = sent[0] as StreamedAttempt;
    await new Promise((r) => setTimeout(r, 600));
    const d1 = (await call(live.ctx, 'GET', `/api/v1/webhooks/deliveries/${first.deliveryId}`)).body.delivery as { state: string; attempts: Attempt[] };
    expect(d1.state).toBe('Pending');
    expect(d1.attempts[0]).toMatchObject({ errorKind: 'timeout', responseStatus: null, errorDetail: 'paylinks listen reported no answer within 0.3 s' });

    live.ctx.clock.advance(60_000);
    hub.wakeAll();
    await wait(2);
    hub.detach(l.webhookId);
    await new Promise((r) => setTimeout(r, 200));
    const d2 = (await call(live.ctx, 'GET', `/api/v1/webhooks/deliveries/${first.deliveryId}`)).body.delivery as { state: string; attempts: Attempt[] };
    expect(d2.attempts[1]).toMatchObject({ attemptNumber: 2, errorKind: 'connection', errorDetail: 'the listener disconnected before answering' });
    expect(d2.state).toBe('Pending');
    hub.closeAll();
  });

  it('gives back what it claimed for a stream that closed while the claim ran, to the stream that replaced it', async () => {
    const client = live.client();
    const l = await client.webhooks.registerListener({ eventTypes: ['Refund'] });
    const r = await client.sandbox.trigger({ eventType: 'Refund', amount: 100, currency: 'EUR' });
    const db = live.ctx.tdb.db;
    const claimed = async (): Promise<boolean | undefined> => {
      const { rows } = await db.pool.query<{ claimed: boolean }>(
        `SELECT claim_token IS NOT NULL AS claimed FROM webhook_deliveries WHERE webhook_id = $1 AND payfac_reference = $2`,
        [l.webhookId, r.payfacReference],
      );
      return rows[0]?.claimed;
    };
    for (let i = 0; i < 100 && (await claimed()) === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await claimed()).toBe(false);
    // The hub's first claim takes the delivery, then waits before it returns, until its stream has
    // closed and another has opened (and made its own claim, which finds nothing).
    let claims = 0;
    let firstClaimed: () => void = () => undefined;
    const tookIt = new Promise<void>((resolve) => (firstClaimed = resolve));
    let secondDone: () => void = () => undefined;
    const secondRan = new Promise<void>((resolve) => (secondDone = resolve));
    let letFirstReturn: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (letFirstReturn = resolve));
    const pool = new Proxy(db.pool, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
        return async (...args: Parameters<typeof target.query>) => {
          const isClaim = typeof args[0] === 'string' && args[0].includes('via_listener AND next_attempt_at <=');
          const n = isClaim ? ++claims : 0;
          const result = await target.query(...args);
          if (n === 1) {
            firstClaimed();
            await gate;
          }
          if (n === 2) secondDone();
          return result;
        };
      },
    });
    // No poll within the test: only the hand-over wakes the second stream.
    const hub = new ListenerHub({ db: { ...db, pool }, clock: live.ctx.clock, sealer: live.ctx.sealer, leaseMs: 60_000, pollIntervalMs: 60_000 });
    const sink = () => {
      const events: string[] = [];
      return { events, send: (event: string) => void events.push(event), comment: () => undefined, end: () => undefined };
    };
    const first = sink();
    const second = sink();
    try {
      expect(hub.open(l.webhookId, first, 'run-1')).toBe(true);
      await tookIt;
      expect(await claimed()).toBe(true);
      expect(hub.open(l.webhookId, second, 'run-1')).toBe(true);
      await secondRan;
      // Its listening for new deliveries starts with a look of its own: let that pass too, so that
      // only the hand-over can bring the delivery.
      for (let i = 0; i < 100 && claims < 3; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 50));
      letFirstReturn();
      // Given back (not left for its lease, a minute) and handed to the stream that replaced it.
      for (let i = 0; i < 150 && !second.events.includes('attempt'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(second.events).toEqual(['ready', 'attempt']);
      expect(first.events).toEqual(['ready']);
    } finally {
      hub.closeAll();
      await client.webhooks.delete(l.webhookId);
    }
  });
});
