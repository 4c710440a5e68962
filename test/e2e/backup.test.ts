import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, binEnv, startServe, stopServe } from '../helpers/bin.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

// `paylinks backup` and `paylinks restore` (docs/running.md, Backups), driven through the built bin as an
// operator runs them: a backup taken from a running server under write load holds every write the
// API acknowledged before the backup was started, and restores into a folder a server starts on.

const exec = promisify(execFile);

/** Runs the bin; answers its exit code and output instead of throwing on a non-zero exit. */
async function paylinks(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: binEnv(env) });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

function linkBody(terminal: string, n: number): Record<string, unknown> {
  return {
    type: 'PayByLink',
    terminalIdentifier: terminal,
    amount: 1000 + n,
    currency: 'ISK',
    description: `write ${n}`,
    items: [{ name: 'Thing', quantity: 1, unitPrice: 1000 + n, amountWithoutDiscount: 1000 + n, amount: 1000 + n }],
  };
}

describe('paylinks backup and restore (docs/running.md, Backups)', () => {
  let dir: string;
  let tdb: TestDatabase | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-backup-'));
    if (TEST_DB === 'postgres') tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await tdb?.drop();
  });

  it.skipIf(TEST_DB !== 'pglite')(
    'a backup taken from a running server under write load holds every write acknowledged before it started',
    async () => {
      const env = { PAYLINKS_DATA_DIR: join(dir, 'live') };
      const server = await startServe(env, ['--no-worker']);
      const key = /apiKey\s+(\S+)/.exec(server.output())?.[1] as string;
      const terminal = /terminalIdentifier\s+(\S+)/.exec(server.output())?.[1] as string;
      const acked: { ref: string; at: number; ms: number }[] = [];
      let n = 0;
      let writing = true;
      const writer = async (): Promise<void> => {
        while (writing) {
          const sent = Date.now();
          const res = await fetch(`${server.baseUrl}/api/v1/paymentlinks/create`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify(linkBody(terminal, n++)),
          });
          const body = (await res.json()) as Record<string, unknown>;
          if (res.status === 200) acked.push({ ref: body.paymentLinkReference as string, at: Date.now(), ms: Date.now() - sent });
        }
      };
      const writers = [writer(), writer(), writer()];
      while (acked.length < 100) await new Promise((r) => setTimeout(r, 20));

      const file = join(dir, 'live.backup');
      const backupStarted = Date.now();
      const backup = await paylinks(env, 'backup', file, '--json');
      const backupEnded = Date.now();
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      const result = JSON.parse(backup.stdout.trim().split('\n').at(-1) ?? '') as Record<string, number>;
      expect(result.bytes).toBeGreaterThan(0);
      // Unpacked by hand with tar (as root, which keeps the archive's modes), the database's files are
      // the owner's alone: files 0600, folders 0700, whatever modes PGlite gave them in the folder.
      const unpacked = join(dir, 'unpacked');
      mkdirSync(unpacked);
      await exec('tar', ['-xzf', file, '-C', unpacked]);
      const modes = new Map<string, number>();
      const walk = (at: string): void => {
        for (const name of readdirSync(at)) {
          const path = join(at, name);
          const st = lstatSync(path);
          modes.set(path.slice(unpacked.length), st.mode & 0o777);
          if (st.isDirectory()) walk(path);
        }
      };
      walk(unpacked);
      expect(modes.size).toBeGreaterThan(10);
      for (const [path, mode] of modes) expect(mode.toString(8), path).toBe(lstatSync(join(unpacked, path)).isDirectory() ? '700' : '600');
      // Writes go on after the backup, so some are not in it (the test would pass vacuously otherwise).
      while (acked.filter((a) => a.at > backupEnded).length < 20) await new Promise((r) => setTimeout(r, 20));
      writing = false;
      await Promise.all(writers);
      const during = acked.filter((a) => a.at >= backupStarted && a.at <= backupEnded + 2_000).map((a) => a.ms);
      console.log(
        `backup: ${JSON.stringify(result)}; creates answered: ${acked.length}; slowest create answered during the backup: ${Math.max(0, ...during)} ms`,
      );
      const before = acked.filter((a) => a.at < backupStarted);

      // Restored into a new folder while the server still has its own folder open: the old server's lock
      // and admin socket are no part of the backup.
      const restoredEnv = { PAYLINKS_DATA_DIR: join(dir, 'restored') };
      const restore = await paylinks(restoredEnv, 'restore', file);
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);
      expect(restore.stdout).toContain('the folder held no database before');
      expect(await stopServe(server)).toBe(0);

      const second = await startServe(restoredEnv, ['--no-worker']);
      expect(second.output()).not.toMatch(/apiKey\s+pk_/); // the restored database has its merchant already
      let missing = 0;
      for (const a of before) {
        const res = await fetch(`${second.baseUrl}/api/v1/paymentlinks/${a.ref}`, { headers: { 'x-api-key': key } });
        if (res.status !== 200) missing++;
      }
      expect({ acknowledgedBeforeBackup: before.length, missing }).toEqual({ acknowledgedBeforeBackup: before.length, missing: 0 });
      // And the backup is one moment: a write acknowledged well after it finished is not in it.
      const last = acked.at(-1);
      const after = await fetch(`${second.baseUrl}/api/v1/paymentlinks/${last?.ref ?? ''}`, { headers: { 'x-api-key': key } });
      expect(after.status).toBe(404);
      expect(await stopServe(second)).toBe(0);
      expect(second.output()).not.toMatch(/"level":(50|60)/);
    },
    180_000,
  );

  it.skipIf(TEST_DB !== 'pglite')(
    'backs up with no server running, and refuses a file in the way, a folder with a database and a file that is not a backup',
    async () => {
      const env = { PAYLINKS_DATA_DIR: join(dir, 'quiet') };
      expect((await paylinks(env, 'migrate')).code).toBe(0);
      const m = await paylinks(env, 'merchant', 'create', '--name', 'Kaffi ehf', '--json');
      const merchantId = (JSON.parse(m.stdout.trim().split('\n').at(-1) ?? '') as { merchantId: string }).merchantId;
      const file = join(dir, 'quiet.backup');
      expect((await paylinks(env, 'backup', file)).code).toBe(0);

      const again = await paylinks(env, 'backup', file);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('exists already');
      expect((await paylinks(env, 'backup', file, '--force')).code).toBe(0);
      expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);

      const into = { PAYLINKS_DATA_DIR: join(dir, 'quiet-restored') };
      expect((await paylinks(into, 'restore', file)).code).toBe(0);
      expect((await paylinks(into, 'merchant', 'list')).stdout).toContain(merchantId);

      // A folder that holds a database is refused, and with --force kept aside, not deleted.
      const refused = await paylinks(into, 'restore', file);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('holds a database');
      const forced = await paylinks(into, 'restore', file, '--force', '--json');
      expect(forced.code).toBe(0);
      const aside = (JSON.parse(forced.stdout.trim().split('\n').at(-1) ?? '') as { movedAside: string }).movedAside;
      expect(existsSync(join(aside, 'PG_VERSION'))).toBe(true);

      // Not a backup, or no file at all: refused before the folder is touched (it is not even created).
      const junk = join(dir, 'junk.tgz');
      writeFileSync(junk, 'not a backup');
      const fresh = { PAYLINKS_DATA_DIR: join(dir, 'never-made') };
      const notBackup = await paylinks(fresh, 'restore', junk);
      expect(notBackup.code).toBe(1);
      expect(notBackup.stderr).toContain('is not a paylinks backup');
      const noFile = await paylinks(fresh, 'restore', join(dir, 'nothing-here'));
      expect(noFile.code).toBe(1);
      expect(noFile.stderr).toContain('there is no backup file');
      expect(existsSync(fresh.PAYLINKS_DATA_DIR)).toBe(false);

      // A server holds the folder: restore refuses and names it.
      const server = await startServe(env, ['--no-worker']);
      try {
        const busy = await paylinks(env, 'restore', file, '--force');
        expect(busy.code).toBe(1);
        expect(busy.stderr).toContain('in use by another paylinks process');
      } finally {
        expect(await stopServe(server)).toBe(0);
      }
    },
    180_000,
  );

  it.skipIf(TEST_DB !== 'postgres')('on PostgreSQL, backup and restore refuse and point to pg_dump and pg_restore', async () => {
    const env = { DATABASE_URL: tdb?.url as string };
    const help = await paylinks(env, 'backup', '--help');
    expect(help.stdout).toContain('--force');
    expect(help.stdout).toContain('pg_dump');
    expect((await paylinks(env, 'restore', '--help')).stdout).toContain('pg_restore');
    for (const args of [
      ['backup', join(dir, 'pg.backup')],
      ['restore', join(dir, 'pg.backup')],
    ]) {
      const r = await paylinks(env, ...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('pg_dump -Fc');
      expect(r.stderr).toContain('pg_restore');
    }
    expect(existsSync(join(dir, 'pg.backup'))).toBe(false);
  });
});
