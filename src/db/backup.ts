import { closeSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { gunzipSync, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type pg from 'pg';

// Backups of the embedded database: one gzip-compressed tar of the data folder, the format PGlite
// starts a new folder from with its loadDataDir option (restore.ts), and one `tar xzf` unpacks.
//
// A consistent copy needs the database to stand still while its folder is read. PGlite's pool has one
// connection (database.ts), so holding it holds every query of the process: the backup takes it, runs
// CHECKPOINT (every committed change is then in the folder's files, not only in shared buffers), reads
// the folder's files into memory, and gives the connection back. Building the archive, compressing
// and writing it happen after that, while queries run again. The folder is read here rather than by
// PGlite's dumpDataDir: that fails on the admin socket in the folder, copies the lock file, and took
// more than twice as long to read the same folder (1.6 s against 0.7 s for a new 40 MB folder). PGlite never fsyncs its own writes; the backup
// file is fsynced, and takes its name only once it is complete.

export class BackupError extends Error {
  override readonly name = 'BackupError';
}

export interface BackupResult {
  path: string;
  /** Size of the backup file. */
  bytes: number;
  /** How long the database was held (no query ran), in milliseconds. */
  heldMs: number;
  /** The whole backup, in milliseconds. */
  totalMs: number;
}

export const POSTGRES_BACKUP_HINT =
  'backup and restore are for the embedded database; on PostgreSQL use its own tools: ' +
  'pg_dump -Fc -f paylinks.dump "$DATABASE_URL", and pg_restore --no-owner -d "$DATABASE_URL" paylinks.dump (see docs/running.md, Backups)';

/** Files of a data folder that belong to the process holding it, never to the database (dataDirLock.ts). */
export const PROCESS_FILES = ['paylinks.lock', 'paylinks.lock.takeover', 'admin.sock'];

function refuseExisting(path: string, force: boolean): void {
  if (!isAbsolute(path)) throw new BackupError(`the backup file must be an absolute path: ${path}`);
  if (!existsSync(dirname(path))) throw new BackupError(`there is no folder ${dirname(path)} to write the backup into`);
  if (!force && existsSync(path)) throw new BackupError(`${path} exists already; give another file name, or --force to replace it`);
}

/** Writes bytes to path through a temporary file beside it, fsynced before it takes the name. */
export function writeDurably(path: string, bytes: Uint8Array, force: boolean): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    if (force) renameSync(tmp, path);
    else {
      // A link fails if the name was taken meanwhile: an existing file is never replaced without --force.
      linkSync(tmp, path);
      unlinkSync(tmp);
    }
  } catch (err) {
    unlinkSync(tmp);
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupError(`${path} exists already; give another file name, or --force to replace it`);
    throw err;
  }
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

interface Entry {
  /** Relative to the data folder, with '/' between names; a folder's ends in '/'. */
  name: string;
  mode: number;
  mtime: number;
  data: Buffer | null;
}

/**
 * Not copied: the process's own files, and PostgreSQL's postmaster.pid and postmaster.opts, which
 * describe the running server only (pg_basebackup leaves them out for the same reason).
 */
const NOT_BACKED_UP = [...PROCESS_FILES, 'postmaster.pid', 'postmaster.opts'];

/**
 * The modes the archive gives its entries: the owner's alone, as PostgreSQL keeps its data folder.
 * PGlite writes its files 0666 (the folder, 0700, is what keeps others out); an archive unpacked by
 * hand with tar, as root, would keep those modes, and its database would be writable by everyone.
 */
const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

/** Every folder and regular file under dataDir except those of NOT_BACKED_UP. */
function readFolder(dataDir: string): Entry[] {
  const entries: Entry[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (rel === '' && NOT_BACKED_UP.includes(d.name)) continue;
      const path = join(dir, d.name);
      const name = `${rel}${d.name}`;
      if (d.isDirectory()) {
        const st = statSync(path);
        entries.push({ name: `${name}/`, mode: FOLDER_MODE, mtime: st.mtimeMs, data: null });
        walk(path, `${name}/`);
      } else if (d.isFile()) {
        const st = statSync(path);
        entries.push({ name, mode: FILE_MODE, mtime: st.mtimeMs, data: readFileSync(path) });
      }
    }
  };
  walk(dataDir, '');
  return entries;
}

/** A ustar archive of the entries. */
export function tarOf(entries: Entry[]): Buffer {
  const blocks: Buffer[] = [];
  const octal = (n: number, width: number): string =>
    `${Math.floor(n)
      .toString(8)
      .padStart(width - 1, '0')}\0`;
  for (const e of entries) {
    const h = Buffer.alloc(512);
    let name = e.name;
    let prefix = '';
    if (Buffer.byteLength(name) > 100) {
      const cut = name.lastIndexOf('/', name.length - 2);
      prefix = name.slice(0, cut);
      name = name.slice(cut + 1);
      if (cut <= 0 || Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155)
        throw new BackupError(`a path in the data folder is too long: ${e.name}`);
    }
    const size = e.data?.length ?? 0;
    h.write(name, 0, 100, 'utf8');
    h.write(octal(e.mode, 8), 100, 'ascii');
    h.write(octal(0, 8), 108, 'ascii');
    h.write(octal(0, 8), 116, 'ascii');
    h.write(octal(size, 12), 124, 'ascii');
    h.write(octal(e.mtime / 1000, 12), 136, 'ascii');
    h.write('        ', 148, 'ascii');
    h.write(e.data === null ? '5' : '0', 156, 'ascii');
    h.write('ustar\0' + '00', 257, 'ascii');
    h.write(prefix, 345, 155, 'utf8');
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    blocks.push(h);
    if (e.data !== null && size > 0) {
      blocks.push(e.data);
      if (size % 512 !== 0) blocks.push(Buffer.alloc(512 - (size % 512)));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** Backs up the embedded database in dataDir, whose every query goes through `pool` (size 1). */
export async function backupPglite(pool: pg.Pool, dataDir: string | undefined, path: string, opts: { force?: boolean } = {}): Promise<BackupResult> {
  if (dataDir === undefined) throw new BackupError('an in-memory database has no folder to back up');
  const force = opts.force === true;
  refuseExisting(path, force);
  const started = performance.now();
  const client = await pool.connect();
  const heldFrom = performance.now();
  let entries: Entry[];
  try {
    await client.query('CHECKPOINT');
    entries = readFolder(dataDir);
  } finally {
    client.release();
  }
  const heldMs = performance.now() - heldFrom;
  const gz = await promisify(gzip)(tarOf(entries));
  writeDurably(path, gz, force);
  return { path, bytes: gz.length, heldMs: Math.round(heldMs), totalMs: Math.round(performance.now() - started) };
}

/** The names of the entries of a tar archive (ustar: a 512-byte header per entry, then its data). */
export function tarNames(tar: Uint8Array): string[] {
  const names: string[] = [];
  const text = (from: number, len: number): string => {
    const raw = Buffer.from(tar.subarray(from, from + len)).toString('utf8');
    const nul = raw.indexOf('\0');
    return nul === -1 ? raw : raw.slice(0, nul);
  };
  for (let off = 0; off + 512 <= tar.length;) {
    const name = text(off, 100);
    if (name === '') break; // the two empty blocks that end an archive
    const prefix = text(off + 345, 155);
    const size = parseInt(text(off + 124, 12).trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0) throw new Error('not a tar archive');
    names.push((prefix === '' ? name : `${prefix}/${name}`).replace(/^\/+/, ''));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

/** The tar inside a backup file, or a BackupError saying why the bytes are not a backup. */
export function unpackBackup(file: string, bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  let tar: Uint8Array<ArrayBuffer>;
  try {
    tar = gunzipSync(bytes);
  } catch {
    throw new BackupError(`${file} is not a paylinks backup (it is not gzip-compressed)`);
  }
  let names: string[];
  try {
    names = tarNames(tar);
  } catch {
    throw new BackupError(`${file} is not a paylinks backup (it is not a tar archive)`);
  }
  if (!names.includes('PG_VERSION') || !names.includes('global/pg_control'))
    throw new BackupError(`${file} is not a paylinks backup (it holds no embedded database folder)`);
  return tar;
}
