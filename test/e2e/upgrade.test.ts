import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { simulatorAcquirer } from '../../src/payments/simulator.js';
import { createSealer } from '../../src/sealing.js';
import { ADMIN_URL } from '../helpers/globalSetup.js';

// Upgrades without downtime (docs/production.md, "Upgrades"; docs/style.md, "Migrations expand, then
// contract"): the previous release's `paylinks serve` runs on a PostgreSQL database while this tree's
// migrations are applied under it, and keeps answering the API (create a link, list links) and the
// shopper's page of a link, with no 5xx, during and after; then beside this tree's app, as in the
// middle of a roll, each reading the links the other makes.
//
// The previous release is the commit before the one that added this tree's newest migration (or
// PAYLINKS_UPGRADE_FROM, any commit): taken out of the repository's history with `git archive`, given
// this tree's node_modules, and compiled with tsc without its type check (a few seconds; the release
// was checked when it was made). The embedded database admits one process, so an upgrade under a
// running server is PostgreSQL's: vitest.config.ts runs this file in the postgres project only.

const ROOT = join(import.meta.dirname, '../..');
const run = promisify(execFile);

async function git(...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
}

/**
 * The commit of the previous release: the one before this tree's newest migration was added, as long
 * as its migrations are the first of this tree's under the same names. A migration renumbered when
 * branches met (its file renamed) makes that commit's list differ; then the one before the next
 * newest migration is tried, and so on.
 */
async function previousRelease(): Promise<{ commit: string; newest: string }> {
  const ours = loadMigrations().map((m) => m.name);
  const newest = ours.at(-1) ?? '';
  const from = process.env.PAYLINKS_UPGRADE_FROM;
  if (from) return { commit: await git('rev-parse', '--verify', `${from}^{commit}`), newest };
  for (let i = ours.length - 1; i >= 0; i--) {
    const name = ours[i] ?? '';
    // --no-renames: a migration renamed into this name counts as added there.
    const added = await git('log', '-1', '--no-renames', '--diff-filter=A', '--format=%H', '--', `migrations/${name}.sql`).catch((err: unknown) => {
      throw new Error(`the upgrade test takes the previous release from the repository's history (git log): ${String(err)}`);
    });
    // A migration not committed yet: the previous release is the commit checked out.
    if (added === '') return { commit: await git('rev-parse', 'HEAD'), newest };
    const parent = await git('rev-parse', '--verify', '--quiet', `${added}^`).catch(() => '');
    if (parent === '') throw new Error(`commit ${added} that added migrations/${name}.sql has no parent here: a shallow clone? (git fetch --unshallow)`);
    const theirs = (await git('ls-tree', '--name-only', parent, 'migrations/'))
      .split('\n')
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.replace(/^migrations\//, '').replace(/\.sql$/, ''))
      .sort();
    if (theirs.length > 0 && theirs.length < ours.length && theirs.every((n, k) => n === ours[k])) return { commit: parent, newest };
  }
  throw new Error("no earlier commit whose migrations are the first of this tree's");
}

/** The release's files at that commit, with this tree's dependencies, compiled to its dist/. */
async function buildRelease(commit: string, dir: string): Promise<void> {
  await run('git', ['archive', '--format=tar', '-o', join(dir, 'release.tar'), commit], { cwd: ROOT });
  await run('tar', ['-xf', join(dir, 'release.tar'), '-C', dir]);
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noCheck'], { cwd: dir });
  if (!existsSync(join(dir, 'dist/cli.js'))) throw new Error(`the release at ${commit} did not compile to dist/cli.js`);
}

interface Server {
  proc: ChildProcessWithoutNullStreams;
  output: () => string;
  baseUrl: string;
}

async function startServe(bin: string, env: Record<string, string>): Promise<Server> {
  const proc = spawn(process.execPath, [bin, 'serve'], { env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', ...env } });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 30_000;
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, output: () => out, baseUrl: /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '' };
}

/** One answer of the old server, with when its request started and ended. */
interface Answer {
  what: 'create' | 'list' | 'read' | 'pay page';
  status: number;
  startedAt: number;
  endedAt: number;
  detail: string;
}

describe('an upgrade under the previous release’s running serve (docs/production.md, "Upgrades")', () => {
  let dir = '';
  let dbName = '';
  let server: Server | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-upgrade-'));
  });
  afterAll(async () => {
    if (server && server.proc.exitCode === null) server.proc.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    if (dbName) {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).finally(() => admin.end());
    }
  });

  it('the previous release keeps answering the API and the pay page, with no 5xx, while this tree’s migrations are applied and after', async () => {
    const { commit, newest } = await previousRelease();
    await buildRelease(commit, dir);
    const oldBin = join(dir, 'bin/paylinks.js');

    // An empty database that the previous release migrates as it starts.
    dbName = `paylinks_up_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`).finally(() => admin.end());
    const url = new URL(ADMIN_URL);
    url.pathname = `/${dbName}`;
    const databaseUrl = url.toString();

    server = await startServe(oldBin, { DATABASE_URL: databaseUrl });
    const made = await run(process.execPath, [oldBin, 'merchant', 'create', '--name', 'Upgrade shop', '--json'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    });
    const merchant = JSON.parse(made.stdout) as { apiKey: string; terminalIdentifier: string };
    const base = server.baseUrl;

    const answers: Answer[] = [];
    const ask = async (what: Answer['what'], path: string, init: RequestInit = {}): Promise<{ status: number; body: string }> => {
      const startedAt = performance.now();
      let status = 0;
      let body = '';
      try {
        const res = await fetch(`${base}${path}`, init);
        status = res.status;
        body = await res.text();
      } catch (err) {
        // A connection refused or reset counts as an outage too.
        body = String(err);
      }
      answers.push({ what, status, startedAt, endedAt: performance.now(), detail: body.slice(0, 300) });
      return { status, body };
    };
    const headers = { 'x-api-key': merchant.apiKey, 'content-type': 'application/json' };
    let n = 0;
    /** One shopper's and merchant's round: make a link, list the links, open the link's page. */
    const round = async (): Promise<void> => {
      n += 1;
      const created = await ask('create', '/api/v1/paymentlinks/create', {
        method: 'POST',
        headers,
        body: JSON.stringify({
          type: 'PayByLink',
          terminalIdentifier: merchant.terminalIdentifier,
          amount: 4900,
          currency: 'ISK',
          description: `Upgrade round ${n}`,
          items: [{ name: 'Wool socks', quantity: 1, unitPrice: 4900, amountWithoutDiscount: 4900, amount: 4900 }],
        }),
      });
      await ask('list', '/api/v1/paymentlinks?pageSize=5', { headers: { 'x-api-key': merchant.apiKey } });
      const reference = created.status === 200 ? (JSON.parse(created.body) as { paymentLinkReference?: string }).paymentLinkReference : undefined;
      if (reference) await ask('pay page', `/pay/${reference}`);
    };

    // Links made before the upgrade, for the migrations to find.
    for (let i = 0; i < 10; i++) await round();
    let running = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (running) await round();
      }),
    );

    // This tree's migrations, by the function `paylinks migrate` and `serve` run, while the old server serves.
    await new Promise((r) => setTimeout(r, 300));
    const db = await openDatabase({ databaseUrl, dataDir: '' });
    const migrationStart = performance.now();
    const applied = await migrate(db).catch(async (err: unknown) => {
      await db.close();
      throw err;
    });
    const migrationEnd = performance.now();

    // And the old server keeps working on the new schema, beside a process of this tree (the roll's
    // middle): each reads the links the other makes.
    const config = parseConfig({ PUBLIC_BASE_URL: 'http://paylinks.test', LOG_LEVEL: 'warn' });
    const app = await buildApp({
      config,
      db,
      clock: systemClock,
      acquirer: simulatorAcquirer,
      sealer: createSealer(config.secretKey),
      logger: pino({ level: 'warn' }),
    });
    const side: { what: string; status: number }[] = [];
    try {
      await app.ready();
      const linkBody = (description: string) => ({
        type: 'PayByLink',
        terminalIdentifier: merchant.terminalIdentifier,
        amount: 4900,
        currency: 'ISK',
        description,
        items: [{ name: 'Wool socks', quantity: 1, unitPrice: 4900, amountWithoutDiscount: 4900, amount: 4900 }],
      });
      const deadline = Date.now() + 2_000;
      while (Date.now() < deadline) {
        const made = await app.inject({
          method: 'POST',
          url: '/api/v1/paymentlinks/create',
          headers: { 'x-api-key': merchant.apiKey },
          payload: linkBody('new'),
        });
        side.push({ what: 'new creates', status: made.statusCode });
        const newRef = (made.json() as { paymentLinkReference?: string }).paymentLinkReference ?? '';
        side.push({
          what: 'old reads new',
          status: (await ask('read', `/api/v1/paymentlinks/${newRef}`, { headers: { 'x-api-key': merchant.apiKey } })).status,
        });
        const old = await ask('create', '/api/v1/paymentlinks/create', { method: 'POST', headers, body: JSON.stringify(linkBody('old')) });
        const oldRef = (JSON.parse(old.body) as { paymentLinkReference?: string }).paymentLinkReference ?? '';
        const read = await app.inject({ method: 'GET', url: `/api/v1/paymentlinks/${oldRef}`, headers: { 'x-api-key': merchant.apiKey } });
        side.push({ what: 'new reads old', status: read.statusCode });
        side.push({ what: 'new pay page of old', status: (await app.inject({ method: 'GET', url: `/pay/${oldRef}` })).statusCode });
      }
    } finally {
      running = false;
      await load;
      await app.close();
      await db.close();
    }

    const exited = new Promise<number | null>((resolve) => server?.proc.once('exit', (code) => resolve(code)));
    server.proc.kill('SIGTERM');
    expect(await exited, server.output()).toBe(0);

    expect(applied, `previous release ${commit}`).toContain(newest);
    const failed = answers.filter((a) => a.status !== 200);
    expect(failed, `answers other than 200 from the release at ${commit}`).toEqual([]);
    expect(
      side.filter((a) => a.status !== 200),
      'this tree beside the previous release',
    ).toEqual([]);
    expect(side.length).toBeGreaterThan(0);
    expect(server.output()).not.toMatch(/"level":50|"level":60/);
    const across = answers.filter((a) => a.endedAt >= migrationStart && a.startedAt <= migrationEnd);
    const after = answers.filter((a) => a.startedAt > migrationEnd);
    expect(across.length, 'requests in flight while the migrations ran').toBeGreaterThan(0);
    for (const what of ['create', 'list', 'pay page'] as const) expect(after.filter((a) => a.what === what).length, what).toBeGreaterThan(0);
  }, 120_000);
});
