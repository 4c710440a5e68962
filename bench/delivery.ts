import { createServer } from 'node:https';
import { OPERATOR } from '../src/actor.js';
import { createSealer } from '../src/sealing.js';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { parseConfig } from '../src/config.js';
import { systemClock } from '../src/clock.js';
import { openDatabase, withTransaction, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { createMerchant } from '../src/accounts/service.js';
import { listDeliveries } from '../src/webhooks/deliveries/service.js';
import { registerWebhook } from '../src/webhooks/service.js';
import { enqueueEvent, type PaymentEvent } from '../src/webhooks/events.js';
import { createDeliveryAgent } from '../src/webhooks/delivery/send.js';
import { DeliveryWorker } from '../src/webhooks/delivery/worker.js';
import { testCerts } from '../test/webhooks/certs.js';
import { createBenchDatabase, fmt, printTable, type Row } from './lib.js';

// npm run bench:delivery : on PostgreSQL, drain a backlog of due deliveries to a local HTTPS
// receiver answering 200, and in the same run a raw undici loop (same Agent options, same body, same
// concurrency) to the same receiver; then event→first-attempt latency for single events, each
// committed on its own while the worker idles. Reports; never fails on a timing.
//
// BENCH_DELIVERIES (default 20000), BENCH_CONCURRENCY (in flight to the one endpoint; default 64),
// BENCH_LATENCY_EVENTS (default 300).

const N = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 300);

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * One run: raw loop, backlog drain and single-event latency. With `history`, that many delivered and
 * failed deliveries are in the table first (docs/performance.md: the claim's cost must not grow with history).
 */
export async function deliveryBenchmarks(opts: { history?: number } = {}): Promise<{ rows: Row[]; log: string }> {
  const history = opts.history ?? 0;
  const certs = testCerts();
  const bench = await createBenchDatabase('delivery');
  const config = parseConfig({
    DATABASE_URL: bench.url,
    LOG_LEVEL: 'silent',
    PAYLINKS_WEBHOOK_MAX_IN_FLIGHT: String(CONCURRENCY),
    PAYLINKS_DB_POOL_SIZE: '10',
  });
  const db = await openDatabase({ databaseUrl: bench.url, dataDir: '', poolSize: config.databasePoolSize });

  // The receiver: answers 200 "ok" once the whole request body has arrived; notes arrival times.
  const arrivals = new Map<string, number>();
  let received = 0;
  const server = createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received++;
      if (req.url === '/latency') {
        const ref = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payfacReference: string }).payfacReference;
        arrivals.set(ref, performance.now());
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const rows: Row[] = [];
  try {
    await migrate(db);
    const merchant = await createMerchant(db, 'Bench merchant');
    const principal = { kind: 'merchant' as const, keyId: 'bench', merchantId: merchant.merchantId, capabilities: new Set(['Webhooks'] as const) };
    const sealer = createSealer(config.secretKey);
    const deps = { config, db, clock: systemClock, sealer, actor: OPERATOR };
    const backlogHook = await registerWebhook(deps, principal, { url: `${base}/backlog`, eventTypes: ['Capture'] }, undefined);
    await registerWebhook(deps, principal, { url: `${base}/latency`, eventTypes: ['Authorization'] }, undefined);
    if (history > 0) await writeHistory(db, merchant.merchantId, backlogHook.webhookId, history);

    const event = (i: number, eventType: PaymentEvent['eventType']): PaymentEvent => ({
      merchantId: merchant.merchantId,
      eventType,
      checkoutReference: null,
      payfacReference: String(1_000_000_000_000 + i),
      merchantReference: `order-${i}`,
      amount: 48900,
      currency: 'ISK',
      reason: null,
      success: true,
    });

    // 1. Raw undici loop: the ceiling for this receiver, machine and concurrency.
    const rawAgent = createDeliveryAgent({ publicOnly: false, tls: { ca: certs.ca } });
    const sampleBody = Buffer.from(
      JSON.stringify({ ...event(0, 'Capture'), amount: '48900', success: 'true', hmacSignature: 'x'.repeat(44), additionalData: { eventType: 'Capture' } }),
    );
    let next = 0;
    const rawStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < N) {
          next++;
          const res = await request(`${base}/raw`, {
            method: 'POST',
            dispatcher: rawAgent,
            headers: { 'content-type': 'application/json; charset=utf-8', authorization: backlogHook.apiKey, 'x-webhook-correlationid': crypto.randomUUID() },
            body: sampleBody,
          });
          await res.body.text();
        }
      }),
    );
    const rawRate = N / ((performance.now() - rawStart) / 1000);
    await rawAgent.close();

    // 2. The backlog: N due deliveries written before the worker starts.
    const enqueueStart = performance.now();
    for (let i = 0; i < N; i += 500) {
      await withTransaction(db, async (tx) => {
        for (let j = i; j < Math.min(N, i + 500); j++) await enqueueEvent(tx, deps, event(j, 'Capture'));
      });
    }
    const enqueueRate = N / ((performance.now() - enqueueStart) / 1000);

    const worker = new DeliveryWorker({
      db,
      clock: systemClock,
      config,
      sealer,
      dispatcher: createDeliveryAgent({ publicOnly: false, tls: { ca: certs.ca } }),
      maxInFlight: Math.max(CONCURRENCY, 64),
    });
    const before = received;
    const drainStart = performance.now();
    await worker.start();
    await worker.settled();
    const drainMs = performance.now() - drainStart;
    const { rows: delivered } = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'Delivered' AND webhook_id = $1 AND event_id <> 'evt_history'",
      [backlogHook.webhookId],
    );
    const drainRate = N / (drainMs / 1000);
    const sent = received - before;

    // 3. Latency of single events: commit → the receiver has the first attempt.
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const ev = event(10_000_000 + i, 'Authorization');
      await withTransaction(db, (tx) => enqueueEvent(tx, deps, ev));
      const committed = performance.now();
      const deadline = committed + 5_000;
      while (!arrivals.has(ev.payfacReference) && performance.now() < deadline) await new Promise((r) => setImmediate(r));
      const at = arrivals.get(ev.payfacReference);
      latencies.push(at === undefined ? Infinity : at - committed);
      await new Promise((r) => setTimeout(r, 5));
    }
    await worker.stop(20_000);
    latencies.sort((a, b) => a - b);

    // 4. The delivery list a merchant reads (the webhook's newest page of 20), 200 times.
    const listMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await listDeliveries(deps, principal, { webhookId: backlogHook.webhookId }, 0, 20);
      listMs.push(performance.now() - t);
    }
    listMs.sort((a, b) => a - b);

    // 5. With history: retention removes 100,000 of the old deliveries in its batches of 1,000.
    let removeRate = NaN;
    if (history > 0) {
      const removeStart = performance.now();
      const removed = await new DeliveryWorker({ db, clock: systemClock, config: { ...config, deliveryRetentionDays: 0 }, sealer }).removeOldBefore(
        new Date(Date.now() - 3_600_000),
        100_000,
      );
      removeRate = removed / ((performance.now() - removeStart) / 1000);
    }
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);

    const ratio = drainRate / rawRate;
    rows.push(
      { operation: `raw undici POST loop, ${CONCURRENCY} in flight`, figure: `${fmt(rawRate)} req/s`, baseline: '-', ratio: '-', target: '-' },
      {
        operation: `drain ${fmt(N)} due deliveries (${delivered[0]?.n ?? 0} Delivered, ${sent} received)`,
        figure: `${fmt(drainRate)} deliveries/s`,
        baseline: `${fmt(rawRate)} req/s raw`,
        ratio: fmt(ratio, 2),
        target: '≥ 0.5',
        met: ratio >= 0.5,
      },
      { operation: `event → first attempt, p50 (${LATENCY_EVENTS} single events)`, figure: `${fmt(p50, 1)} ms`, baseline: '-', ratio: '-', target: '-' },
      { operation: 'event → first attempt, p99', figure: `${fmt(p99, 1)} ms`, baseline: '-', ratio: '-', target: '≤ 50 ms', met: p99 <= 50 },
      { operation: 'enqueue (500 events per transaction, 1 webhook)', figure: `${fmt(enqueueRate)} events/s`, baseline: '-', ratio: '-', target: '-' },
      {
        operation: "a webhook's delivery list, newest 20, p50 / p99 (200 reads)",
        figure: `${fmt(percentile(listMs, 50), 2)} / ${fmt(percentile(listMs, 99), 2)} ms`,
        baseline: '-',
        ratio: '-',
        target: '-',
      },
    );
    if (history > 0)
      rows.push({
        operation: 'retention: old deliveries removed (batches of 1,000)',
        figure: `${fmt(removeRate)} deliveries/s`,
        baseline: '-',
        ratio: '-',
        target: '-',
      });
    const st = worker.stats;
    const label = history > 0 ? ` (with ${fmt(history)} delivered/failed deliveries in the table)` : '';
    for (const r of rows) r.operation += label;
    return {
      rows,
      log: `worker${label}: ${st.attempts} attempts in ${st.cycles} record+claim transactions (${fmt(st.cycleMs)} ms in all); drain ${fmt(drainMs)} ms`,
    };
  } finally {
    server.closeAllConnections();
    server.close();
    await db.close();
    await bench.drop();
  }
}

/** History rows written straight into the table (one event, `n` finished deliveries), then analysed. */
async function writeHistory(db: Database, merchantId: string, webhookId: string, n: number): Promise<void> {
  await db.pool.query(
    `INSERT INTO webhook_events (id, merchant_id, event_type, payfac_reference, message, created_at) VALUES ('evt_history', $1, 'Capture', 'history', '{}', now())`,
    [merchantId],
  );
  for (let from = 1; from <= n; from += 250_000) {
    await db.pool.query(
      `INSERT INTO webhook_deliveries (id, event_id, webhook_id, event_type, payfac_reference, body, state, attempt_count, next_attempt_at, created_at, updated_at)
       SELECT 'dlv_h' || g, 'evt_history', $1, 'Capture', 'h' || g, '{}', CASE WHEN g % 10 = 0 THEN 'Failed' ELSE 'Delivered' END,
              CASE WHEN g % 10 = 0 THEN 5 ELSE 1 END, NULL, now() - interval '1 day', now() - interval '1 day'
         FROM generate_series($2::int, $3::int) g`,
      [webhookId, from, Math.min(n, from + 249_999)],
    );
  }
  await db.pool.query('VACUUM ANALYZE webhook_deliveries');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const history = Number(process.env.BENCH_HISTORY ?? 0);
  const { rows, log } = await deliveryBenchmarks({ history });
  console.log(log);
  printTable(rows);
}
