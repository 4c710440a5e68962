import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';
import { authenticate } from '../../src/accounts/service.js';
import { openDatabase, type Database } from '../../src/db/database.js';

// The account commands of §Running the service/§Webhooks, run through the built bin against this project's database kind.

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/paylinks.js');

describe('paylinks account commands (§Authentication, §Webhooks, §Running the service)', () => {
  let dir: string;
  let tdb: TestDatabase | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-cli-'));
    if (TEST_DB === 'postgres') {
      tdb = await createTestDatabase();
      env = { DATABASE_URL: tdb.url as string };
    } else {
      env = { PAYLINKS_DATA_DIR: join(dir, 'data') };
      // An account command does not create a database; the operator's first step does.
      await run(process.execPath, [BIN, 'migrate'], { env: { PATH: process.env.PATH ?? '', ...env } });
    }
  });
  afterAll(async () => {
    await tdb?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  async function paylinks(...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    const last = stdout.trim().split('\n').at(-1) ?? '';
    return JSON.parse(last) as Record<string, unknown>;
  }

  async function open(): Promise<Database> {
    return openDatabase({ databaseUrl: env.DATABASE_URL ?? null, dataDir: env.PAYLINKS_DATA_DIR ?? '' });
  }

  it('creates merchants, terminals, keys and partners, printing one JSON object last', async () => {
    const m = await paylinks('merchant', 'create', '--name', 'Kaffi ehf', '--json');
    expect(m.merchantId).toMatch(/^mch_/);
    expect(m.terminalIdentifier).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(m.apiKey).toMatch(/^pk_/);

    const t = await paylinks('terminal', 'add', '--merchant', m.merchantId as string, '--json');
    expect(t.terminalIdentifier).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(t.terminalIdentifier).not.toBe(m.terminalIdentifier);

    const k = await paylinks('key', 'create', '--merchant', m.merchantId as string, '--capabilities', 'PaymentLinks,Webhooks', '--json');
    expect(k.capabilities).toEqual(['PaymentLinks', 'Webhooks']);

    const p = await paylinks('partner', 'create', '--name', 'Plugin house', '--json');
    expect(p.partnerId).toMatch(/^ptn_/);
    const l = await paylinks('partner', 'link', '--partner', p.partnerId as string, '--merchant', m.merchantId as string, '--json');
    expect(l.linked).toBe(true);

    const db = await open();
    try {
      // Keys are stored only hashed (§Authentication), and each resolves to its owner with its capabilities.
      const { rows } = await db.pool.query<{ key_hash: Buffer }>('SELECT key_hash FROM api_keys');
      for (const r of rows) expect(r.key_hash.toString('utf8')).not.toContain('pk_');
      const merchantKey = await authenticate(db, m.apiKey as string);
      expect(merchantKey).toMatchObject({ kind: 'merchant', merchantId: m.merchantId });
      expect([...(merchantKey?.capabilities ?? [])].sort()).toEqual(['HostedCheckout', 'PaymentLinks', 'TokenizeLinks', 'Webhooks']);
      expect([...((await authenticate(db, k.apiKey as string))?.capabilities ?? [])]).toEqual(['PaymentLinks', 'Webhooks']);
      expect(await authenticate(db, p.apiKey as string)).toMatchObject({ kind: 'partner', partnerId: p.partnerId });
    } finally {
      await db.close();
    }
  }, 60_000);

  it('refuses an unknown capability and an unknown merchant with a message and a non-zero exit', async () => {
    await expect(paylinks('key', 'create', '--merchant', 'mch_x', '--capabilities', 'Everything', '--json')).rejects.toMatchObject({
      stderr: expect.stringContaining('unknown capability Everything'),
    });
    await expect(paylinks('terminal', 'add', '--merchant', 'mch_nobody', '--json')).rejects.toMatchObject({
      stderr: expect.stringContaining('merchant mch_nobody not found'),
    });
  }, 60_000);

  it('sets and shows a merchant’s settlement fees, refusing bad ones with every field named', async () => {
    const m = await paylinks('merchant', 'create', '--name', 'Gjald ehf', '--json');
    const id = m.merchantId as string;
    expect(await paylinks('merchant', 'fees', '--merchant', id, '--json')).toEqual({
      merchantId: id,
      fees: [],
      default: { currency: '*', percentBp: 150, percent: '1.50', fixedAmount: 0 },
    });
    const set = await paylinks('merchant', 'fees', '--merchant', id, '--currency', 'isk', '--percent', '2.75', '--fixed', '5000', '--json');
    expect(set.fees).toEqual([{ currency: 'ISK', percentBp: 275, percent: '2.75', fixedAmount: 5000 }]);
    await expect(paylinks('merchant', 'fees', '--merchant', id, '--currency', 'ISK', '--percent', '101', '--fixed', '5050')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/percent must be a percentage from 0 to 100.*fixedAmount must end in 00 for ISK/),
    });
    await expect(paylinks('merchant', 'fees', '--merchant', 'mch_nobody')).rejects.toMatchObject({ stderr: expect.stringContaining('merchant not found') });
  }, 60_000);

  it('refuses an account command where there is no database, names the folder, and creates nothing there', async () => {
    const empty = join(dir, 'not-the-server-folder');
    const failed = await run(process.execPath, [BIN, 'merchant', 'list'], { env: { PATH: process.env.PATH ?? '', PAYLINKS_DATA_DIR: empty } }).then(
      () => null,
      (e: { code?: number; stderr?: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`there is no paylinks database in ${empty}`);
    expect(failed?.stderr).toContain('PAYLINKS_DATA_DIR');
    expect(failed?.stderr).toContain('DATABASE_URL');
    expect(failed?.stderr).toContain('paylinks migrate');
    expect(existsSync(empty)).toBe(false);
  });

  it('prints its version', async () => {
    const { stdout } = await run(process.execPath, [BIN, '--version']);
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('stops with every bad variable named', async () => {
    await expect(run(process.execPath, [BIN, 'migrate'], { env: { PATH: process.env.PATH ?? '', PORT: 'x', PAYLINKS_ENV: 'qa' } })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/PORT[\s\S]*PAYLINKS_ENV/),
    });
  });
});
