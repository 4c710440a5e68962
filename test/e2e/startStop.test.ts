import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';

// Running it as the README says (`npm start`, on the embedded database), and stopping it the ways
// people and process managers do: a signal to npm alone (docker, systemd) and Ctrl-C (SIGINT to the
// whole process group). And the embedded database's one-process rule: an account command beside a
// running server goes through the server; a second server on the same folder refuses to start.

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/paylinks.js');
const run = promisify(execFile);

interface Started {
  proc: ChildProcess;
  output: () => string;
  baseUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startProcess(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const proc = spawn(command, args, {
    cwd: ROOT,
    // A process group of its own, so that the test can signal the group as a terminal's Ctrl-C does.
    detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 90_000;
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${command} exited:\n${out}`);
    if (Date.now() > deadline) throw new Error(`${command} did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, output: () => out, baseUrl: /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '', exited };
}

function lockOf(dataDir: string): { pid: number } {
  return JSON.parse(readFileSync(join(dataDir, 'paylinks.lock'), 'utf8')) as { pid: number };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return false;
  } catch {
    return true;
  }
}

describe.skipIf(TEST_DB !== 'pglite')('npm start on the embedded database', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-start-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('drains and exits when SIGTERM goes to npm alone, as a process manager sends it', async () => {
    const dataDir = join(dir, 'term');
    const s = await startProcess('npm', ['start'], { PAYLINKS_DATA_DIR: dataDir });
    const server = lockOf(dataDir).pid;
    expect(server).not.toBe(s.proc.pid);
    expect((await fetch(`${s.baseUrl}/readyz`)).status).toBe(200);

    process.kill(s.proc.pid as number, 'SIGTERM');
    const exit = await s.exited;
    // npm reports the server's own exit: 0 after a clean drain.
    expect(exit).toEqual({ code: 0, signal: null });
    expect(s.output()).toContain('SIGTERM received: draining');
    expect(alive(server)).toBe(false);
    expect(await refused(`${s.baseUrl}/healthz`)).toBe(true);
    expect(existsSync(join(dataDir, 'paylinks.lock'))).toBe(false);
  }, 120_000);

  it('drains and exits 0 on Ctrl-C, which signals the whole process group (and npm forwards it again)', async () => {
    const dataDir = join(dir, 'int');
    const s = await startProcess('npm', ['start'], { PAYLINKS_DATA_DIR: dataDir });
    const server = lockOf(dataDir).pid;
    process.kill(-(s.proc.pid as number), 'SIGINT');
    const exit = await s.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    // The server itself drained and exited (no second signal cut it short).
    const deadline = Date.now() + 30_000;
    while (alive(server) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive(server)).toBe(false);
    expect(s.output()).toContain('SIGINT received: draining');
    expect(s.output()).not.toMatch(/shutdown failed/);
    expect(existsSync(join(dataDir, 'paylinks.lock'))).toBe(false);
    expect(await refused(`${s.baseUrl}/healthz`)).toBe(true);
  }, 120_000);

  it('keeps draining when another signal arrives during the drain, then exits 0', async () => {
    const main = join(ROOT, 'src/main.ts');
    // A drain that takes a while (in-flight requests, attempts on the wire), signalled again meanwhile.
    const script = `
      import { stopOnSignals } from ${JSON.stringify(main)};
      stopOnSignals(() => new Promise((r) => setTimeout(r, 600)), (l) => process.stdout.write(l + '\\n'));
      process.stdout.write('ready\\n');
      setInterval(() => {}, 1000);`;
    const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      p.once('exit', (code, signal) => resolve({ code, signal })),
    );
    while (!out.includes('ready')) await new Promise((r) => setTimeout(r, 20));
    p.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 150));
    p.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 150));
    p.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(out).toContain('SIGTERM received: draining');
    expect(out).toContain('SIGINT received: still draining');
    expect(out).toContain('SIGTERM received: still draining');
  }, 30_000);

  it('stops at once when only idle connections are open: a kept-alive one and one that never sent a byte', async () => {
    const dataDir = join(dir, 'idle');
    const s = await startProcess(process.execPath, [BIN, 'serve'], { PAYLINKS_DATA_DIR: dataDir });
    const { port } = new URL(s.baseUrl);
    // A browser with the portal open: a connection kept alive after a page, and one opened ahead of need.
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      httpGet({ host: '127.0.0.1', port, path: '/portal/sign-in', agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      }).on('error', reject);
    });
    const preconnect = connect(Number(port), '127.0.0.1');
    preconnect.on('error', () => {});
    await new Promise((r) => preconnect.once('connect', r));
    const sent = Date.now();
    process.kill(s.proc.pid as number, 'SIGTERM');
    expect((await s.exited).code).toBe(0);
    // The grace period for work in flight is 20 s; with nothing in flight the stop does not wait for it.
    expect(Date.now() - sent).toBeLessThan(10_000);
    agent.destroy();
  }, 60_000);

  it('runs account commands beside a running server through it: a new key works at once, nothing is lost', async () => {
    const dataDir = join(dir, 'beside');
    const s = await startProcess(process.execPath, [BIN, 'serve'], { PAYLINKS_DATA_DIR: dataDir });
    try {
      const env = { PATH: process.env.PATH ?? '', PAYLINKS_DATA_DIR: dataDir };
      const cli = async (...args: string[]): Promise<Record<string, unknown>> => {
        const { stdout } = await run(process.execPath, [BIN, ...args], { env });
        return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
      };
      const m = await cli('merchant', 'create', '--name', 'Beside the server', '--json');
      const k = await cli('key', 'create', '--merchant', m.merchantId as string, '--capabilities', 'PaymentLinks', '--json');
      for (const key of [m.apiKey, k.apiKey] as string[]) {
        const res = await fetch(`${s.baseUrl}/api/v1/paymentlinks`, { headers: { 'x-api-key': key } });
        expect(res.status).toBe(200);
      }
      const keys = await cli('key', 'list', '--merchant', m.merchantId as string, '--json');
      expect((keys.keys as unknown[]).length).toBe(2);
      expect(JSON.stringify(keys)).not.toContain(m.apiKey as string);
      await cli('key', 'revoke', k.keyId as string, '--json');
      expect((await fetch(`${s.baseUrl}/api/v1/paymentlinks`, { headers: { 'x-api-key': k.apiKey as string } })).status).toBe(401);
      const merchants = await cli('merchant', 'list', '--json');
      expect((merchants.merchants as { name: string }[]).map((x) => x.name)).toEqual(['Sandbox merchant', 'Beside the server']);
      // The server was the only process that opened the folder all along.
      expect(lockOf(dataDir).pid).toBe(s.proc.pid);
    } finally {
      process.kill(s.proc.pid as number, 'SIGTERM');
      expect((await s.exited).code).toBe(0);
    }
    // What the commands wrote is in the folder after the server stopped.
    const { stdout } = await run(process.execPath, [BIN, 'merchant', 'list', '--json'], { env: { PATH: process.env.PATH ?? '', PAYLINKS_DATA_DIR: dataDir } });
    expect(stdout).toContain('Beside the server');
  }, 120_000);

  it('refuses a second server on the same folder without opening it; the first is unharmed', async () => {
    const dataDir = join(dir, 'twice');
    const first = await startProcess('npm', ['start'], { PAYLINKS_DATA_DIR: dataDir });
    try {
      const key = /apiKey\s+(\S+)/.exec(first.output())?.[1] as string;
      const terminal = /terminalIdentifier\s+(\S+)/.exec(first.output())?.[1] as string;
      const create = await fetch(`${first.baseUrl}/api/v1/paymentlinks/create`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'PayByLink',
          terminalIdentifier: terminal,
          amount: 1000,
          currency: 'ISK',
          items: [{ name: 'A', quantity: 1, unitPrice: 1000, amountWithoutDiscount: 1000, amount: 1000 }],
        }),
      });
      expect(create.status).toBe(200);
      const ref = ((await create.json()) as { paymentLinkReference: string }).paymentLinkReference;

      const second = spawn('npm', ['start'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), PORT: '0', PAYLINKS_DATA_DIR: dataDir },
      });
      let out = '';
      second.stdout.on('data', (d: Buffer) => (out += d.toString()));
      second.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
      expect(code).not.toBe(0);
      expect(out).toContain('is in use by another paylinks process');
      expect(out).toContain(`pid ${lockOf(dataDir).pid}, serve`);
      expect(out).not.toContain('listening on');
      expect(out).not.toContain('sandbox merchant was created');

      expect(lockOf(dataDir).pid).not.toBe(second.pid);
      const read = await fetch(`${first.baseUrl}/api/v1/paymentlinks/${ref}`, { headers: { 'x-api-key': key } });
      expect(read.status).toBe(200);
    } finally {
      process.kill(first.proc.pid as number, 'SIGTERM');
      expect((await first.exited).code).toBe(0);
    }
  }, 180_000);

  it('takes over the lock of a server killed with SIGKILL, and keeps what it had committed', async () => {
    const dataDir = join(dir, 'killed');
    const first = await startProcess(process.execPath, [BIN, 'serve'], { PAYLINKS_DATA_DIR: dataDir });
    const key = /apiKey\s+(\S+)/.exec(first.output())?.[1] as string;
    first.proc.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dataDir, 'paylinks.lock'))).toBe(true);

    const second = await startProcess(process.execPath, [BIN, 'serve'], { PAYLINKS_DATA_DIR: dataDir });
    try {
      expect(lockOf(dataDir).pid).toBe(second.proc.pid);
      expect((await fetch(`${second.baseUrl}/api/v1/paymentlinks`, { headers: { 'x-api-key': key } })).status).toBe(200);
    } finally {
      process.kill(second.proc.pid as number, 'SIGTERM');
      expect((await second.exited).code).toBe(0);
    }
  }, 180_000);
});
