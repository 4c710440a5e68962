import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { claimAndRecord } from '../../src/webhooks/delivery/claim.js';
import { recordAttempts, renewLeases } from '../../src/webhooks/delivery/sql.js';
import { blackHole, enqueueMany, eventually, register, slow, startReceiver, testWorker, type Receiver } from './helpers.js';

// Many workers, dead workers, and an endpoint that never answers (§Deliveries).

async function states(ctx: TestContext, webhookId: string): Promise<Record<string, number>> {
  const { rows } = await ctx.tdb.db.pool.query<{ state: string; n: number }>(
    'SELECT state, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY state',
    [webhookId],
  );
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

function payfacRefs(receiver: Receiver, path: string): string[] {
  return receiver.received.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { payfacReference: string }).payfacReference);
}

describe('delivery under concurrency', () => {
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

  it.skipIf(TEST_DB === 'pglite')(
    'two workers on one PostgreSQL database never send a delivery twice (needs real PostgreSQL: PGlite has one connection)',
    async () => {
      const wh = await register(ctx, `${receiver.url}/two`, { eventTypes: ['Capture'] });
      const secondDb = await openDatabase({ databaseUrl: ctx.tdb.url, dataDir: '' });
      const a = testWorker(ctx, { batchSize: 7 });
      const b = testWorker(ctx, { db: secondDb, batchSize: 7 });
      try {
        await Promise.all([a.start(), b.start()]);
        const n = 400;
        await enqueueMany(ctx, n, 'Capture', '77');
        await eventually(async () => (await states(ctx, wh.webhookId)).Delivered === n, 'every delivery delivered', 60_000);
        const refs = payfacRefs(receiver, '/two');
        expect(refs).toHaveLength(n);
        expect(new Set(refs).size).toBe(n);
        expect(a.stats.attempts + b.stats.attempts).toBe(n);
      } finally {
        await a.stop(5_000);
        await b.stop(5_000);
        await secondDb.close();
      }
    },
  );

  it("takes over a dead worker's claim when its lease runs out, and ignores the dead worker's late record", async () => {
    const wh = await register(ctx, `${receiver.url}/lease`, { eventTypes: ['Refund'] });
    await enqueueMany(ctx, 1, 'Refund', '88');
    // A worker claims and dies before sending.
    const { claim: dead } = await claimAndRecord(ctx.tdb.db, ctx.clock, { records: [], limit: 10, perEndpoint: 10, leaseMs: ctx.config.deliveryLeaseMs });
    expect(dead.rows).toHaveLength(1);
    const worker = testWorker(ctx);
    try {
      await worker.settled();
      expect(payfacRefs(receiver, '/lease')).toHaveLength(0);
      ctx.clock.advance(ctx.config.deliveryLeaseMs - 1);
      await worker.settled();
      expect(payfacRefs(receiver, '/lease')).toHaveLength(0);
      ctx.clock.advance(1);
      await worker.settled();
      expect(payfacRefs(receiver, '/lease')).toEqual(['880']);
      expect(await states(ctx, wh.webhookId)).toEqual({ Delivered: 1 });
      // The dead worker comes back and tries to record its attempt: its claim is gone.
      const row = dead.rows[0];
      const late = await recordAttempts(ctx.tdb.db.pool, ctx.clock.now(), [
        {
          deliveryId: row?.id ?? '',
          webhookId: wh.webhookId,
          claimToken: dead.token,
          attemptNumber: 1,
          correlationId: '00000000-0000-4000-8000-000000000000',
          sentAt: ctx.clock.now(),
          responseStatus: 500,
          responseBody: '',
          durationMs: 1,
          errorKind: 'status',
          errorDetail: null,
          state: 'Pending',
          nextAttemptAt: ctx.clock.now(),
        },
      ]);
      expect(late).toEqual([]);
      expect(await states(ctx, wh.webhookId)).toEqual({ Delivered: 1 });
    } finally {
      await worker.stop(5_000);
    }
  });

  it('a black-hole endpoint with hundreds of pending deliveries holds at most its limit while a healthy endpoint is served', async () => {
    const hole = await startReceiver();
    hole.on('/void', blackHole);
    const holeHook = await register(ctx, `${hole.url}/void`, { eventTypes: ['TokenDisabled'] });
    const healthy = await register(ctx, `${receiver.url}/healthy`, { eventTypes: ['Adjustment'] });
    // The black hole's backlog is older, so it sits at the head of the due queue.
    await enqueueMany(ctx, 300, 'TokenDisabled', '55');
    ctx.clock.advance(1);
    await enqueueMany(ctx, 100, 'Adjustment', '66');
    // Attempts to the black hole outlast the whole test.
    const worker = testWorker(ctx, { attemptTimeoutMs: 15_000 });
    try {
      await worker.start();
      await eventually(async () => (await states(ctx, healthy.webhookId)).Delivered === 100, 'the healthy endpoint served', 60_000);
      const limit = ctx.config.webhookMaxInFlightPerEndpoint;
      expect(hole.received.length).toBeLessThanOrEqual(limit);
      expect(hole.received.length).toBeGreaterThan(0);
      expect((await states(ctx, holeHook.webhookId)).Pending).toBe(300);
      const claimed = await ctx.tdb.db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND claim_token IS NOT NULL',
        [holeHook.webhookId],
      );
      // On the wire at most the limit; a queue beside them no deeper (it has completed nothing).
      expect(claimed.rows[0]?.n).toBeLessThanOrEqual(2 * limit);
    } finally {
      // Closing the black hole ends its attempts (connection errors), so the worker drains at once.
      await hole.close();
      await worker.stop(10_000);
    }
  });

  it("holds a black-hole endpoint to the webhook's own max in flight", async () => {
    const hole = await startReceiver();
    hole.on('/own', blackHole);
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${hole.url}/own`, eventTypes: ['Authorization'], maxInFlight: 3 });
    expect(r.status).toBe(200);
    const webhookId = r.body.webhookId as string;
    await enqueueMany(ctx, 40, 'Authorization', '44');
    const worker = testWorker(ctx, { attemptTimeoutMs: 15_000 });
    try {
      await worker.start();
      await eventually(() => hole.received.length >= 3, 'three attempts on the wire');
      // Give the worker more claims' time: none of them may add a fourth.
      for (let i = 0; i < 5; i++) {
        worker.wake();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(hole.received.length).toBe(3);
      // Three on the wire and three queued beside them, to follow the moment a slot frees: an endpoint
      // that has completed nothing gets a queue of its max in flight, no deeper.
      const claimed = await ctx.tdb.db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND claim_token IS NOT NULL',
        [webhookId],
      );
      expect(claimed.rows[0]?.n).toBe(6);
    } finally {
      await hole.close();
      await worker.stop(10_000);
    }
  });

  it('starts no more deliveries than the rate limit allows, by the injected clock', async () => {
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/rated`, eventTypes: ['Tokenization'], rateLimit: 5 });
    expect(r.status).toBe(200);
    await enqueueMany(ctx, 20, 'Tokenization', '33');
    const worker = testWorker(ctx);
    const sent = (): number => payfacRefs(receiver, '/rated').length;
    try {
      await worker.start();
      // A new limit starts with a full bucket: one second of deliveries.
      await eventually(() => sent() === 5, 'the first five');
      await worker.settled();
      expect(sent()).toBe(5);
      // The clock stands still: the bucket stays empty.
      worker.wake();
      await worker.settled();
      expect(sent()).toBe(5);
      ctx.clock.advance(400);
      worker.wake();
      await eventually(() => sent() === 7, 'two more after 0.4 s');
      await worker.settled();
      expect(sent()).toBe(7);
      // A long pause fills the bucket to one second's worth, no more.
      ctx.clock.advance(60_000);
      worker.wake();
      await eventually(() => sent() === 12, 'five more after a minute');
      await worker.settled();
      expect(sent()).toBe(12);
    } finally {
      await worker.stop(5_000);
    }
  });

  it.skipIf(TEST_DB === 'pglite')(
    'three workers sharing a slow endpoint never have more than its max in flight on the wire together, and send each delivery once',
    async () => {
      const slowHook = await startReceiver();
      let now = 0;
      let most = 0;
      slowHook.on('/slow', (_req, res) => {
        now++;
        most = Math.max(most, now);
        setTimeout(() => {
          now--;
          res.writeHead(200).end('ok');
        }, 40);
      });
      const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${slowHook.url}/slow`, eventTypes: ['Authorization'], maxInFlight: 4 });
      expect(r.status).toBe(200);
      const webhookId = r.body.webhookId as string;
      const dbs = await Promise.all([1, 2].map(() => openDatabase({ databaseUrl: ctx.tdb.url, dataDir: '' })));
      const workers = [testWorker(ctx, { batchSize: 3 }), ...dbs.map((db) => testWorker(ctx, { db, batchSize: 3 }))];
      try {
        await Promise.all(workers.map((w) => w.start()));
        const n = 120;
        await enqueueMany(ctx, n, 'Authorization', '22');
        await eventually(async () => (await states(ctx, webhookId)).Delivered === n, 'every delivery delivered', 60_000);
        expect(most).toBeLessThanOrEqual(4);
        expect(most).toBeGreaterThan(1);
        const refs = slowHook.received.filter((x) => x.path === '/slow').map((x) => (JSON.parse(x.body) as { payfacReference: string }).payfacReference);
        expect(refs).toHaveLength(n);
        expect(new Set(refs).size).toBe(n);
      } finally {
        await Promise.all(workers.map((w) => w.stop(5_000)));
        await Promise.all(dbs.map((db) => db.close()));
        await slowHook.close();
      }
    },
  );

  it('a worker that stops gives its queue back at once: nothing stays claimed, the rest is due for the next worker', async () => {
    const slowHook = await startReceiver();
    // Answers that take over a second: the queue stays at the max in flight while the test looks.
    slowHook.on('/queue', slow(1_200));
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${slowHook.url}/queue`, eventTypes: ['Capture'], maxInFlight: 2 });
    const webhookId = r.body.webhookId as string;
    await enqueueMany(ctx, 10, 'Capture', '11');
    const worker = testWorker(ctx);
    try {
      await worker.start();
      await eventually(() => slowHook.received.filter((x) => x.path === '/queue').length === 2, 'two on the wire');
      // Two on the wire, two queued beside them (a webhook new to the worker queues its max in flight).
      const claimed = await ctx.tdb.db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND claim_token IS NOT NULL',
        [webhookId],
      );
      expect(claimed.rows[0]?.n).toBe(4);
      await worker.stop(5_000);
      const after = await ctx.tdb.db.pool.query<{ claimed: number; due: number; delivered: number }>(
        `SELECT count(*) FILTER (WHERE claim_token IS NOT NULL)::int AS claimed,
                count(*) FILTER (WHERE state = 'Pending' AND next_attempt_at <= $2)::int AS due,
                count(*) FILTER (WHERE state = 'Delivered')::int AS delivered
           FROM webhook_deliveries WHERE webhook_id = $1`,
        [webhookId, ctx.clock.now()],
      );
      expect(after.rows[0]).toEqual({ claimed: 0, due: 8, delivered: 2 });
      expect(slowHook.received.filter((x) => x.path === '/queue')).toHaveLength(2);
      // The next worker sends the rest.
      const next = testWorker(ctx);
      try {
        await next.start();
        await eventually(async () => (await states(ctx, webhookId)).Delivered === 10, 'the rest delivered');
      } finally {
        await next.stop(5_000);
      }
    } finally {
      await worker.stop(5_000);
      await slowHook.close();
    }
  });

  it('counts a slot turnaround for each attempt that takes a slot another attempt freed while work waited', async () => {
    const hook = await startReceiver();
    hook.on('/turn', slow(20));
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${hook.url}/turn`, eventTypes: ['Tokenization'], maxInFlight: 2 });
    const webhookId = r.body.webhookId as string;
    await enqueueMany(ctx, 10, 'Tokenization', '55');
    const worker = testWorker(ctx);
    try {
      await worker.start();
      await eventually(async () => (await states(ctx, webhookId)).Delivered === 10, 'all delivered');
      // Two attempts start in empty slots; each of the other eight takes a slot freed by one before it.
      const t = worker.slotTurnaround();
      expect(t.n).toBe(8);
      expect(typeof t.p50).toBe('number');
    } finally {
      await worker.stop(5_000);
      await hook.close();
    }
  });

  it.skipIf(TEST_DB === 'pglite')(
    'renewing leases skips a delivery another transaction has locked instead of waiting for it (waiting deadlocked with the cycle recording it; needs real PostgreSQL)',
    async () => {
      const wh = await register(ctx, `${receiver.url}/renew`, { eventTypes: ['Authorization'] });
      await enqueueMany(ctx, 3, 'Authorization', '44');
      // (Earlier tests' webhooks may have deliveries due too: only this webhook's are looked at.)
      const { claim } = await claimAndRecord(ctx.tdb.db, ctx.clock, { records: [], limit: 500, perEndpoint: 10, leaseMs: ctx.config.deliveryLeaseMs });
      const held = claim.rows.filter((r) => r.webhookId === wh.webhookId).map((r) => [r.id, claim.token] as const);
      expect(held).toHaveLength(3);
      const url = ctx.tdb.url;
      if (url === null) throw new Error('needs PostgreSQL');
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      try {
        // Another transaction (a cycle recording this attempt, say) holds one of the rows.
        await locker.query('BEGIN');
        await locker.query('SELECT id FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [held[0]?.[0]]);
        const until = new Date(ctx.clock.now().getTime() + 10 * ctx.config.deliveryLeaseMs);
        const renewed = await Promise.race([
          renewLeases(ctx.tdb.db.pool, until, held),
          new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 3 s'), 3_000)),
        ]);
        expect(renewed).toBe(2);
        await locker.query('COMMIT');
        // The skipped one is renewed at the next tick.
        expect(await renewLeases(ctx.tdb.db.pool, new Date(until.getTime() + 1), held)).toBe(3);
      } finally {
        await locker.query('ROLLBACK').catch(() => undefined);
        await locker.end();
      }
    },
  );
});
