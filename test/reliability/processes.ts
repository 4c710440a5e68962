import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testCerts } from '../webhooks/certs.js';

// The built `paylinks` bin as separate processes for the fault tests (§Hardening): started with a clean
// environment, their output kept, and every one killed at the end (also when a test fails).

const BIN = join(import.meta.dirname, '../../bin/paylinks.js');

export interface BinProcess {
  readonly name: string;
  proc: ChildProcess;
  output(): string;
  /** http://127.0.0.1:port once `serve` printed it. */
  baseUrl: string;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<BinProcess>();

/** The test CA as a file, for NODE_EXTRA_CA_CERTS: the worker trusts the test receivers like any CA. */
let caDir: string | undefined;
export function testCaFile(): string {
  if (!caDir) caDir = mkdtempSync(join(tmpdir(), 'paylinks-ca-'));
  const file = join(caDir, 'ca.pem');
  writeFileSync(file, testCerts().ca);
  return file;
}

export async function startBin(name: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<BinProcess> {
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', NODE_EXTRA_CA_CERTS: testCaFile(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
  proc.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const p: BinProcess = {
    name,
    proc,
    output: () => out,
    baseUrl: '',
    exited,
    kill: async (signal) => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
  running.add(p);
  void exited.then(() => running.delete(p));
  const deadline = Date.now() + 60_000;
  while (!ready.test(out)) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${name} exited before it was ready:\n${out}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${name} was not ready within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  p.baseUrl = /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '';
  return p;
}

export function startServe(env: Record<string, string>, args: string[] = []): Promise<BinProcess> {
  return startBin('serve', ['serve', ...args], env, /listening on http:\/\/\S+/);
}

export function startWorker(name: string, env: Record<string, string>): Promise<BinProcess> {
  return startBin(name, ['worker'], env, /delivery worker and modification processor running/);
}

/** Kills (SIGKILL) every process still running; for afterAll and afterEach. */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill('SIGKILL')));
  if (caDir) rmSync(caDir, { recursive: true, force: true });
  caDir = undefined;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits for a condition with a generous deadline (no timing assertions: only "eventually"). */
export async function until<T>(fn: () => T | Promise<T>, what: string, deadlineMs: number, everyMs = 200): Promise<NonNullable<T>> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
