import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Agent, request } from 'undici';
import { testCerts } from '../test/webhooks/certs.js';
import { createBenchDatabase, fmt, ROOT, startServer, type Row, type ServerProcess } from './lib.js';

// The delivery engine as a user runs it: `paylinks serve --no-worker`, `paylinks worker` and an HTTPS
// receiver (bench/receiver.ts) as three processes, default settings, events made through the sandbox
// API while no worker runs; then a worker is started and drains them. Beside it, in the same run, a
// bare undici loop from this process to the same receiver with as many connections as the worker may
// use (the default 10 in flight per endpoint, then 50). Reported, never asserted.
//
// BENCH_BLACKBOX_EVENTS (default 10000): deliveries per one-endpoint drain; the 100-endpoint drain
// makes the same number of deliveries from a hundredth of the events.
// BENCH_TIMELINE=1: each worker drain also prints the milliseconds each hundred arrivals took, and the
// worker's, PostgreSQL's and the receiver's CPU per delivery over the first fifth: how long the worker
// takes to reach its steady rate (about 3,000 deliveries, a second, on the development machine).
// BENCH_POSTGRES_CPUS (bench/cores.ts): PostgreSQL on CPUs of its own.

const N = Number(process.env.BENCH_BLACKBOX_EVENTS ?? 10_000);
/** The peer compared with: a graphile-worker dispatcher, installed into a scratch folder (not a project dependency). */
const PEER = 'graphile-worker@0.17';

// The peer's dispatcher, written into its scratch folder as a process of its own: one task that POSTs
// its payload's body to the receiver at the given concurrency. Three ways to write it:
// - "as shipped": graphile-worker's defaults (a log line per job, a poll every second) and Node's
//   fetch, which picks its own connections;
// - "tuned": a silent logger, a 100 ms poll, and an undici Pool with as many connections as the
//   concurrency, like the worker and the bare loop (the targets are read against this one);
// - "batched": the tuned one with the batching graphile-worker's own performance page runs its
//   figures with: a local queue (jobs fetched in batches, concurrency + 1 as its release notes advise)
//   and job completions batched (completeJobBatchDelay, failJobBatchDelay 0). Its jobs stay locked
//   while queued, and a runner killed holds them until graphile-worker's lock timeout (four hours by
//   default); the worker's leases are three seconds.
/** The tuned runner (a silent logger, a 100 ms poll, an undici Pool), with `extra` options of run() on lines of their own. */
function pooledRunner(extra: string): string {
  return `import { run, Logger } from 'graphile-worker';
import { Pool } from 'undici';
const url = new URL(process.env.PEER_URL);
const concurrency = Number(process.env.PEER_CONCURRENCY);
const pool = new Pool(url.origin, { connections: concurrency, keepAliveTimeout: 60000 });
const runner = await run({
  connectionString: process.env.DATABASE_URL,
  concurrency,
  noHandleSignals: true,
  pollInterval: 100,
  logger: new Logger(() => () => {}),
${extra}  taskList: {
    deliver: async (payload) => {
      const r = await pool.request({ path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body: payload.body });
      await r.body.text();
      if (r.statusCode !== 200) throw new Error('status ' + r.statusCode);
    },
  },
});
console.log('peer running');
process.on('SIGTERM', () => void runner.stop().then(() => pool.close()).then(() => process.exit(0)));
`;
}
const PEER_RUNNERS = {
  'as shipped': `import { run } from 'graphile-worker';
const url = process.env.PEER_URL;
const runner = await run({
  connectionString: process.env.DATABASE_URL,
  concurrency: Number(process.env.PEER_CONCURRENCY),
  noHandleSignals: true,
  pollInterval: 1000,
  taskList: {
    deliver: async (payload) => {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload.body });
      await r.text();
      if (r.status !== 200) throw new Error('status ' + r.status);
    },
  },
});
console.log('peer running');
process.on('SIGTERM', () => void runner.stop().then(() => process.exit(0)));
`,
  tuned: pooledRunner(''),
  batched: pooledRunner('  preset: { worker: { localQueue: { size: concurrency + 1 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },\n'),
} as const;
type PeerStyle = keyof typeof PEER_RUNNERS;
const ENDPOINTS = 100;

/** A body the size of a delivery's, for the bare loop and the peer (the worker sends the events' own). */
const DELIVERY_SIZED_BODY = JSON.stringify({
  checkoutReference: null,
  payfacReference: 'x'.repeat(24),
  merchantReference: null,
  amount: '1000',
  currency: 'ISK',
  reason: null,
  success: 'true',
  hmacSignature: 'y'.repeat(64),
  additionalData: { eventType: 'Adjustment' },
});

export interface ReceiverStats {
  count: number;
  first: number;
  last: number;
  /** The most requests open at once on any one path (a webhook's URL). */
  maxOpenPerPath: number;
  /** The time of the 100th arrival, the 200th, and so on. */
  hundreds: number[];
  /** Arrivals per path (a webhook's URL). */
  perPath: Record<string, number>;
}

export interface Receiver {
  proc: ChildProcess;
  port: number;
  stats(): Promise<ReceiverStats>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** The receiver process; `delayMs` holds every answer that long (a slow receiver). */
export async function startReceiver(keyFile: string, certFile: string, ca: string, delayMs = 0): Promise<Receiver> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'receiver.ts')], {
    env: { ...process.env, RECEIVER_KEY: keyFile, RECEIVER_CERT: certFile, RECEIVER_DELAY_MS: String(delayMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 30_000;
  while (!/receiver listening on (\d+)/.test(out)) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`receiver did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const port = Number(/receiver listening on (\d+)/.exec(out)?.[1]);
  const control = new Agent({ connect: { ca } });
  const call = async (method: 'GET' | 'POST', path: string): Promise<string> => {
    const r = await request(`https://127.0.0.1:${port}${path}`, { method, dispatcher: control });
    return r.body.text();
  };
  return {
    proc,
    port,
    stats: async () => JSON.parse(await call('GET', '/stats')) as ReceiverStats,
    reset: async () => void (await call('POST', '/reset')),
    stop: async () => {
      await control.close();
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The bare loop: `connections` concurrent POSTs of a delivery-sized body on one keep-alive Agent, n in
 * all. Its rate, and this process's CPU time per request (µs): over the whole loop, and over its last
 * four fifths (its connections open and its code compiled, as the worker's steady figure is taken).
 * The bench does nothing else meanwhile.
 */
async function bareLoop(
  url: string,
  ca: string,
  connections: number,
  n: number,
  receiverPid: number,
): Promise<{ rate: number; cpuUs: number; steadyCpuUs: number; steadyReceiverUs: number }> {
  const agent = new Agent({ connections, connect: { ca }, keepAliveTimeout: 60_000 });
  let next = 0;
  let done = 0;
  const fifth = Math.floor(n / 5);
  let atFifth: NodeJS.CpuUsage | undefined;
  let receiverAtFifth = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < n) {
        next++;
        const r = await request(url, {
          method: 'POST',
          body: DELIVERY_SIZED_BODY,
          headers: { 'content-type': 'application/json', authorization: 'k', 'x-webhook-correlationid': 'c' },
          dispatcher: agent,
        });
        await r.body.text();
        if (++done === fifth) {
          atFifth = process.cpuUsage();
          receiverAtFifth = cpuSeconds(receiverPid);
        }
      }
    }),
  );
  const rate = n / ((performance.now() - t0) / 1000);
  const end = process.cpuUsage();
  const receiverEnd = cpuSeconds(receiverPid);
  await agent.close();
  const us = (from: NodeJS.CpuUsage, count: number): number => (end.user - from.user + end.system - from.system) / count;
  return {
    rate,
    cpuUs: us(cpu0, n),
    steadyCpuUs: atFifth === undefined ? Number.NaN : us(atFifth, n - fifth),
    steadyReceiverUs: atFifth === undefined ? Number.NaN : ((receiverEnd - receiverAtFifth) * 1e6) / (n - fifth),
  };
}

/** Events through the sandbox API, `concurrency` requests at a time; each makes one delivery per subscribed webhook. */
export async function makeEvents(server: ServerProcess, apiKey: string, eventType: string, n: number, concurrency = 16): Promise<void> {
  const agent = new Agent({ connections: concurrency });
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const r = await request(`${server.baseUrl}/api/v1/sandbox/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ eventType, amount: 1000, currency: 'ISK' }),
          dispatcher: agent,
        });
        const text = await r.body.text();
        if (r.statusCode !== 200) throw new Error(`sandbox event: ${r.statusCode} ${text}`);
      }
    }),
  );
  await agent.close();
}

export async function api(server: ServerProcess, apiKey: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await request(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  const json = (await r.body.json()) as Record<string, unknown>;
  if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode} ${JSON.stringify(json)}`);
  return json;
}

/** A process's /proc stat: its command name, CPU seconds (user + system) so far, and start time (ticks since boot). */
function procStat(pid: number | string): { comm: string; cpu: number; start: string } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return {
    comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(') ')),
    cpu: (Number(fields[11]) + Number(fields[12])) / 100,
    start: fields[19] ?? '',
  };
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  return procStat(pid).cpu;
}

/**
 * CPU seconds used so far by each PostgreSQL process on the machine (its backends, autovacuum and
 * writers; every database of the cluster), keyed by pid and start time so that a pid used again is
 * another process.
 */
export function postgresCpu(): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = procStat(name);
      if (stat.comm === 'postgres') cpu.set(`${name}@${stat.start}`, stat.cpu);
    } catch {
      // The process ended meanwhile.
    }
  }
  return cpu;
}

/**
 * PostgreSQL's CPU seconds between two readings of postgresCpu: each process's growth, a process
 * started meanwhile counted from zero. A process that ended between them is not counted (its part
 * after the first reading is lost). NaN when no PostgreSQL process was seen (a database elsewhere).
 */
export function postgresCpuBetween(before: Map<string, number>, after: Map<string, number>): number {
  if (after.size === 0) return Number.NaN;
  let sum = 0;
  for (const [key, seconds] of after) sum += seconds - (before.get(key) ?? 0);
  return sum;
}

/**
 * Waits until the receiver has `n` deliveries from the child `proc` (a worker or the peer); fails when
 * the child exits first or ten minutes pass. Returns the receiver's counts, the child's output so far
 * (and on), and the wall time from `t0` to the last arrival being seen.
 */
export async function untilArrived(
  procs: ChildProcess | readonly ChildProcess[],
  receiver: Receiver,
  n: number,
  what: string,
  t0: number,
  onPoll?: (stats: ReceiverStats) => void,
): Promise<{ stats: ReceiverStats; output: () => string; wallMs: number }> {
  const children = Array.isArray(procs) ? procs : [procs as ChildProcess];
  let out = '';
  for (const proc of children) {
    proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  }
  const deadline = Date.now() + 600_000;
  let stats = await receiver.stats();
  while (stats.count < n) {
    const exited = children.find((p) => p.exitCode !== null);
    if (exited) throw new Error(`${what} exited ${exited.exitCode}: ${out}`);
    if (Date.now() > deadline) throw new Error(`${what} timed out at ${stats.count} of ${n}: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
    stats = await receiver.stats();
    onPoll?.(stats);
  }
  return { stats, output: () => out, wallMs: performance.now() - t0 };
}

/**
 * Deliveries a second over the last four fifths of the arrivals (from the arrival that completed the
 * first fifth, rounded down to a hundred, to the last one), from the receiver's time of every hundredth arrival: the rate once
 * the sender is warm, as the bare loop's steady rate is taken.
 */
export function steadyArrivalRate(stats: ReceiverStats, n: number): number {
  const fifth = Math.floor(n / 500) * 100;
  const at = stats.hundreds[fifth / 100 - 1];
  return at === undefined || stats.last <= at ? Number.NaN : (stats.count - fifth) / ((stats.last - at) / 1000);
}

/** Stops a child with SIGTERM and waits for it to exit. */
export async function stopChild(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

async function drain(
  receiver: Receiver,
  env: Record<string, string>,
  n: number,
): Promise<{
  rate: number;
  steadyRate: number;
  wallMs: number;
  cpu: number;
  cpuUs: number;
  steadyCpuUs: number;
  /** PostgreSQL's CPU per delivery over the last four fifths (all its processes), and the receiver's. */
  steadyDbUs: number;
  steadyReceiverUs: number;
  cycles: string;
  turnaround: { p50: number | null; p99: number | null };
}> {
  await receiver.reset();
  const t0 = performance.now();
  // BENCH_WORKER_PROFILE=dir: the worker writes a CPU profile there (node --cpu-prof).
  const profile = process.env.BENCH_WORKER_PROFILE;
  // BENCH_WORKER_NODE_FLAGS="--flag ...": the worker runs under node with these flags instead of the
  // bin's own (its first line's), e.g. to try another young generation size.
  // BENCH_WORKER_BIN=path: the worker from another build's bin (an A/B of two trees on one schema).
  const flags = process.env.BENCH_WORKER_NODE_FLAGS;
  const bin = process.env.BENCH_WORKER_BIN ?? join(ROOT, 'bin/paylinks.js');
  const [command, args] = profile
    ? [process.execPath, ['--cpu-prof', '--cpu-prof-dir', profile, bin, 'worker']]
    : flags
      ? [process.execPath, [...flags.split(/\s+/).filter(Boolean), bin, 'worker']]
      : [bin, ['worker']];
  const proc = spawn(command, args, {
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The worker's CPU time when the first deliveries arrived (start-up done), to count it per delivery
  // after; and when a fifth had arrived, to count it once the worker is warm (its connections open,
  // its code compiled: the first fifth cost it about three times a later delivery).
  type Reading = { cpu: number; count: number; db: Map<string, number>; receiver: number };
  const reading = (count: number): Reading => ({
    cpu: cpuSeconds(proc.pid as number),
    count,
    db: postgresCpu(),
    receiver: cpuSeconds(receiver.proc.pid as number),
  });
  let first: Reading | undefined;
  let fifth: Reading | undefined;
  const {
    stats: s,
    wallMs,
    output,
  } = await untilArrived(proc, receiver, n, 'worker', t0, (st) => {
    if (first === undefined && st.count > 0) first = reading(st.count);
    if (fifth === undefined && st.count >= n / 5) fifth = reading(st.count);
  });
  const cpuEnd = cpuSeconds(proc.pid as number);
  const dbEnd = postgresCpu();
  const receiverEnd = cpuSeconds(receiver.proc.pid as number);
  // The worker's share of one core over its whole run (start-up included).
  const cpu = cpuEnd / (wallMs / 1000);
  // Its CPU time per delivery from the first arrivals to the last (start-up left out).
  const perDelivery = (from: { cpu: number; count: number } | undefined): number =>
    from === undefined || s.count <= from.count ? Number.NaN : ((cpuEnd - from.cpu) * 1e6) / (s.count - from.count);
  const cpuUs = perDelivery(first);
  const steadyCpuUs = perDelivery(fifth);
  const steadyOf = (seconds: (f: { db: Map<string, number>; receiver: number }) => number): number =>
    fifth === undefined || s.count <= fifth.count ? Number.NaN : (seconds(fifth) * 1e6) / (s.count - fifth.count);
  const steadyDbUs = steadyOf((f) => postgresCpuBetween(f.db, dbEnd));
  const steadyReceiverUs = steadyOf((f) => receiverEnd - f.receiver);
  if (process.env.BENCH_TIMELINE) {
    if (first !== undefined && fifth !== undefined) {
      // The first fifth, per delivery: the worker's, PostgreSQL's and the receiver's CPU.
      const k = fifth.count - first.count;
      const us = (seconds: number): string => fmt((seconds * 1e6) / k);
      console.log(
        `first fifth (${fmt(k)} deliveries) per delivery: worker ${us(fifth.cpu - first.cpu)} µs, PostgreSQL ${us(postgresCpuBetween(first.db, fifth.db))} µs, receiver ${us(fifth.receiver - first.receiver)} µs`,
      );
    }
    console.log(`timeline ms per 100: ${s.hundreds.map((t, i) => (i === 0 ? t - s.first : t - (s.hundreds[i - 1] ?? 0)).toFixed(0)).join(' ')}`);
  }
  await stopChild(proc);
  const out = output();
  // The worker's own counters, from its last log line: how many record-and-claim cycles, how long each.
  const stopped = out.split('\n').find((l) => l.includes('"delivery worker stopped"'));
  const counters = stopped
    ? (JSON.parse(stopped) as { cycles?: number; meanCycleMs?: number; slotTurnaroundP50Ms?: number | null; slotTurnaroundP99Ms?: number | null })
    : {};
  const cycles = counters.cycles === undefined ? 'cycles not logged' : `${fmt(counters.cycles)} cycles of ${fmt(counters.meanCycleMs ?? 0, 1)} ms`;
  const turnaround = { p50: counters.slotTurnaroundP50Ms ?? null, p99: counters.slotTurnaroundP99Ms ?? null };
  return {
    rate: (s.count - 1) / ((s.last - s.first) / 1000),
    steadyRate: steadyArrivalRate(s, n),
    wallMs,
    cpu,
    cpuUs,
    steadyCpuUs,
    steadyDbUs,
    steadyReceiverUs,
    cycles,
    turnaround,
  };
}

/**
 * The peer: graphile-worker installed into `dir` (once), its schema made in a database of its own,
 * `n` jobs added by SQL while no runner runs, then a runner process at `concurrency` drains them to
 * the receiver. Deliveries/s between the first and last arrival; null when it cannot be installed.
 */
async function peerDrain(
  dir: string,
  receiver: Receiver,
  caFile: string,
  concurrency: number,
  n: number,
  style: PeerStyle,
): Promise<{ rate: number; steadyRate: number } | null> {
  const run = promisify(execFile);
  try {
    // Installed for the first concurrency, kept for the next.
    if (!existsSync(join(dir, 'node_modules', 'graphile-worker')) || !existsSync(join(dir, 'node_modules', 'undici')))
      await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, PEER, 'undici@7'], { timeout: 180_000 });
  } catch (err) {
    console.log(`the peer (${PEER}) could not be installed: ${(err as Error).message.split('\n')[0] ?? ''}`);
    return null;
  }
  writeFileSync(join(dir, 'runner.mjs'), PEER_RUNNERS[style]);
  const db = await createBenchDatabase(`peer${concurrency}`);
  try {
    await run(process.execPath, ['-e', "import('graphile-worker').then((g) => g.runMigrations({ connectionString: process.env.DATABASE_URL }))"], {
      cwd: dir,
      env: { ...process.env, DATABASE_URL: db.url },
    });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(`SELECT graphile_worker.add_job('deliver', json_build_object('body', $1::text)) FROM generate_series(1, $2::int)`, [
      DELIVERY_SIZED_BODY,
      n,
    ]);
    await client.end();
    await receiver.reset();
    const proc = spawn(process.execPath, [join(dir, 'runner.mjs')], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: db.url,
        PEER_URL: `https://127.0.0.1:${receiver.port}/peer`,
        PEER_CONCURRENCY: String(concurrency),
        NODE_EXTRA_CA_CERTS: caFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { stats: st } = await untilArrived(proc, receiver, n, 'peer', performance.now());
    await stopChild(proc);
    return { rate: (st.count - 1) / ((st.last - st.first) / 1000), steadyRate: steadyArrivalRate(st, n) };
  } finally {
    await db.drop();
  }
}

/** A scratch folder with the test certificate's files, for the receiver (key, cert) and the workers (ca). */
export function certFiles(tag: string): { dir: string; key: string; cert: string; ca: string; caPem: string } {
  const certs = testCerts();
  const dir = mkdtempSync(join(tmpdir(), `paylinks-${tag}-`));
  const files = { dir, key: join(dir, 'leaf.key'), cert: join(dir, 'leaf.pem'), ca: join(dir, 'ca.pem'), caPem: certs.ca };
  writeFileSync(files.key, certs.key);
  writeFileSync(files.cert, certs.cert);
  writeFileSync(files.ca, certs.ca);
  return files;
}

/** A merchant made with the real CLI (`paylinks merchant create`) on the bench database: its API key. */
export async function createMerchant(databaseUrl: string, name: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'bin/paylinks.js'), 'merchant', 'create', '--name', name, '--json'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
  });
  return (JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { apiKey: string }).apiKey;
}

export async function blackboxBenchmarks(): Promise<{ rows: Row[]; log: string }> {
  const files = certFiles('blackbox');
  const certs = { ca: files.caPem };
  const dir = files.dir;
  const bench = await createBenchDatabase('blackbox');
  const receiver = await startReceiver(files.key, files.cert, certs.ca);
  const server = await startServer({ DATABASE_URL: bench.url }, ['serve', '--no-worker']);
  const workerEnv = { DATABASE_URL: bench.url, NODE_EXTRA_CA_CERTS: files.ca };
  const rows: Row[] = [];
  const log: string[] = [];
  try {
    const apiKey = await createMerchant(bench.url, 'Blackbox');
    const hookUrl = `https://127.0.0.1:${receiver.port}`;

    // One endpoint at the default cap (10 in flight), then at 50.
    const one = (await api(server, apiKey, '/api/v1/webhooks', { url: `${hookUrl}/one`, eventTypes: ['Adjustment'] })) as {
      webhookId: string;
      maxInFlight: number;
    };
    for (const cap of [one.maxInFlight, 50]) {
      if (cap !== one.maxInFlight) await api(server, apiKey, `/api/v1/webhooks/${one.webhookId}/update`, { maxInFlight: cap });
      const t0 = performance.now();
      await makeEvents(server, apiKey, 'Adjustment', N);
      log.push(`${fmt(N)} events through the API in ${fmt(performance.now() - t0)} ms`);
      await receiver.reset();
      const {
        rate: loop,
        cpuUs: loopCpuUs,
        steadyCpuUs: loopSteadyUs,
        steadyReceiverUs: loopReceiverUs,
      } = await bareLoop(`${hookUrl}/loop`, certs.ca, cap, N, receiver.proc.pid as number);
      // The loop's warm rate as the worker's and the peer's are taken: from the receiver's arrivals.
      const loopSteady = steadyArrivalRate(await receiver.stats(), N);
      const drained = await drain(receiver, workerEnv, N);
      // BENCH_BLACKBOX_PEER=0 leaves the peer out (it is installed from the npm registry).
      const skipPeer = process.env.BENCH_BLACKBOX_PEER === '0';
      const shipped = skipPeer ? null : await peerDrain(join(dir, 'peer'), receiver, files.ca, cap, N, 'as shipped');
      const peer = skipPeer ? null : await peerDrain(join(dir, 'peer'), receiver, files.ca, cap, N, 'tuned');
      const batched = skipPeer ? null : await peerDrain(join(dir, 'peer'), receiver, files.ca, cap, N, 'batched');
      log.push(
        `cap ${cap}: worker ${fmt(drained.rate)}/s (start to last arrival ${fmt(drained.wallMs)} ms, worker CPU ${fmt(drained.cpu * 100)}% of a core, ${fmt(drained.cpuUs)} µs per delivery against the loop's ${fmt(loopCpuUs)} µs per request, over the last four fifths ${fmt(drained.steadyCpuUs)} µs against ${fmt(loopSteadyUs)} µs and PostgreSQL's ${fmt(drained.steadyDbUs)} µs, the receiver's ${fmt(drained.steadyReceiverUs)} µs against ${fmt(loopReceiverUs)} µs for the loop, ${drained.cycles}, slot turnaround p50 ${drained.turnaround.p50 ?? '-'} ms, p99 ${drained.turnaround.p99 ?? '-'} ms), bare loop ${fmt(loop)}/s, ${PEER} as shipped ${shipped === null ? 'not run' : `${fmt(shipped.rate)}/s`}, tuned ${peer === null ? 'not run' : `${fmt(peer.rate)}/s`}, batched ${batched === null ? 'not run' : `${fmt(batched.rate)}/s`}; over the last four fifths worker ${fmt(drained.steadyRate)}/s, bare loop ${fmt(loopSteady)}/s, tuned peer ${peer === null ? 'not run' : `${fmt(peer.steadyRate)}/s`}, batched peer ${batched === null ? 'not run' : `${fmt(batched.steadyRate)}/s`}`,
      );
      for (const [style, run] of [
        ['as shipped', shipped],
        ['tuned', peer],
        ['batched', batched],
      ] as const) {
        if (run === null) continue;
        const rate = run.rate;
        rows.push({
          operation: `black box: one endpoint, ${cap} in flight, against ${PEER} ${style} at concurrency ${cap}`,
          figure: `${fmt(drained.rate)}/s`,
          baseline: `${PEER} ${style}: ${fmt(rate)}/s`,
          ratio: `${fmt(drained.rate / rate, 2)}×`,
          target: style === 'tuned' ? '≥ 3×' : '',
          met: style === 'tuned' ? drained.rate / rate >= 3 : true,
        });
      }
      rows.push({
        operation: `black box: one endpoint, ${cap} in flight${cap === one.maxInFlight ? ' (default)' : ''}, ${fmt(N)} deliveries`,
        figure: `${fmt(drained.rate)}/s`,
        baseline: `bare undici loop, ${cap} connections: ${fmt(loop)}/s`,
        ratio: `${fmt(drained.rate / loop, 2)}×`,
        target: '≥ 0.5×',
        met: drained.rate / loop >= 0.5,
      });
      // The same drains over their last four fifths: the worker is a process started for the drain,
      // and the bare loop opens its connections at its start (docs/performance.md). Left out when the
      // drains are too short to have a fifth (fewer than 500 deliveries).
      if (Number.isFinite(drained.steadyRate) && Number.isFinite(loopSteady))
        rows.push({
          operation: `black box: one endpoint, ${cap} in flight, both warm (the last four fifths of each run)`,
          figure: `${fmt(drained.steadyRate)}/s`,
          baseline: `bare undici loop: ${fmt(loopSteady)}/s`,
          ratio: `${fmt(drained.steadyRate / loopSteady, 2)}×`,
          target: '≥ 0.5×',
          met: drained.steadyRate / loopSteady >= 0.5,
        });
      if (peer !== null && Number.isFinite(drained.steadyRate) && Number.isFinite(peer.steadyRate))
        rows.push({
          operation: `black box: one endpoint, ${cap} in flight, against ${PEER} tuned, both warm (the last four fifths of each run)`,
          figure: `${fmt(drained.steadyRate)}/s`,
          baseline: `${PEER} tuned: ${fmt(peer.steadyRate)}/s`,
          ratio: `${fmt(drained.steadyRate / peer.steadyRate, 2)}×`,
          target: '≥ 3×',
          met: drained.steadyRate / peer.steadyRate >= 3,
        });
      rows.push({
        operation: `black box: worker CPU per delivery, one endpoint, ${cap} in flight (from its first arrival; the loop's whole run)`,
        figure: `${fmt(drained.cpuUs)} µs`,
        baseline: `bare loop: ${fmt(loopCpuUs)} µs per request`,
        ratio: `${fmt(drained.cpuUs / loopCpuUs, 2)}×`,
        target: '≤ 2×',
        met: drained.cpuUs / loopCpuUs <= 2,
      });
      rows.push({
        operation: `black box: worker CPU per delivery, one endpoint, ${cap} in flight (both warm: the last four fifths)`,
        figure: `${fmt(drained.steadyCpuUs)} µs`,
        baseline: `bare loop: ${fmt(loopSteadyUs)} µs per request`,
        ratio: `${fmt(drained.steadyCpuUs / loopSteadyUs, 2)}×`,
        target: '≤ 2×',
        met: drained.steadyCpuUs / loopSteadyUs <= 2,
      });
      if (cap === one.maxInFlight) {
        // From an attempt's end to the next attempt on that slot, while deliveries waited (the worker's own measure).
        rows.push({
          operation: `black box: slot turnaround, one endpoint, ${cap} in flight, p50 (p99)`,
          figure: drained.turnaround.p50 === null ? 'not logged' : `${fmt(drained.turnaround.p50, 3)} ms (${fmt(drained.turnaround.p99 ?? 0, 3)} ms)`,
          baseline: '',
          ratio: '',
          target: 'p50 ≤ 2 ms',
          met: drained.turnaround.p50 !== null && drained.turnaround.p50 <= 2,
        });
      }
    }
    await api(server, apiKey, `/api/v1/webhooks/${one.webhookId}/update`, { enabled: false });

    // A hundred endpoints, each at the default cap; the worker's process-wide limit is 256 in flight.
    for (let i = 0; i < ENDPOINTS; i++) await api(server, apiKey, '/api/v1/webhooks', { url: `${hookUrl}/many/${i}`, eventTypes: ['Refund'] });
    await makeEvents(server, apiKey, 'Refund', Math.ceil(N / ENDPOINTS));
    const total = Math.ceil(N / ENDPOINTS) * ENDPOINTS;
    const { rate: loop, cpuUs: loopCpuUs, steadyCpuUs: loopSteadyUs } = await bareLoop(`${hookUrl}/loop`, certs.ca, 256, total, receiver.proc.pid as number);
    const drained = await drain(receiver, workerEnv, total);
    log.push(
      `${ENDPOINTS} endpoints: worker ${fmt(drained.rate)}/s (worker CPU ${fmt(drained.cpu * 100)}% of a core, ${fmt(drained.cpuUs)} µs per delivery against the loop's ${fmt(loopCpuUs)} µs per request, over the last four fifths ${fmt(drained.steadyCpuUs)} µs against ${fmt(loopSteadyUs)} µs and PostgreSQL's ${fmt(drained.steadyDbUs)} µs, ${drained.cycles}), bare loop (256 connections) ${fmt(loop)}/s`,
    );
    rows.push({
      operation: `black box: ${ENDPOINTS} endpoints, ${fmt(total)} deliveries`,
      figure: `${fmt(drained.rate)}/s`,
      baseline: `bare undici loop, 256 connections: ${fmt(loop)}/s`,
      ratio: `${fmt(drained.rate / loop, 2)}×`,
      target: '≥ 0.5×',
      met: drained.rate / loop >= 0.5,
    });
    return { rows, log: log.join('\n') };
  } finally {
    await server.stop();
    await receiver.stop();
    await bench.drop();
  }
}
