import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/database.js';
import { claimAndRecord } from '../../src/webhooks/delivery/claim.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { reply, startReceiver, testWorker, type Behaviour, type Receiver } from './helpers.js';

// Ordered delivery per webhook (§Deliveries: ordering), on the injected clock: a fifo webhook's
// deliveries go one at a time in the order their events were recorded; a failing one holds back the
// later ones until it succeeds or has used its five attempts.

let ctx: TestContext;
let receiver: Receiver;
let worker: DeliveryWorker | undefined;
let seq = 0;

beforeAll(async () => {
  ctx = await createTestContext();
  receiver = await startReceiver();
});
afterEach(async () => {
  await worker?.stop(5_000);
  worker = undefined;
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});

async function registerOrdered(path: string, ordering?: 'fifo' | 'unordered'): Promise<string> {
  const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}${path}`, eventTypes: ['Capture'], ...(ordering ? { ordering } : {}) });
  expect(r.status).toBe(200);
  return r.body.webhookId as string;
}

/** `n` Capture events in one transaction; their payfacReferences, in the order recorded. */
async function events(n: number): Promise<string[]> {
  const refs: string[] = [];
  await withTransaction(ctx.tdb.db, async (tx) => {
    for (let i = 0; i < n; i++) {
      const ref = `ord-${++seq}`;
      refs.push(ref);
      await enqueueEvent(tx, ctx, {
        merchantId: ctx.merchant.merchantId,
        eventType: 'Capture',
        checkoutReference: null,
        payfacReference: ref,
        merchantReference: null,
        amount: 100,
        currency: 'EUR',
        reason: null,
        success: true,
      });
    }
  });
  return refs;
}

const refsAt = (path: string): string[] =>
  receiver.received.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { payfacReference: string }).payfacReference);

/** Fails the requests carrying `ref` the first `times` times (all of them with Infinity), answers 200 to the rest. */
function failing(ref: string, times: number): Behaviour {
  let failed = 0;
  return (req, res, body) => {
    const mine = (JSON.parse(body) as { payfacReference: string }).payfacReference === ref;
    if (mine && failed < times) {
      failed++;
      reply(503, 'not yet')(req, res, body);
    } else reply(200)(req, res, body);
  };
}

/**
 * Until the receiver has had `n` requests at `path` (at most 15 s), waking the worker meanwhile, then
 * settled: the next delivery of a fifo line may go out in the cycle after the one that recorded the
 * last, so one settled() may return between the two on a busy machine.
 */
async function received(path: string, n: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (refsAt(path).length < n && Date.now() < deadline) {
    await worker?.settled();
    await new Promise((r) => setTimeout(r, 20));
  }
  await worker?.settled();
}

async function stateOf(webhookId: string): Promise<Record<string, number>> {
  const { rows } = await ctx.tdb.db.pool.query<{ state: string; n: number }>(
    'SELECT state, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY state ORDER BY state',
    [webhookId],
  );
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

describe('ordering: fifo', () => {
  it('holds the later deliveries while one is retried, and sends them in order once it succeeds', async () => {
    const id = await registerOrdered('/fifo-retry', 'fifo');
    const refs = await events(5);
    const [e0, e1, e2, e3, e4] = refs as [string, string, string, string, string];
    receiver.on('/fifo-retry', failing(e1, 2));
    worker = testWorker(ctx);
    await worker.start();
    await received('/fifo-retry', 2);
    // e1 failed: while its retry is not due, nothing after it goes out, however long the worker runs.
    expect(refsAt('/fifo-retry')).toEqual([e0, e1]);
    await new Promise((r) => setTimeout(r, 300));
    await worker.settled();
    expect(refsAt('/fifo-retry')).toEqual([e0, e1]);
    ctx.clock.advance(60_000);
    await received('/fifo-retry', 3);
    expect(refsAt('/fifo-retry')).toEqual([e0, e1, e1]);
    ctx.clock.advance(600_000);
    await received('/fifo-retry', 7);
    expect(refsAt('/fifo-retry')).toEqual([e0, e1, e1, e1, e2, e3, e4]);
    expect(await stateOf(id)).toEqual({ Delivered: 5 });
  });

  it('lets the next one go once a delivery has used its five attempts', async () => {
    const id = await registerOrdered('/fifo-exhaust', 'fifo');
    const [e0, e1, e2, e3] = (await events(4)) as [string, string, string, string];
    receiver.on('/fifo-exhaust', failing(e1, Infinity));
    worker = testWorker(ctx);
    await worker.start();
    await worker.settled();
    for (const step of [60_000, 600_000, 3_600_000]) {
      ctx.clock.advance(step);
      await worker.settled();
    }
    expect(refsAt('/fifo-exhaust')).toEqual([e0, e1, e1, e1, e1]);
    // One millisecond before the fifth attempt: still held.
    ctx.clock.advance(21_600_000 - 1);
    await worker.settled();
    expect(refsAt('/fifo-exhaust')).toEqual([e0, e1, e1, e1, e1]);
    ctx.clock.advance(1);
    await worker.settled();
    expect(refsAt('/fifo-exhaust')).toEqual([e0, e1, e1, e1, e1, e1, e2, e3]);
    expect(await stateOf(id)).toEqual({ Delivered: 3, Failed: 1 });
  });

  it('retries the same first delivery when a worker dies holding it, never a later one', async () => {
    const id = await registerOrdered('/fifo-lease', 'fifo');
    const [e0, e1, e2] = (await events(3)) as [string, string, string];
    // A worker claims and dies before sending: it got exactly the first delivery.
    const { claim: dead } = await claimAndRecord(ctx.tdb.db, ctx.clock, { records: [], limit: 10, perEndpoint: 10, leaseMs: ctx.config.deliveryLeaseMs });
    expect(dead.rows.filter((r) => r.webhookId === id)).toHaveLength(1);
    worker = testWorker(ctx);
    await worker.start();
    await worker.settled();
    expect(refsAt('/fifo-lease')).toEqual([]);
    ctx.clock.advance(ctx.config.deliveryLeaseMs);
    await worker.settled();
    expect(refsAt('/fifo-lease')).toEqual([e0, e1, e2]);
    expect(await stateOf(id)).toEqual({ Delivered: 3 });
  });

  it('leaves unordered webhooks as they were: a failing delivery holds back nothing', async () => {
    const id = await registerOrdered('/unordered');
    const [e0, e1, e2, e3] = (await events(4)) as [string, string, string, string];
    receiver.on('/unordered', failing(e1, 1));
    worker = testWorker(ctx);
    await worker.start();
    await worker.settled();
    expect([...refsAt('/unordered')].sort()).toEqual([e0, e1, e2, e3].sort());
    expect(await stateOf(id)).toEqual({ Delivered: 3, Pending: 1 });
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND ordered', [id]);
    expect(rows[0]?.n).toBe(0);
  });

  it('made fifo with deliveries waiting, takes them in the order recorded; made unordered again, releases them', async () => {
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/switch`, eventTypes: ['Capture'] });
    const id = r.body.webhookId as string;
    const refs = await events(6);
    const [e0] = refs as [string];
    receiver.on('/switch', failing(e0, Infinity));
    const fifo = await call(ctx, 'POST', `/api/v1/webhooks/${id}/update`, { ordering: 'fifo' });
    expect(fifo.status).toBe(200);
    expect((fifo.body.webhook as { ordering: string }).ordering).toBe('fifo');
    worker = testWorker(ctx);
    await worker.start();
    await worker.settled();
    // The first one fails and holds the five behind it.
    expect(refsAt('/switch')).toEqual([e0]);
    const back = await call(ctx, 'POST', `/api/v1/webhooks/${id}/update`, { ordering: 'unordered' });
    expect((back.body.webhook as { ordering: string }).ordering).toBe('unordered');
    worker.wake();
    await worker.settled();
    expect([...refsAt('/switch')].sort()).toEqual([...refs].sort());
    expect(await stateOf(id)).toEqual({ Delivered: 5, Pending: 1 });
  });
});

describe('ordering: commit order', () => {
  it.skipIf(TEST_DB === 'pglite')(
    "an event's delivery takes its place only once an earlier transaction making one for the same fifo webhook has committed (PostgreSQL: two connections)",
    async () => {
      const id = await registerOrdered('/fifo-commit', 'fifo');
      const event = (ref: string) => ({
        merchantId: ctx.merchant.merchantId,
        eventType: 'Capture' as const,
        checkoutReference: null,
        payfacReference: ref,
        merchantReference: null,
        amount: 1,
        currency: 'EUR',
        reason: null,
        success: true,
      });
      const first = await ctx.tdb.db.pool.connect();
      try {
        await first.query('BEGIN');
        await enqueueEvent(first, ctx, event('commit-first'));
        // A second payment records its event while the first is still open: it waits for it.
        let secondDone = false;
        const second = withTransaction(ctx.tdb.db, (tx) => enqueueEvent(tx, ctx, event('commit-second'))).then(() => (secondDone = true));
        await new Promise((r) => setTimeout(r, 300));
        expect(secondDone).toBe(false);
        await first.query('COMMIT');
        await second;
      } finally {
        first.release();
      }
      const { rows } = await ctx.tdb.db.pool.query<{ ref: string }>(
        'SELECT payfac_reference AS ref FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq',
        [id],
      );
      expect(rows.map((r) => r.ref)).toEqual(['commit-first', 'commit-second']);
      await call(ctx, 'POST', `/api/v1/webhooks/${id}/delete`);
    },
  );
});

describe('ordering: the setting', () => {
  it('is unordered by default, set at registration and by update, shown on every read, and checked', async () => {
    const plain = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/setting` });
    expect(plain.body.ordering).toBe('unordered');
    const made = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/setting`, ordering: 'fifo' });
    expect(made.status).toBe(200);
    expect(made.body.ordering).toBe('fifo');
    const id = made.body.webhookId as string;
    const read = await call(ctx, 'GET', `/api/v1/webhooks/${id}`);
    expect((read.body.webhook as { ordering: string }).ordering).toBe('fifo');
    const list = await call(ctx, 'GET', '/api/v1/webhooks');
    expect((list.body.data as { webhookId: string; ordering: string }[]).find((w) => w.webhookId === id)?.ordering).toBe('fifo');
    // Left out, it keeps its value.
    const renamed = await call(ctx, 'POST', `/api/v1/webhooks/${id}/update`, { description: 'ordered' });
    expect((renamed.body.webhook as { ordering: string }).ordering).toBe('fifo');
    const bad = await call(ctx, 'POST', `/api/v1/webhooks/${id}/update`, { ordering: 'lifo' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('ordering');
    const badNew = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/setting`, ordering: 'sorted' });
    expect(badNew.status).toBe(400);
  });
});
