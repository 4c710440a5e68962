import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { systemClock } from '../../src/clock.js';
import { openDatabase, withTransaction, type Database } from '../../src/db/database.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { killAll, startWorker, type BinProcess } from '../reliability/processes.js';
import { eventually, startReceiver, testWorker, type Receiver } from './helpers.js';

// Ordered delivery with several workers, a receiver that fails a fifth of the requests at random, and a
// worker that dies mid-run (§Deliveries: ordering). On PostgreSQL the one that dies is a real
// `paylinks worker` process (the built bin) killed with SIGKILL beside two workers in this process, each
// with its own pool; on PGlite (one connection, no other process can open it) three workers run here and
// the one that dies is cut off from the database: like a killed process it holds claims under a lease
// it never renews and attempts it never records. The workers run on the real clock; the retry schedule is compressed by making every
// waiting retry due at once every 50 ms, as the sandbox's advance does. For each webhook, the
// first successful receipt of each delivery comes in the order its event was recorded, and every one
// comes except the deliveries that used their five attempts.

const LEASE_MS = 1_500;

let ctx: TestContext;
let receiver: Receiver;
const extraDbs: Database[] = [];

beforeAll(async () => {
  ctx = await createTestContext({ PAYLINKS_DELIVERY_LEASE_MS: String(LEASE_MS), LOG_LEVEL: 'warn' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await killAll();
  await receiver?.close();
  for (const db of extraDbs) await db.close();
  await ctx?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A small deterministic generator, so that a failing run can be replayed from fast-check's seed. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/**
 * The database as one worker sees it, until kill(): from then on every new connection or query it asks
 * for never comes (a transaction under way still ends). The worker is as good as killed: it records
 * nothing more and renews no lease, and its claims lapse as a dead process's do.
 */
function killable(db: Database): { db: Database; kill(): void } {
  let dead = false;
  const never = new Promise<never>(() => undefined);
  const pool = new Proxy(db.pool, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if ((prop === 'connect' || prop === 'query') && typeof value === 'function')
        return (...args: unknown[]) => (dead ? never : (value as (...a: unknown[]) => unknown).apply(target, args));
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const wrapped = new Proxy(db, {
    get(target, prop) {
      if (prop === 'pool') return pool;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: wrapped, kill: () => (dead = true) };
}

/** The retry schedule, compressed: the webhooks' waiting retries are due at once, every 50 ms (claimed ones keep their lease). */
function compressSchedule(ids: string[]): () => Promise<void> {
  let compressing = true;
  const compressor = (async () => {
    while (compressing) {
      await ctx.tdb.db.pool.query(
        `UPDATE webhook_deliveries SET next_attempt_at = $1 WHERE webhook_id = ANY ($2::text[]) AND state = 'Pending' AND claim_token IS NULL AND next_attempt_at > $1`,
        [new Date(), ids],
      );
      await ctx.tdb.db.pool.query('NOTIFY paylinks_deliveries');
      await sleep(50);
    }
  })();
  return async () => {
    compressing = false;
    await compressor;
  };
}

async function workerDb(): Promise<Database> {
  if (TEST_DB === 'pglite' || !ctx.tdb.url) return ctx.tdb.db;
  const db = await openDatabase({ databaseUrl: ctx.tdb.url, dataDir: '', poolSize: 4 });
  extraDbs.push(db);
  return db;
}

let run = 0;

describe('ordering: fifo under failures, several workers and a dead one', () => {
  it('never has more than one attempt of a fifo webhook in flight across three workers', async () => {
    const path = '/fifo-one-at-a-time';
    let inFlight = 0;
    let most = 0;
    receiver.on(path, (_req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200).end('ok');
      }, 15);
    });
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}${path}`, eventTypes: ['Adjustment'], ordering: 'fifo', maxInFlight: 50 });
    const webhookId = r.body.webhookId as string;
    const workers = [
      testWorker(ctx, { clock: systemClock, db: await workerDb() }),
      testWorker(ctx, { clock: systemClock, db: await workerDb() }),
      testWorker(ctx, { clock: systemClock, db: await workerDb() }),
    ];
    // An attempt that times out on a loaded machine is retried at once, not after a minute.
    const stopCompressing = compressSchedule([webhookId]);
    try {
      await Promise.all(workers.map((w) => w.start()));
      const t0 = Date.now();
      const refs = await produce('Adjustment', 30, 'one');
      await eventually(async () => (await pendingOf([webhookId])) === 0, 'every delivery finished', 60_000);
      console.log(`one at a time: 30 deliveries in ${Date.now() - t0} ms, ${workers.reduce((n, w) => n + w.stats.failedAttempts, 0)} attempts failed`);
      expect([...new Set(receivedRefs(path))]).toEqual(refs);
      expect(most).toBe(1);
    } finally {
      await stopCompressing();
      await Promise.all(workers.map((w) => w.stop(5_000)));
      await call(ctx, 'POST', `/api/v1/webhooks/${webhookId}/delete`);
    }
  }, 120_000);

  it('keeps each webhook in order through random failures, retries and a worker killed mid-run (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          webhooks: fc.integer({ min: 1, max: 3 }),
          events: fc.integer({ min: 8, max: 30 }),
          // Events whose delivery fails every time: they use their five attempts and must let the next go.
          poison: fc.uniqueArray(fc.integer({ min: 0, max: 29 }), { maxLength: 3 }),
          seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
          // After how many successful receipts the worker dies.
          killAfter: fc.integer({ min: 1, max: 12 }),
        }),
        async (p) => {
          run++;
          const rand = random(p.seed);
          const paths = Array.from({ length: p.webhooks }, (_, i) => `/fifo-prop-${run}-${i}`);
          // First successful receipt order per path, and every request.
          const successes = new Map<string, string[]>(paths.map((x) => [x, []]));
          const poisonRefs = new Set(p.poison.filter((i) => i < p.events).map((i) => `prop-${run}-${i}`));
          for (const path of paths) {
            receiver.on(path, (_req, res, body) => {
              const ref = (JSON.parse(body) as { payfacReference: string }).payfacReference;
              setTimeout(
                () => {
                  if (poisonRefs.has(ref) || rand() < 0.2) {
                    res.writeHead(503).end('not now');
                    return;
                  }
                  successes.get(path)?.push(ref);
                  res.writeHead(200).end('ok');
                },
                Math.floor(rand() * 8),
              );
            });
          }
          const ids: string[] = [];
          for (const path of paths) {
            const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}${path}`, eventTypes: ['Capture'], ordering: 'fifo' });
            ids.push(r.body.webhookId as string);
          }

          const live: DeliveryWorker[] = [
            testWorker(ctx, { clock: systemClock, db: await workerDb() }),
            testWorker(ctx, { clock: systemClock, db: await workerDb() }),
          ];
          let doomed: BinProcess | DeliveryWorker;
          let doomedDb: ReturnType<typeof killable> | undefined;
          if (TEST_DB === 'postgres' && ctx.tdb.url) {
            doomed = await startWorker(`worker-${run}`, {
              DATABASE_URL: ctx.tdb.url,
              PAYLINKS_DELIVERY_LEASE_MS: String(LEASE_MS),
              PAYLINKS_DB_POOL_SIZE: '3',
            });
          } else {
            doomedDb = killable(ctx.tdb.db);
            doomed = testWorker(ctx, { clock: systemClock, db: doomedDb.db });
            await doomed.start();
          }
          await Promise.all(live.map((w) => w.start()));

          const stopCompressing = compressSchedule(ids);

          let killed = '';
          try {
            const producing = produce('Capture', p.events, `prop-${run}-`, 4);
            await eventually(
              () => [...successes.values()].reduce((n, s) => n + s.length, 0) >= Math.min(p.killAfter, p.events - poisonRefs.size) || receivedAll(),
              'receipts before the kill',
              60_000,
            );
            const { rows: held } = await ctx.tdb.db.pool.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'Pending' AND claim_token IS NOT NULL AND webhook_id = ANY ($1::text[])",
              [ids],
            );
            if ('proc' in doomed) await doomed.kill('SIGKILL');
            else doomedDb?.kill();
            killed = `${'proc' in doomed ? 'killed with SIGKILL' : 'cut off from the database'} while the workers held ${held[0]?.n ?? 0} deliveries`;
            const refs = await producing;
            await eventually(async () => (await pendingOf(ids)) === 0, 'every delivery finished', 120_000);

            const { rows } = await ctx.tdb.db.pool.query<{ webhookId: string; ref: string; state: string; attempts: number }>(
              `SELECT webhook_id AS "webhookId", payfac_reference AS ref, state, attempt_count AS attempts FROM webhook_deliveries WHERE webhook_id = ANY ($1::text[])`,
              [ids],
            );
            const failed = rows.filter((r) => r.state === 'Failed').length;
            const requests = paths.reduce((n, x) => n + receivedRefs(x).length, 0);
            console.log(
              `ordering run ${run}: ${p.webhooks} webhooks x ${p.events} events, ${requests} requests, ${failed} deliveries Failed; worker ${killed}`,
            );
            for (const [i, path] of paths.entries()) {
              const mine = rows.filter((r) => r.webhookId === ids[i]);
              const exhausted = new Set(mine.filter((r) => r.state === 'Failed').map((r) => r.ref));
              for (const r of mine.filter((x) => x.state === 'Failed')) expect(r.attempts, `${r.ref} failed only after five attempts`).toBe(5);
              for (const ref of poisonRefs) expect(exhausted.has(ref), `${ref} used its attempts`).toBe(true);
              const first = [...new Set(successes.get(path))];
              const order = first.map((ref) => refs.indexOf(ref));
              for (let k = 1; k < order.length; k++)
                expect(order[k] as number, `receipts of ${path} in order: ${first.join(', ')} (${killed})`).toBeGreaterThan(order[k - 1] as number);
              expect(first).toEqual(refs.filter((ref) => !exhausted.has(ref)));
            }
          } finally {
            await stopCompressing();
            await Promise.all(live.map((w) => w.stop(5_000)));
            if ('proc' in doomed) await doomed.kill('SIGKILL');
            else await doomed.stop(0);
            for (const id of ids) await call(ctx, 'POST', `/api/v1/webhooks/${id}/delete`);
          }

          function receivedAll(): boolean {
            return paths.every((x) => (successes.get(x)?.length ?? 0) >= p.events - poisonRefs.size);
          }
        },
      ),
      { numRuns: 4, endOnFailure: true },
    );
  }, 300_000);
});

/** `n` events of one type in small transactions, a little apart; their payfacReferences in the order recorded. */
async function produce(eventType: 'Capture' | 'Adjustment', n: number, prefix: string, perTransaction = 5): Promise<string[]> {
  const refs: string[] = [];
  for (let from = 0; from < n; from += perTransaction) {
    await withTransaction(ctx.tdb.db, async (tx) => {
      for (let i = from; i < Math.min(n, from + perTransaction); i++) {
        const ref = `${prefix}${i}`;
        await enqueueEvent(
          tx,
          { clock: systemClock, sealer: ctx.sealer },
          {
            merchantId: ctx.merchant.merchantId,
            eventType,
            checkoutReference: null,
            payfacReference: ref,
            merchantReference: null,
            amount: 100 + i,
            currency: 'EUR',
            reason: null,
            success: true,
          },
        );
        refs.push(ref);
      }
    });
    await sleep(10);
  }
  return refs;
}

async function pendingOf(ids: string[]): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ANY ($1::text[]) AND state = 'Pending'",
    [ids],
  );
  return rows[0]?.n ?? 0;
}

function receivedRefs(path: string): string[] {
  return receiver.received.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { payfacReference: string }).payfacReference);
}
