import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, lockHolder, lockPathOf, processStartOf, takeOverStale, type LockHolder } from '../../src/db/dataDirLock.js';

// The embedded database's folder is opened by one process at a time; a lock left by a dead process
// is taken over, by exactly one of the processes that find it.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'paylinks-lock-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A pid that certainly belongs to no process now: a child that has exited and been reaped. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

function writeLock(holder: Partial<LockHolder>): void {
  const full: LockHolder = { pid: 1, processStart: null, host: hostname(), since: '2026-01-01T00:00:00.000Z', adminSocket: null, command: 'serve', ...holder };
  writeFileSync(lockPathOf(dir), `${JSON.stringify(full)}\n`);
}

describe('data folder lock', () => {
  it('is held until released, and a second taker is told who holds it', () => {
    const lock = acquireDataDirLock(dir, { command: 'serve', adminSocket: true });
    expect(lock.holder.pid).toBe(process.pid);
    expect(lock.holder.adminSocket).toMatch(/admin\.sock$/);
    expect(lockHolder(dir)?.pid).toBe(process.pid);
    let thrown: unknown;
    try {
      acquireDataDirLock(dir, { command: 'merchant create' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DataDirLockedError);
    expect((thrown as DataDirLockedError).holder).toMatchObject({ pid: process.pid, command: 'serve' });
    expect((thrown as Error).message).toContain(`pid ${process.pid}, serve`);
    lock.release();
    expect(existsSync(lockPathOf(dir))).toBe(false);
    const again = acquireDataDirLock(dir, { command: 'merchant create' });
    again.release();
  });

  it('takes over the lock of a dead process', () => {
    writeLock({ pid: deadPid() });
    expect(lockHolder(dir)).toBeUndefined();
    const lock = acquireDataDirLock(dir, { command: 'serve' });
    expect(JSON.parse(readFileSync(lockPathOf(dir), 'utf8'))).toMatchObject({ pid: process.pid, command: 'serve' });
    lock.release();
  });

  it('takes over a lock whose pid now belongs to another process (the pid was reused)', () => {
    // Our own parent is alive, but it did not start at the recorded time.
    writeLock({ pid: process.ppid, processStart: '1' });
    const lock = acquireDataDirLock(dir, { command: 'serve' });
    lock.release();
  });

  it.skipIf(processStartOf(process.ppid) === null)('respects a live process recorded with its real start time', () => {
    writeLock({ pid: process.ppid, processStart: processStartOf(process.ppid) });
    expect(() => acquireDataDirLock(dir, { command: 'serve' })).toThrow(DataDirLockedError);
  });

  it('never judges a lock taken on another host stale', () => {
    writeLock({ pid: deadPid(), host: 'another-host.example' });
    expect(() => acquireDataDirLock(dir, { command: 'serve' })).toThrow(DataDirLockedError);
  });

  it('takes over an unreadable lock file after giving its writer a moment', () => {
    writeFileSync(lockPathOf(dir), '{"pid": ');
    const lock = acquireDataDirLock(dir, { command: 'serve' });
    lock.release();
  });

  it('releases only its own lock, never one taken over by another process since', () => {
    const lock = acquireDataDirLock(dir, { command: 'serve' });
    writeLock({ pid: process.ppid, processStart: processStartOf(process.ppid) });
    lock.release();
    expect(existsSync(lockPathOf(dir))).toBe(true);
  });

  it('does not remove a lock taken over by another process after this one judged the old lock stale', () => {
    writeLock({ pid: deadPid() });
    const stale = readFileSync(lockPathOf(dir), 'utf8');
    // Meanwhile another process took it over ...
    const theirs = acquireDataDirLock(dir, { command: 'serve' });
    const fresh = readFileSync(lockPathOf(dir), 'utf8');
    // ... and this one, late, goes on with its takeover of what it read.
    takeOverStale(lockPathOf(dir), stale);
    expect(readFileSync(lockPathOf(dir), 'utf8')).toBe(fresh);
    expect(existsSync(`${lockPathOf(dir)}.takeover`)).toBe(false);
    theirs.release();
  });

  it('lets exactly one of several processes that find the same stale lock take it over', async () => {
    writeLock({ pid: deadPid() });
    const module = new URL('../../src/db/dataDirLock.ts', import.meta.url).pathname;
    // The racers start together when the go file appears (each has loaded first, however slowly the
    // machine starts them), and a winner holds the lock until every racer has answered: neither a
    // late start nor an early release can let a second racer find the folder free.
    const go = join(dir, 'go');
    const done = join(dir, 'done');
    const script = `
      import { existsSync } from 'node:fs';
      import { acquireDataDirLock } from ${JSON.stringify(module)};
      process.stdout.write('ready\\n');
      while (!existsSync(${JSON.stringify(go)})) {}
      try {
        acquireDataDirLock(${JSON.stringify(dir)}, { command: 'racer' });
        process.stdout.write('won\\n');
        const wait = setInterval(() => { if (existsSync(${JSON.stringify(done)})) { clearInterval(wait); process.exit(0); } }, 20);
      } catch (err) {
        process.stdout.write(err.name + '\\n');
      }`;
    const outputs: string[] = Array.from({ length: 6 }, () => '');
    const exits = outputs.map(
      (_o, i) =>
        new Promise<void>((resolve) => {
          const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
          p.stdout.on('data', (d: Buffer) => (outputs[i] += d.toString()));
          p.on('exit', () => resolve());
        }),
    );
    const lines = (): string[][] => outputs.map((o) => o.split('\n').filter((l) => l !== ''));
    const until = async (ok: () => boolean): Promise<void> => {
      const deadline = Date.now() + 60_000;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`racers: ${JSON.stringify(outputs)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await until(() => lines().every((l) => l[0] === 'ready'));
    writeFileSync(go, '');
    await until(() => lines().every((l) => l.length >= 2));
    writeFileSync(done, '');
    await Promise.all(exits);
    const outcomes = lines().map((l) => l[1]);
    expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'DataDirLockedError')).toHaveLength(5);
  }, 90_000);
});
