import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, lockPathOf, type LockHolder } from '../../src/db/dataDirLock.js';
import { AdminSocketUntrustedError, runThroughHolder } from '../../src/admin/client.js';

// The admin socket's folder (docs/running.md): another local account can neither choose nor write
// the folder the socket is in, and the CLI sends nothing to a socket that account could have put
// there. Run as root, the tests also give folders and sockets to another user (nobody, 65534).

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let base: string;
const saved = process.env.XDG_RUNTIME_DIR;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'paylinks-sock-test-'));
  delete process.env.XDG_RUNTIME_DIR;
});
afterEach(() => {
  if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
  else process.env.XDG_RUNTIME_DIR = saved;
  rmSync(base, { recursive: true, force: true });
});

/** A data folder whose `admin.sock` would be too long for a socket address. */
function longDataDir(): string {
  const dir = join(base, 'a-data-folder-whose-path-is-long'.repeat(3), 'paylinks-data');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A folder made as another account would make it: open to all, and theirs when the tests run as root. */
function hostileFolder(path: string): void {
  mkdirSync(path, { recursive: true });
  chmodSync(path, 0o777);
  if (isRoot) chownSync(path, NOBODY, NOBODY);
}

describe('where the admin socket goes', () => {
  it('puts it, for a data folder too long for a socket address, in a new owner-only folder with a random name, never the one another account made first', () => {
    const dataDir = longDataDir();
    // The name an earlier release used, which anyone could work out and make first.
    const predictable = join(tmpdir(), `paylinks-${createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16)}`);
    hostileFolder(predictable);
    try {
      const lock = acquireDataDirLock(dataDir, { command: 'serve', adminSocket: true });
      const socket = lock.holder.adminSocket as string;
      expect(dirname(socket)).not.toBe(predictable);
      expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(100);
      const folder = statSync(dirname(socket));
      expect(folder.uid).toBe(process.getuid?.());
      expect(folder.mode & 0o777).toBe(0o700);
      lock.release();
      expect(existsSync(dirname(socket))).toBe(false);
    } finally {
      rmSync(predictable, { recursive: true, force: true });
    }
  });

  it('uses $XDG_RUNTIME_DIR when it is the user’s private folder, and not when others can write it', () => {
    const runtime = join(base, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    process.env.XDG_RUNTIME_DIR = runtime;
    const lock = acquireDataDirLock(longDataDir(), { command: 'serve', adminSocket: true });
    expect(dirname(dirname(lock.holder.adminSocket as string))).toBe(runtime);
    lock.release();
    expect(readdirSync(runtime)).toEqual([]);

    chmodSync(runtime, 0o777);
    const other = acquireDataDirLock(longDataDir(), { command: 'serve', adminSocket: true });
    expect(dirname(dirname(other.holder.adminSocket as string))).toBe(tmpdir());
    other.release();
  });

  it('removes the socket folder of a holder that died without releasing its lock', () => {
    const runtime = join(base, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    process.env.XDG_RUNTIME_DIR = runtime;
    const dataDir = longDataDir();
    const dead = acquireDataDirLock(dataDir, { command: 'serve', adminSocket: true });
    const deadFolder = dirname(dead.holder.adminSocket as string);
    // As SIGKILL leaves it: the lock names a pid that is gone, and its folder is still there.
    const lock = JSON.parse(readFileSync(lockPathOf(dataDir), 'utf8')) as LockHolder;
    writeFileSync(lockPathOf(dataDir), `${JSON.stringify({ ...lock, pid: 2 ** 22 + 1, processStart: null })}\n`);
    const next = acquireDataDirLock(dataDir, { command: 'serve', adminSocket: true });
    expect(existsSync(deadFolder)).toBe(false);
    expect(readdirSync(runtime)).toEqual([basename(dirname(next.holder.adminSocket as string))]);
    next.release();
  });

  it('leaves no folder behind when the data folder is held by another process', () => {
    const runtime = join(base, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    process.env.XDG_RUNTIME_DIR = runtime;
    const dataDir = longDataDir();
    const first = acquireDataDirLock(dataDir, { command: 'serve', adminSocket: true });
    expect(() => acquireDataDirLock(dataDir, { command: 'serve', adminSocket: true })).toThrow(DataDirLockedError);
    expect(readdirSync(runtime)).toHaveLength(1);
    first.release();
  });

  it('does not put it in a data folder that other accounts can write', () => {
    const dataDir = join(base, 'shared');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o777);
    const lock = acquireDataDirLock(dataDir, { command: 'serve', adminSocket: true });
    expect(dirname(lock.holder.adminSocket as string)).not.toBe(realpathSync(dataDir));
    lock.release();
    const own = join(base, 'own');
    mkdirSync(own, { mode: 0o700 });
    const ownLock = acquireDataDirLock(own, { command: 'serve', adminSocket: true });
    expect(ownLock.holder.adminSocket).toBe(join(realpathSync(own), 'admin.sock'));
    ownLock.release();
  });
});

describe('the CLI and a socket it finds', () => {
  /** A listener that counts what reaches it and answers every command. */
  async function listener(path: string): Promise<{ server: Server; received: string[] }> {
    const received: string[] = [];
    const server = createServer((req, res) => {
      received.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"signInUrl":"https://forged.example/"}');
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return { server, received };
  }

  function holderAt(socket: string): LockHolder {
    return { pid: process.pid, processStart: null, host: 'test', since: new Date().toISOString(), adminSocket: socket, command: 'serve' };
  }

  async function outcome(dataDir: string, socket: string): Promise<string> {
    try {
      await runThroughHolder({ dataDir, holder: holderAt(socket) }, 'user.link', { email: 'owner@example.is' }, 0);
      return 'sent';
    } catch (err) {
      return err instanceof AdminSocketUntrustedError ? `refused: ${err.message}` : `failed: ${(err as Error).message}`;
    }
  }

  it('sends nothing to a socket in a folder others can write, or one that belongs to another user; talks to one of its own', async () => {
    const dataDir = join(base, 'data');
    mkdirSync(dataDir, { mode: 0o700 });

    const open = join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const taken = await listener(join(open, 'admin.sock'));
    expect(await outcome(dataDir, join(open, 'admin.sock'))).toMatch(/^refused: .*can be written by other users.*nothing was sent/);
    expect(taken.received).toEqual([]);
    taken.server.close();

    const mine = join(base, 'mine');
    mkdirSync(mine, { mode: 0o700 });
    const own = await listener(join(mine, 'admin.sock'));
    expect(await outcome(dataDir, join(mine, 'admin.sock'))).toBe('sent');
    expect(own.received).toHaveLength(1);
    if (isRoot) {
      // The same socket given to another user, then its folder too.
      chownSync(join(mine, 'admin.sock'), NOBODY, NOBODY);
      expect(await outcome(dataDir, join(mine, 'admin.sock'))).toMatch(/^refused: .*belongs to another user/);
      chownSync(mine, NOBODY, NOBODY);
      expect(await outcome(dataDir, join(mine, 'admin.sock'))).toMatch(/^refused: its admin socket .* was not used: its folder .* belongs to another user/);
      expect(own.received).toHaveLength(1);
    }
    own.server.close();
  });
});
