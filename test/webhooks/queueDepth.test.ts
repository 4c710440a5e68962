import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import type { Database } from '../../src/db/database.js';
import type { EventType } from '../../src/webhooks/events.js';
import { Metrics } from '../../src/metrics.js';
import { blackHole, enqueueMany, eventually, startReceiver, testWorker, type Receiver } from './helpers.js';

// The queue a worker keeps beside each webhook's slots follows what the endpoint completes: endpoints
// that never answer hold no more than twice their max in flight, so a few of them cannot take every
// place of a worker from a healthy endpoint beside them.

async function webhook(ctx: TestContext, url: string, eventType: EventType, maxInFlight?: number): Promise<string> {
  const r = await call(ctx, 'POST', '/api/v1/webhooks', { url, eventTypes: [eventType], ...(maxInFlight === undefined ? {} : { maxInFlight }) });
  expect(r.status).toBe(200);
  return r.body.webhookId as string;
}

async function claimed(ctx: TestContext, webhookId: string): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND state = 'Pending' AND claim_token IS NOT NULL`,
    [webhookId],
  );
  return rows[0]?.n ?? 0;
}

async function delivered(ctx: TestContext, webhookId: string): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND state = 'Delivered'`,
    [webhookId],
  );
  return rows[0]?.n ?? 0;
}

/** `db` whose first statement named `name` run through a pooled client fails (the rest pass through). */
function failingOnce(db: Database, name: string): { db: Database; failed: () => boolean } {
  let failed = false;
  const client = (c: pg.PoolClient): pg.PoolClient =>
    new Proxy(c, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
        return (...args: unknown[]) => {
          const q = args[0] as { name?: string } | string;
          if (!failed && typeof q === 'object' && q.name === name) {
            failed = true;
            return Promise.reject(new Error(`${name} failed (test)`));
          }
          return (target.query as (...a: unknown[]) => unknown)(...args);
        };
      },
    });
  const pool = new Proxy(db.pool, {
    get(target, prop, receiver) {
      if (prop === 'connect') return async () => client(await target.connect());
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { db: { ...db, pool }, failed: () => failed };
}

/** The webhook's deliveries delivered or due now: after a clean stop, all of them. */
async function deliveredOrDue(ctx: TestContext, webhookId: string): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND (state = 'Delivered' OR (state = 'Pending' AND next_attempt_at <= $2))`,
    [webhookId, ctx.clock.now()],
  );
  return rows[0]?.n ?? 0;
}

describe('the queue beside a webhook’s slots', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  beforeEach(async () => {
    ctx = await createTestContext();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await ctx.close();
  });

  it('three endpoints that never answer, with older backlogs, leave a healthy endpoint the places it needs', async () => {
    // A worker of 20 in flight holds 40 deliveries at most. Each dead endpoint (3 in flight) holds
    // twice its max in flight, 18 together; with a fixed queue of 128 beside each, they took more of
    // the freed places at every claim until the healthy endpoint had none.
    receiver.on('/dead', blackHole);
    const dead = [
      await webhook(ctx, `${receiver.url}/dead`, 'Authorization', 3),
      await webhook(ctx, `${receiver.url}/dead`, 'Capture', 3),
      await webhook(ctx, `${receiver.url}/dead`, 'Refund', 3),
    ];
    const healthy = await webhook(ctx, `${receiver.url}/healthy`, 'Tokenization');
    for (const type of ['Authorization', 'Capture', 'Refund'] as const) await enqueueMany(ctx, 60, type, type);
    ctx.clock.advance(1);
    await enqueueMany(ctx, 300, 'Tokenization', 'h');
    // The dead endpoints' attempts outlast the test, however loaded the machine.
    const worker = testWorker(ctx, { maxInFlight: 20, attemptTimeoutMs: 120_000 });
    try {
      await worker.start();
      await eventually(async () => (await delivered(ctx, healthy)) === 300, 'the healthy endpoint served', 20_000);
      for (const id of dead) expect(await claimed(ctx, id)).toBe(6);
      expect(receiver.received.filter((r) => r.path === '/dead')).toHaveLength(9);
    } finally {
      // Closing the receiver ends the dead endpoints' attempts, so the worker stops at once.
      await receiver.close();
      await worker.stop(10_000);
    }
  });

  it('an endpoint that turns slow gives back what it queued beyond its max in flight', async () => {
    // Answered at once at first, so its queue grows; from the 150th request each answer takes 1.2 s.
    let n = 0;
    let deepest: Promise<number> | undefined;
    let webhookId = '';
    receiver.on('/turns', (_req, res) => {
      n++;
      if (n === 150) deepest = claimed(ctx, webhookId);
      if (n < 150) res.writeHead(200).end('ok');
      else setTimeout(() => res.writeHead(200).end('late'), 1_200);
    });
    webhookId = await webhook(ctx, `${receiver.url}/turns`, 'Adjustment', 5);
    await enqueueMany(ctx, 400, 'Adjustment', 'a');
    const worker = testWorker(ctx);
    try {
      await worker.start();
      await eventually(() => deepest, 'the 150th request');
      // Quick answers: the queue grew past the max in flight.
      expect(await deepest).toBeGreaterThan(10);
      // Slow answers: five on the wire and five queued, the rest given back and due. (Up to five more
      // stay claimed for a moment: finished, and recorded by the cycle after the one that refilled the
      // queue.) Before, the queue held what it had while the answers were quick: 133 stayed claimed.
      await eventually(async () => (await delivered(ctx, webhookId)) >= 160, 'slow answers recorded');
      expect(await claimed(ctx, webhookId)).toBeLessThanOrEqual(15);
      // What was given back is no longer counted as held: the worker stops clean, nothing left claimed,
      // and every delivery is either delivered or due.
      await worker.stop(10_000);
      expect(await claimed(ctx, webhookId)).toBe(0);
      expect(await deliveredOrDue(ctx, webhookId)).toBe(400);
    } finally {
      await worker.stop(10_000);
    }
  });

  // On PostgreSQL: on the embedded database each cycle records about one attempt, so this queue stays at
  // the max in flight and nothing is given back.
  it.skipIf(TEST_DB === 'pglite')(
    'an endpoint that stops answering gives back its queue within seconds, before its attempts time out',
    async () => {
      let n = 0;
      let deepest: Promise<number> | undefined;
      let webhookId = '';
      receiver.on('/stops', (_req, res) => {
        n++;
        if (n === 150) deepest = claimed(ctx, webhookId);
        if (n < 150) res.writeHead(200).end('ok');
        // From the 150th request on, nothing is answered.
      });
      webhookId = await webhook(ctx, `${receiver.url}/stops`, 'Refund', 5);
      await enqueueMany(ctx, 400, 'Refund', 'r');
      // The attempts to it outlast the test: only the silence tells the worker.
      const metrics = new Metrics();
      const logged: { obj: object; msg: string }[] = [];
      const logger = pino(
        { level: 'info' },
        new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            const line = JSON.parse(chunk.toString()) as { msg: string };
            logged.push({ obj: line, msg: line.msg });
            done();
          },
        }),
      );
      const worker = testWorker(ctx, { attemptTimeoutMs: 120_000, metrics, logger });
      try {
        await worker.start();
        await eventually(() => deepest, 'the 150th request');
        expect(await deepest).toBeGreaterThan(10);
        // Five on the wire, five queued; before, the queue stayed until the attempts timed out.
        await eventually(async () => (await claimed(ctx, webhookId)) <= 10, 'the queue given back', 10_000);
        // The operator sees it: the deliveries given back, the webhook counted as slow, and a log line
        // that names it.
        const text = (await metrics.text()).body;
        const givenBack = Number(/^paylinks_webhook_deliveries_given_back_total\{reason="slow_endpoint"\} (\d+)$/m.exec(text)?.[1]);
        expect(givenBack).toBeGreaterThan(0);
        expect(text).toMatch(/^paylinks_worker_webhooks\{state="slow"\} 1$/m);
        expect(text).toMatch(/^paylinks_worker_deliveries_held\{stage="sending"\} 5$/m);
        const line = logged.find((l) => l.msg.startsWith('webhook endpoint answers slowly or not at all'));
        expect(line?.obj).toMatchObject({ webhookId, onWire: 5 });
        expect((line?.obj as { givenBack: number }).givenBack).toBeGreaterThan(0);
      } finally {
        // Closing the receiver ends the attempts on the wire, so the worker stops at once.
        await receiver.close();
        await worker.stop(10_000);
      }
      expect(await claimed(ctx, webhookId)).toBe(0);
    },
    60_000,
  );

  // Once, on PostgreSQL: the worker's bookkeeping does not depend on the database, and on the embedded
  // one each cycle records about one attempt, so this queue stays at the max in flight and nothing is
  // given back.
  it.skipIf(TEST_DB === 'pglite')(
    'a cycle that fails while giving back keeps what it was giving back, and gives it back later',
    async () => {
      // Quick answers, but six of every fifty requests take 1.1 s: while those are on the wire, the
      // cycles that record them find the queue deeper than the max in flight and give the rest back.
      // After the first such failure, every answer is slow.
      let n = 0;
      let slowForever = false;
      receiver.on('/fails', (_req, res) => {
        n++;
        if (slowForever || n % 50 >= 44) setTimeout(() => res.writeHead(200).end('late'), 1_100);
        else res.writeHead(200).end('ok');
      });
      const webhookId = await webhook(ctx, `${receiver.url}/fails`, 'Capture', 3);
      await enqueueMany(ctx, 400, 'Capture', 'c');
      // The first cycle that gives back fails as a whole (nothing recorded, given back or claimed).
      const failing = failingOnce(ctx.tdb.db, 'delivery.releaseClaims');
      const worker = testWorker(ctx, { db: failing.db });
      try {
        await worker.start();
        await eventually(() => failing.failed(), 'a cycle failed while giving back', 30_000);
        slowForever = true;
        // The cycle tried again gives them back: what stays claimed is the slots, their queue and what
        // finished unrecorded. (Had the worker forgotten them, they would stay claimed until their lease
        // ran out, which the test's clock never lets happen.)
        await eventually(async () => (await claimed(ctx, webhookId)) <= 9, 'the queue given back after the failure');
        await worker.stop(10_000);
        expect(await claimed(ctx, webhookId)).toBe(0);
        expect(await deliveredOrDue(ctx, webhookId)).toBe(400);
      } finally {
        await worker.stop(10_000);
      }
    },
    60_000,
  );
});
