import { lstatSync, mkdtempSync, realpathSync, rmSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';

// Where a process holding an embedded database answers admin commands (src/admin/server.ts), and when
// the CLI may trust what it finds there (docs/running.md, "One process per embedded folder").
//
// Whoever can put a listener in the socket's place receives the commands and answers them: an
// operator's `paylinks user link` would hand a forged sign-in link or key to the operator. So the
// socket lives only in a folder that no other account can write: the data folder when it is the
// service user's own and closed to others, else a folder made for this process alone, with a random
// name (never one that another account could have made first), under $XDG_RUNTIME_DIR when that is
// the user's private runtime folder, else under the system's temporary folder. The CLI talks to the
// socket only when it and its folder belong to the user that holds the folder's lock, and the folder
// is writable by no one else.

/** A socket address holds about 108 bytes; a path longer than this does not fit everywhere. */
const MAX_SOCKET_PATH = 100;
const SOCKET_NAME = 'admin.sock';

function ownUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/** Whether `folder` is a real folder of `uid` that no other account can write (null uid: a system without owners). */
function privateTo(folder: string, uid: number | null): boolean {
  try {
    const st = lstatSync(folder);
    return st.isDirectory() && (uid === null || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** A runtime folder of this user only (mode 0700), as $XDG_RUNTIME_DIR names one on a Linux desktop or systemd service. */
function runtimeDir(): string | undefined {
  const dir = process.env.XDG_RUNTIME_DIR;
  if (dir === undefined || !isAbsolute(dir) || !privateTo(dir, ownUid())) return undefined;
  try {
    return (lstatSync(dir).mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The name mkdtemp gives a socket's own folder. */
const OWN_FOLDER = /^paylinks-[A-Za-z0-9]{6}$/;

/**
 * Removes the socket folder a dead holder of the lock made for itself (a process killed with SIGKILL
 * cannot): only a folder of that name, this user's and closed to others, never the data folder.
 */
export function dropDeadSocketFolder(socketPath: string | null, dataDir: string): void {
  if (socketPath === null) return;
  const folder = dirname(socketPath);
  if (!OWN_FOLDER.test(basename(folder)) || folder === realpathSync(dataDir) || !privateTo(folder, ownUid())) return;
  rmSync(folder, { recursive: true, force: true });
}

/** Where this process answers admin commands for `dataDir`, and whether the socket's folder is its own to remove when it stops. */
export function adminSocketPathOf(dataDir: string): { path: string; ownFolder: boolean } {
  const folder = realpathSync(dataDir);
  const inDir = join(folder, SOCKET_NAME);
  if (Buffer.byteLength(inDir) <= MAX_SOCKET_PATH && privateTo(folder, ownUid())) return { path: inDir, ownFolder: false };
  for (const base of [runtimeDir(), tmpdir()]) {
    if (base === undefined) continue;
    // mkdtemp makes a new folder (owner-only) with a random name: none that existed before is used.
    const made = mkdtempSync(join(base, 'paylinks-'));
    const path = join(made, SOCKET_NAME);
    if (Buffer.byteLength(path) <= MAX_SOCKET_PATH) return { path, ownFolder: true };
    rmdirSync(made);
  }
  throw new Error(`no folder for the admin socket: ${inDir} is too long for a socket address, and so is the system's temporary folder ${tmpdir()}`);
}

/** Why the socket at `path` must not be talked to, or null when it and its folder are `owner`'s and no one else can write the folder. */
export function untrustedSocket(path: string, owner: number | null): string | null {
  const folder = dirname(path);
  let f;
  try {
    f = lstatSync(folder);
  } catch {
    return null; // not there (yet): the caller's connection says so
  }
  if (!f.isDirectory()) return `${folder} is not a folder`;
  if (owner !== null && f.uid !== owner) return `its folder ${folder} belongs to another user (uid ${f.uid}, not ${owner})`;
  if ((f.mode & 0o022) !== 0) return `its folder ${folder} can be written by other users`;
  let s;
  try {
    s = lstatSync(path);
  } catch {
    return null;
  }
  if (!s.isSocket()) return `${path} is not a socket`;
  if (owner !== null && s.uid !== owner) return `it belongs to another user (uid ${s.uid}, not ${owner})`;
  return null;
}

/** The user that owns a file (the lock a holder wrote; its folder's when it is gone), or null on a system without owners. */
export function ownerOf(path: string): number | null {
  if (ownUid() === null) return null;
  try {
    return lstatSync(path).uid;
  } catch {
    return lstatSync(dirname(path)).uid;
  }
}
