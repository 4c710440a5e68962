import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { adminSocketPathOf, dropDeadSocketFolder } from './adminSocket.js';

// One process at a time per embedded database folder. PGlite runs PostgreSQL inside this process and
// assumes it is the only one writing its files: a second process (an admin command beside a running
// server, a second `npm start`) would write the same files behind the first one's back.
//
// The lock is a file created with O_EXCL (`paylinks.lock`), holding the owner's pid, the start time
// of that pid (so a pid reused by an unrelated process after a crash is not mistaken for the owner)
// and where the owner answers admin commands. Node has no flock(2), and an O_EXCL file works the same
// on every platform and every local filesystem.
//
// A lock whose owner is dead is stale and is taken over. Two processes may find the same stale lock
// at once; to make exactly one of them the new owner, a takeover first creates `paylinks.lock.takeover`
// with O_EXCL, re-reads the lock under it, and only then replaces it. The loser starts again and finds
// the winner's live lock.

export interface LockHolder {
  pid: number;
  /** The pid's start time as the system reports it (Linux: jiffies since boot), or null elsewhere. */
  processStart: string | null;
  host: string;
  /** When the lock was taken (ISO 8601). */
  since: string;
  /** The Unix socket where the holder answers admin commands (./adminSocket.ts), or null when it answers none. */
  adminSocket: string | null;
  /** What the holder is running (`serve`, `merchant create`, ...). */
  command: string;
}

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by another paylinks process (pid ${holder.pid}, ${holder.command}, since ${holder.since}); ` +
        'only one process may open an embedded database at a time',
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Removes the lock (idempotent). Only the process that holds it removes it. */
  release(): void;
}

const LOCK_FILE = 'paylinks.lock';

export function lockPathOf(dataDir: string): string {
  return join(dataDir, LOCK_FILE);
}

/** Fields of /proc/{pid}/stat after the command name (which is in parentheses and may hold spaces). */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The start time of a process, to tell it from a later process that got the same pid. */
export function processStartOf(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the recorded holder is still running. A lock from another host is never judged stale. */
function holderAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid && holder.processStart === processStartOf(process.pid)) return true;
  if (!pidAlive(holder.pid)) return false;
  const stat = procStat(holder.pid);
  // A killed process whose parent has not reaped it yet still has its pid: it holds nothing.
  if (stat?.[0] === 'Z' || stat?.[0] === 'X') return false;
  if (holder.processStart === null || stat === null) return true;
  return stat[19] === holder.processStart;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0) return undefined;
    return {
      pid: v.pid,
      processStart: typeof v.processStart === 'string' ? v.processStart : null,
      host: typeof v.host === 'string' ? v.host : hostname(),
      since: typeof v.since === 'string' ? v.since : '?',
      adminSocket: typeof v.adminSocket === 'string' ? v.adminSocket : null,
      command: typeof v.command === 'string' ? v.command : 'paylinks',
    };
  } catch {
    return undefined;
  }
}

function readRaw(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The live holder of a folder's lock, if any (a stale lock reads as none). */
export function lockHolder(dataDir: string): LockHolder | undefined {
  const raw = readRaw(lockPathOf(dataDir));
  if (raw === undefined) return undefined;
  const holder = parseHolder(raw);
  return holder && holderAlive(holder) ? holder : undefined;
}

function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** A takeover file older than this was left by a process that died in the middle of one. */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Takes the folder's lock or throws DataDirLockedError naming the live holder. The folder is created
 * (owner-only) if it does not exist.
 */
export function acquireDataDirLock(dataDir: string, opts: { command: string; adminSocket?: boolean }): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = lockPathOf(dataDir);
  const socket = opts.adminSocket ? adminSocketPathOf(dataDir) : undefined;
  const holder: LockHolder = {
    pid: process.pid,
    processStart: processStartOf(process.pid),
    host: hostname(),
    since: new Date().toISOString(),
    adminSocket: socket?.path ?? null,
    command: opts.command,
  };
  const content = `${JSON.stringify(holder)}\n`;
  // A folder made for the socket alone goes with the lock, or at once when the lock is not ours.
  const dropSocketFolder = (): void => {
    if (socket?.ownFolder) rmSync(dirname(socket.path), { recursive: true, force: true });
  };
  try {
    return takeLock(dataDir, path, holder, content, dropSocketFolder);
  } catch (err) {
    dropSocketFolder();
    throw err;
  }
}

function takeLock(dataDir: string, path: string, holder: LockHolder, content: string, onRelease: () => void): DataDirLock {
  for (let round = 0; round < 50; round++) {
    if (createExclusive(path, content)) return lockHandle(path, holder, content, onRelease);
    const raw = readRaw(path);
    if (raw === undefined) continue; // released in between: try again
    const current = parseHolder(raw);
    // An unreadable lock is a half-written one: its writer is between open and write. Give it a moment.
    if (current === undefined && round < 10) {
      sleepSync(20);
      continue;
    }
    if (current !== undefined && holderAlive(current)) throw new DataDirLockedError(dataDir, current);
    // The dead holder's own socket folder (made with a random name) goes with its lock.
    if (current !== undefined) dropDeadSocketFolder(current.adminSocket, dataDir);
    takeOverStale(path, raw);
  }
  throw new Error(`could not take the lock ${path}: it keeps changing`);
}

/** Exported for tests: replaces a lock judged stale, unless it changed since it was read. */
export function takeOverStale(path: string, staleContent: string): void {
  const takeover = `${path}.takeover`;
  if (!createExclusive(takeover, `${process.pid}\n`)) {
    try {
      if (Date.now() - statSync(takeover).mtimeMs > TAKEOVER_STALE_MS) removeIfPresent(takeover);
    } catch {
      // gone already
    }
    sleepSync(20);
    return;
  }
  try {
    // Under the takeover file nobody else replaces the lock: if it still holds what we judged stale,
    // remove it; the caller's next O_EXCL create then makes us the owner (or a newcomer, who is then
    // the live owner we report).
    if (readRaw(path) === staleContent) removeIfPresent(path);
  } finally {
    removeIfPresent(takeover);
  }
}

function lockHandle(path: string, holder: LockHolder, content: string, onRelease: () => void): DataDirLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    // Remove only our own lock: never one that another process took over after ours was removed.
    if (readRaw(path) === content) removeIfPresent(path);
    onRelease();
    process.removeListener('exit', release);
  };
  // A process that ends without closing its database (an uncaught error) leaves no lock behind.
  process.on('exit', release);
  return { path, holder, release };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
