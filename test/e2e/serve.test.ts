import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, stopServe, type Server } from '../helpers/bin.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

// The README's promise (§Running the service): `npm start` runs `paylinks serve`, on the embedded database when no
// DATABASE_URL is set, prints a working sandbox key on first start, keeps data across restarts and
// exits 0 on SIGTERM. This drives the built bin as a user would.

async function api(s: Server, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('paylinks serve, as a new user runs it (§Running the service)', () => {
  let dir: string;
  let tdb: TestDatabase | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-serve-'));
    if (TEST_DB === 'postgres') tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await tdb?.drop();
  });

  it.skipIf(TEST_DB !== 'pglite')(
    'on the embedded database prints a sandbox key that works, keeps data across a restart, exits 0 on SIGTERM',
    async () => {
      const env = { PAYLINKS_DATA_DIR: join(dir, 'data') };
      const first = await startServe(env);
      const key = /apiKey\s+(\S+)/.exec(first.output())?.[1];
      const terminal = /terminalIdentifier\s+(\S+)/.exec(first.output())?.[1];
      expect(key).toMatch(/^pk_/);
      expect(terminal).toMatch(/^[A-Za-z0-9]{12}$/);
      const health = await fetch(`${first.baseUrl}/readyz`);
      expect(health.status).toBe(200);
      const created = await api(first, key as string, 'POST', '/api/v1/paymentlinks/create', {
        type: 'PayByLink',
        terminalIdentifier: terminal,
        amount: 48900,
        currency: 'ISK',
        description: 'Survives restarts',
        items: [{ name: 'Thing', quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
      });
      expect(created.status).toBe(200);
      const ref = created.body.paymentLinkReference as string;
      expect(await stopServe(first)).toBe(0);

      const second = await startServe(env);
      expect(second.output()).not.toMatch(/apiKey\s+pk_/); // the sandbox merchant is created only once
      const got = await api(second, key as string, 'GET', `/api/v1/paymentlinks/${ref}`);
      expect(got.status).toBe(200);
      expect((got.body.paymentLink as Record<string, unknown>).description).toBe('Survives restarts');
      expect(await stopServe(second)).toBe(0);
    },
    120_000,
  );

  it.skipIf(TEST_DB !== 'postgres')(
    'on PostgreSQL from DATABASE_URL migrates, serves and exits 0 on SIGTERM',
    async () => {
      const s = await startServe({ DATABASE_URL: tdb?.url as string });
      const ready = await fetch(`${s.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(s.output()).not.toContain('sandbox merchant was created');
      expect(await stopServe(s)).toBe(0);
    },
    120_000,
  );
});
