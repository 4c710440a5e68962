import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';
import { writeLoadHook } from '../helpers/loadedPackages.js';

// `paylinks worker` runs the delivery worker, the modification processor and the settlement job, and
// serves its metrics with node:http: src/main.ts imports the HTTP app (Fastify, the API, the pages and
// the portal) only in `serve`, so a worker process starts without it. The worker needs PostgreSQL.

const BIN = join(import.meta.dirname, '../../bin/paylinks.js');

describe.skipIf(TEST_DB !== 'postgres')('a worker process’s start', () => {
  let dir: string;
  let tdb: TestDatabase;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-worker-start-'));
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await tdb.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs without loading the HTTP app, and with its database driver and webhook client', async () => {
    const file = join(dir, 'loaded.txt');
    const child = spawn(process.execPath, ['--require', await writeLoadHook(dir), BIN, 'worker'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: tdb.url as string, LOADED_FILE: file, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    try {
      let out = '';
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('delivery worker and modification processor running')) resolve();
        });
        void exited.then((code) => reject(new Error(`the worker exited ${code}: ${out}`)));
      });
    } finally {
      // Stopped whether or not it started, so that no worker outlives the test.
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const packages = (await readFile(file, 'utf8')).split('\n');
    expect(packages).toEqual(expect.arrayContaining(['pg', 'undici', 'prom-client']));
    expect(packages.filter((p) => ['fastify', '@fastify/swagger', 'qrcode'].includes(p))).toEqual([]);
  });
});
