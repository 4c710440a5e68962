import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { api, certFiles, cpuSeconds, createMerchant, makeEvents, startReceiver, stopChild, untilArrived } from './blackbox.js';
import { createBenchDatabase, fmt, ROOT, startServer, type Row } from './lib.js';

// Growing past one process (docs/scaling.md): a hundred webhooks whose receivers answer 200 after
// 500 ms, so latency and not CPU bounds each worker (it keeps at most PAYLINKS_WORKER_MAX_IN_FLIGHT
// attempts open), drained by 1, 2 and 4 `paylinks worker` processes on one PostgreSQL beside one
// `paylinks serve --no-worker`. Per drain: deliveries/s while all workers run (between the arrivals
// at a tenth and nine tenths of the drain; from the first arrival to the last beside it), the most
// requests any one webhook had open at once as its receiver saw them (the webhook's cap must hold
// across workers), and the database's own counters per delivery (pg_stat_database deltas: transactions,
// rows inserted and updated). Reported, never asserted.
//
// BENCH_SCALE_DELIVERIES (default 10000) per drain; BENCH_SCALE_IN_FLIGHT (default 64) each worker's
// process-wide limit; BENCH_SCALE_CAP (default 5) each webhook's maxInFlight; BENCH_SCALE_DELAY_MS
// (default 500) the receivers' answer time.

const ENDPOINTS = 100;
const DELIVERIES = Number(process.env.BENCH_SCALE_DELIVERIES ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_SCALE_IN_FLIGHT ?? 64);
const CAP = Number(process.env.BENCH_SCALE_CAP ?? 5);
const DELAY_MS = Number(process.env.BENCH_SCALE_DELAY_MS ?? 500);
const WORKERS = [1, 2, 4] as const;

interface DbCounters {
  xacts: number;
  inserted: number;
  updated: number;
  deleted: number;
  /** Per table: rows inserted + updated + deleted. */
  tables: Map<string, number>;
}

/**
 * The bench database's counters. A backend reports its counts when its transaction ends, but an idle
 * one may hold them up to about ten seconds, and one that exits reports them then: callers read them
 * after the workers have stopped and the server has been idle that long.
 */
async function counters(client: pg.Client): Promise<DbCounters> {
  await client.query('SELECT pg_stat_clear_snapshot()');
  const r = await client.query<{ xacts: string; inserted: string; updated: string; deleted: string }>(
    `SELECT xact_commit + xact_rollback AS xacts, tup_inserted AS inserted, tup_updated AS updated, tup_deleted AS deleted
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  const row = r.rows[0];
  if (!row) throw new Error('no pg_stat_database row for the bench database');
  const t = await client.query<{ name: string; writes: string }>(
    'SELECT relname AS name, n_tup_ins + n_tup_upd + n_tup_del AS writes FROM pg_stat_user_tables',
  );
  const tables = new Map(t.rows.map((x) => [x.name, Number(x.writes)]));
  return { xacts: Number(row.xacts), inserted: Number(row.inserted), updated: Number(row.updated), deleted: Number(row.deleted), tables };
}

/** CPU seconds of the database backends that connected since `since` (the workers' own), read from /proc. */
async function backendCpu(client: pg.Client, since: Date): Promise<number> {
  const r = await client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_start >= $1',
    [since],
  );
  let sum = 0;
  for (const { pid } of r.rows) {
    try {
      sum += cpuSeconds(pid);
    } catch {
      // A backend that ended meanwhile is not counted.
    }
  }
  return sum;
}

/**
 * Deliveries a second between the arrivals at a tenth and at nine tenths of the drain: the rate the
 * workers hold once all of them run and while every webhook still has work. The first tenth holds
 * the workers' start (several Node processes starting on the same cores) and the last tenth the
 * drain's end, when fewer deliveries are left than places to send them; both weigh more in a
 * shorter drain, so more on more workers. Undefined for a drain too short to tell.
 */
function steadyRate(hundreds: readonly number[]): number | undefined {
  const from = Math.floor(hundreds.length / 10);
  const to = Math.ceil((hundreds.length * 9) / 10) - 1;
  const t0 = hundreds[from];
  const t1 = hundreds[to];
  if (t0 === undefined || t1 === undefined || to <= from) return undefined;
  return ((to - from) * 100) / ((t1 - t0) / 1000);
}

/** When each tenth of the drain had arrived, in seconds from the first arrival: where a drain slows. */
function tenths(first: number, hundreds: readonly number[]): string {
  const marks: string[] = [];
  for (let i = 1; i <= 10; i++) {
    const at = hundreds[Math.ceil((hundreds.length * i) / 10) - 1];
    if (at !== undefined) marks.push(fmt((at - first) / 1000, 1));
  }
  return marks.join(' / ');
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 11_000));

export async function scaleBenchmarks(): Promise<{ rows: Row[]; log: string }> {
  const files = certFiles('scale');
  const bench = await createBenchDatabase('scale');
  const receiver = await startReceiver(files.key, files.cert, files.caPem, DELAY_MS);
  const server = await startServer({ DATABASE_URL: bench.url }, ['serve', '--no-worker']);
  const stats = new pg.Client({ connectionString: bench.url });
  await stats.connect();
  const rows: Row[] = [];
  const log: string[] = [];
  const rates = new Map<number, number>();
  try {
    const apiKey = await createMerchant(bench.url, 'Scale');
    for (let i = 0; i < ENDPOINTS; i++) {
      await api(server, apiKey, '/api/v1/webhooks', { url: `https://127.0.0.1:${receiver.port}/hook/${i}`, eventTypes: ['Refund'], maxInFlight: CAP });
    }
    const events = Math.ceil(DELIVERIES / ENDPOINTS);
    const n = events * ENDPOINTS;
    for (const k of WORKERS) {
      await makeEvents(server, apiKey, 'Refund', events);
      await settle();
      const before = await counters(stats);
      await receiver.reset();
      const t0 = performance.now();
      const started = new Date();
      const workers: ChildProcess[] = Array.from({ length: k }, () =>
        spawn(join(ROOT, 'bin/paylinks.js'), ['worker'], {
          env: {
            PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
            DATABASE_URL: bench.url,
            NODE_EXTRA_CA_CERTS: files.ca,
            PAYLINKS_WORKER_MAX_IN_FLIGHT: String(IN_FLIGHT),
            LOG_LEVEL: 'warn',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      // How even the webhooks' progress is when nine tenths have arrived: the last tenth waits on the slowest.
      let spread = '';
      const { stats: s, wallMs } = await untilArrived(workers, receiver, n, `${k} workers`, t0, (now) => {
        if (spread !== '' || now.count < n * 0.9) return;
        const counts = Array.from({ length: ENDPOINTS }, (_, i) => now.perPath[`/hook/${i}`] ?? 0).sort((a, b) => a - b);
        spread = `at ${fmt(now.count)} arrived, the webhooks had ${counts[0]}–${counts.at(-1)} each (median ${counts[ENDPOINTS / 2]}, ${counts.filter((c) => c === events).length} done)`;
      });
      const cpu = workers.reduce((sum, w) => sum + cpuSeconds(w.pid as number), 0);
      const dbCpu = await backendCpu(stats, started);
      await Promise.all(workers.map((w) => stopChild(w)));
      await settle();
      const after = await counters(stats);
      const whole = (s.count - 1) / ((s.last - s.first) / 1000);
      const rate = steadyRate(s.hundreds) ?? whole;
      rates.set(k, rate);
      const per = (a: number, b: number): string => fmt((a - b) / n, 3);
      const dbCost = `${per(after.xacts, before.xacts)} transactions, ${per(after.inserted, before.inserted)} rows inserted, ${per(after.updated, before.updated)} updated, ${per(after.deleted, before.deleted)} deleted`;
      const byTable = [...after.tables]
        .map(([name, w]) => [name, (w - (before.tables.get(name) ?? 0)) / n] as const)
        .filter(([, w]) => w >= 0.01)
        .sort((a, b) => b[1] - a[1])
        .map(([name, w]) => `${name} ${fmt(w, 2)}`)
        .join(', ');
      log.push(
        `${k} worker${k > 1 ? 's' : ''}: ${fmt(n)} deliveries at ${fmt(rate)}/s steady, ${fmt(whole)}/s from the first arrival to the last (start to last arrival ${fmt(wallMs)} ms), seconds from the first arrival to each tenth ${tenths(s.first, s.hundreds)}, ${spread}, most open at once on one webhook ${s.maxOpenPerPath} (cap ${CAP}), workers' CPU ${fmt((cpu / n) * 1e6)} µs per delivery (start-up included), their PostgreSQL backends' ${fmt((dbCpu / n) * 1e6)} µs, per delivery: ${dbCost} (row writes by table: ${byTable})`,
      );
      const one = rates.get(1) ?? rate;
      const target = k === 1 ? `≈ ${fmt((IN_FLIGHT * 1000) / DELAY_MS)}/s (limit ÷ answer time)` : k === 2 ? '≥ 1.8× one worker' : '≥ 3.2× one worker';
      rows.push({
        operation: `scale: ${k} worker process${k > 1 ? 'es' : ''}, ${ENDPOINTS} webhooks answering in ${DELAY_MS} ms, ${IN_FLIGHT} in flight per worker`,
        figure: `${fmt(rate)}/s steady (${fmt(whole)}/s first to last arrival)`,
        baseline: k === 1 ? '' : `1 worker: ${fmt(one)}/s steady`,
        ratio: k === 1 ? '' : `${fmt(rate / one, 2)}×`,
        target,
        met: k === 1 ? rate >= (0.8 * IN_FLIGHT * 1000) / DELAY_MS : rate / one >= (k === 2 ? 1.8 : 3.2),
      });
      rows.push({
        operation: `scale: ${k} worker${k > 1 ? 's' : ''}, most attempts open at once on one webhook (receivers' count)`,
        figure: String(s.maxOpenPerPath),
        baseline: '',
        ratio: '',
        target: `≤ its cap, ${CAP}`,
        met: s.maxOpenPerPath <= CAP,
      });
      rows.push({
        operation: `scale: ${k} worker${k > 1 ? 's' : ''}, database work per delivery`,
        figure: `${dbCost}; backends' CPU ${fmt((dbCpu / n) * 1e6)} µs`,
        baseline: '',
        ratio: '',
        target: '',
        met: true,
      });
    }
    return { rows, log: log.join('\n') };
  } finally {
    await stats.end();
    await server.stop();
    await receiver.stop();
    await bench.drop();
  }
}
