import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { BackupError, PROCESS_FILES, unpackBackup } from './backup.js';
import { acquireDataDirLock } from './dataDirLock.js';
import { PGLITE_SHARED_BUFFERS } from './database.js';

// `paylinks restore`: a backup (backup.ts) becomes the embedded database of a data folder. The file
// is checked to be a backup before the folder is touched; the database is unpacked and started once
// in a folder beside it, and only then moved in. A database already in the folder is moved aside to a
// folder beside it, never deleted. The folder's lock is held throughout, so a running server (or
// another command) on it makes the restore refuse.

export interface RestoreResult {
  dataDir: string;
  /** Size of the backup file. */
  bytes: number;
  /** Where what the folder held before was moved, or null when it held nothing. */
  movedAside: string | null;
}

const stamp = (d: Date): string => d.toISOString().replace(/[:.]/g, '-');

/** fsyncs every file and folder under dir: PGlite writes the unpacked files without it. */
function syncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) syncTree(path);
    else if (entry.isFile()) syncOne(path);
  }
  syncOne(dir);
}

function syncOne(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function readBackup(file: string): Uint8Array {
  try {
    if (!statSync(file).isFile()) throw new BackupError(`${file} is not a file`);
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BackupError(`there is no backup file ${file}`);
    throw err;
  }
}

export async function restoreDataDir(file: string, dataDirIn: string, opts: { force?: boolean } = {}): Promise<RestoreResult> {
  const bytes = readBackup(file);
  const tar = unpackBackup(file, bytes);
  const dataDir = resolve(dataDirIn);
  const lock = acquireDataDirLock(dataDir, { command: 'restore' });
  let staging: string | undefined;
  try {
    const present = readdirSync(dataDir).filter((n) => !PROCESS_FILES.includes(n));
    if (present.length > 0 && opts.force !== true) {
      const what = present.includes('PG_VERSION') ? 'holds a database' : 'is not empty';
      throw new BackupError(`${dataDir} ${what}; restore into a new folder, or give --force to move what it holds aside (it is not deleted)`);
    }
    staging = mkdtempSync(join(dirname(dataDir), `.${basename(dataDir)}.restoring-`));
    const { PGlite } = await import('@electric-sql/pglite');
    const { PGLITE_EXTENSIONS } = await import('./pgliteExtensions.js');
    let pglite;
    try {
      pglite = await PGlite.create(staging, {
        loadDataDir: new Blob([tar], { type: 'application/x-tar' }),
        extensions: PGLITE_EXTENSIONS,
        startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
      });
    } catch (err) {
      throw new BackupError(`the database in ${file} does not start: ${(err as Error).message}`);
    }
    try {
      await pglite.query('SELECT version FROM schema_migrations LIMIT 1');
    } catch (err) {
      throw new BackupError(`${file} holds no paylinks database: ${(err as Error).message}`);
    } finally {
      await pglite.close();
    }
    // The lock and the admin socket of the process that was backed up are no part of the database.
    for (const name of PROCESS_FILES) rmSync(join(staging, name), { recursive: true, force: true });
    syncTree(staging);

    let movedAside: string | null = null;
    if (present.length > 0) {
      movedAside = `${dataDir}.before-restore-${stamp(new Date())}`;
      mkdirSync(movedAside, { mode: 0o700 });
      for (const name of present) renameSync(join(dataDir, name), join(movedAside, name));
      syncOne(movedAside);
    }
    // Entry by entry, so that a data folder that is a mount point stays one. PG_VERSION goes last: a
    // move cut short leaves a folder without it, which holds no database (template.ts).
    const entries = readdirSync(staging).sort((a, b) => Number(a === 'PG_VERSION') - Number(b === 'PG_VERSION'));
    for (const name of entries) renameSync(join(staging, name), join(dataDir, name));
    syncOne(dataDir);
    return { dataDir, bytes: bytes.length, movedAside };
  } finally {
    if (staging !== undefined) rmSync(staging, { recursive: true, force: true });
    lock.release();
  }
}
