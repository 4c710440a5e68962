import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, binEnv, startServe, stopServe } from '../helpers/bin.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

// `paylinks vacuum` (docs/running.md, "The embedded database's upkeep"), through the built bin: beside a
// running embedded server (which does the work for it over its admin socket), on the folder alone once
// the server has stopped, and on PostgreSQL.

const exec = promisify(execFile);

interface VacuumResult {
  done: string[];
  failed: { table: string; error: string }[];
  ms: number;
}

async function vacuum(env: Record<string, string>): Promise<VacuumResult> {
  const { stdout, stderr } = await exec(process.execPath, [BIN, 'vacuum', '--json'], { env: binEnv(env) });
  expect(stderr).toBe('');
  return JSON.parse(stdout) as VacuumResult;
}

describe('paylinks vacuum', () => {
  let dir: string;
  let tdb: TestDatabase | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-vacuum-'));
    if (TEST_DB === 'postgres') tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await tdb?.drop();
  });

  it.skipIf(TEST_DB !== 'pglite')('does every table through a running server, and on the folder alone once it has stopped', async () => {
    const env = { PAYLINKS_DATA_DIR: join(dir, 'data') };
    const server = await startServe(env, ['--no-worker']);
    const beside = await vacuum(env);
    expect(beside.failed).toEqual([]);
    expect(beside.done).toEqual(expect.arrayContaining(['public.payment_links', 'public.payments', 'public.webhook_deliveries']));
    // The server answered the command and goes on answering.
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect(await stopServe(server)).toBe(0);

    const alone = await vacuum(env);
    expect(alone.failed).toEqual([]);
    expect(alone.done.sort()).toEqual(beside.done.sort());
  });

  it.skipIf(TEST_DB !== 'postgres')('does every table on PostgreSQL', async () => {
    const env = { DATABASE_URL: tdb?.url as string };
    await exec(process.execPath, [BIN, 'migrate'], { env: binEnv(env) });
    const r = await vacuum(env);
    expect(r.failed).toEqual([]);
    expect(r.done).toEqual(expect.arrayContaining(['public.payment_links', 'public.payments', 'public.webhook_deliveries']));
  });
});
