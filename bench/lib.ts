import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';

// Shared pieces of the benchmarks: a throw-away PostgreSQL database, the real `paylinks serve`
// process, peak-RSS sampling, and the one results table (figure, baseline from the same run, ratio,
// target). Benchmarks report; they never fail a build on a timing.

export const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const ROOT = join(import.meta.dirname, '..');

export interface Row {
  operation: string;
  figure: string;
  baseline: string;
  ratio: string;
  target: string;
  met?: boolean;
}

export function printTable(rows: readonly Row[]): void {
  const headers = ['operation', 'figure', 'baseline (same run)', 'ratio', 'target', 'met'];
  const cells = rows.map((r) => [r.operation, r.figure, r.baseline, r.ratio, r.target, r.met === undefined ? '' : r.met ? 'yes' : 'NO']);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]): string => `| ${c.map((x, i) => x.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
}

export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function createBenchDatabase(tag: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `paylinks_bench_${tag}_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface ServerProcess {
  proc: ChildProcess;
  baseUrl: string;
  output(): string;
  /** Peak resident set size so far (VmHWM), in MB. */
  peakRssMb(): number;
  rssMb(): number;
  stop(): Promise<void>;
}

function statusField(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * Starts the built `paylinks serve` (npm run build first) and waits until it listens; on the bench's
 * own Node line, or on the one whose `node` is in `nodeBin` (scripts/with-node.sh --bin <line>).
 */
export async function startServer(env: Record<string, string>, args: string[] = ['serve'], nodeBin = dirname(process.execPath)): Promise<ServerProcess> {
  const started = performance.now();
  // The bin itself, as `npm start` and an installed `paylinks` run it (its #! line sets Node's options).
  const proc = spawn(join(ROOT, 'bin/paylinks.js'), args, {
    env: { PATH: `${nodeBin}:${process.env.PATH ?? ''}`, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 120_000;
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const startMs = performance.now() - started;
  const pid = proc.pid as number;
  return {
    proc,
    baseUrl: /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '',
    output: () => `${out}\n(start-up ${fmt(startMs)} ms)`,
    peakRssMb: () => statusField(pid, 'VmHWM'),
    rssMb: () => statusField(pid, 'VmRSS'),
    stop: async () => {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

export async function timeToListen(env: Record<string, string>): Promise<{ ms: number; server: ServerProcess }> {
  const t0 = performance.now();
  const server = await startServer(env);
  return { ms: performance.now() - t0, server };
}

/**
 * The Node.js the bench and every process it starts run on, against package.json's engines: a line
 * below them is not one the project supports, and its figures are not a supported runtime's (the
 * bare loop, the worker and the peer each move differently between lines: docs/performance.md).
 */
export function runtimeLine(): string {
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node ?? '';
  const least = /^>=\s*(\d+)\.(\d+)/.exec(engines);
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const below = least !== null && (major < Number(least[1]) || (major === Number(least[1]) && minor < Number(least[2])));
  return below
    ? `Node ${process.version}, below the project's engines (${engines}): these figures are not a supported runtime's; run the bench under a maintained line, e.g. scripts/with-node.sh 24 npm run bench`
    : `Node ${process.version} (engines ${engines})`;
}
