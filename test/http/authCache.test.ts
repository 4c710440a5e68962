import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { OPERATOR } from '../../src/actor.js';
import { PrincipalCache, createKey, listKeys, revokeKey } from '../../src/accounts/service.js';
import { call, createTestContext, asOperator } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

describe('principal cache (§Authentication keys, looked up once every few seconds)', () => {
  let tdb: TestDatabase;
  let merchantId: string;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    merchantId = 'mch_cache';
    await tdb.db.pool.query("INSERT INTO merchants (id, name) VALUES ($1, 'Cache')", [merchantId]);
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('serves a resolved key from memory until its time is up, then sees a revocation', async () => {
    let t = 0;
    const cache = new PrincipalCache(5_000, 100, () => t);
    const k = await createKey({ db: tdb.db, clock: systemClock, actor: OPERATOR }, { merchantId }, ['PaymentLinks']);
    expect(await cache.resolve(tdb.db, k.apiKey)).toMatchObject({ kind: 'merchant', merchantId });
    await revokeKey({ db: tdb.db, clock: systemClock, actor: OPERATOR }, k.keyId);
    t = 4_999;
    expect(await cache.resolve(tdb.db, k.apiKey)).toMatchObject({ merchantId });
    t = 5_000;
    expect(await cache.resolve(tdb.db, k.apiKey)).toBeUndefined();
  });

  it('without a cache (the default), refuses a key at once after its revocation (§Authentication), also for lookups made together', async () => {
    const cache = new PrincipalCache(0);
    const k = await createKey({ db: tdb.db, clock: systemClock, actor: OPERATOR }, { merchantId }, ['PaymentLinks']);
    const together = await Promise.all([cache.resolve(tdb.db, k.apiKey), cache.resolve(tdb.db, k.apiKey), cache.resolve(tdb.db, `pk_${'u'.repeat(43)}`)]);
    expect(together.map((p) => p?.kind)).toEqual(['merchant', 'merchant', undefined]);
    await revokeKey({ db: tdb.db, clock: systemClock, actor: OPERATOR }, k.keyId);
    expect(await cache.resolve(tdb.db, k.apiKey)).toBeUndefined();
  });

  it('does not remember unknown keys, and stays within its bound', async () => {
    let t = 0;
    const cache = new PrincipalCache(5_000, 2, () => t);
    expect(await cache.resolve(tdb.db, 'pk_unknownunknownunknownunknown')).toBeUndefined();
    const keys = await Promise.all([1, 2, 3].map(() => createKey({ db: tdb.db, clock: systemClock, actor: OPERATOR }, { merchantId }, ['Webhooks'])));
    for (const k of keys) expect(await cache.resolve(tdb.db, k.apiKey)).toBeDefined();
    // The first key was evicted: revoking it is seen at once, while the newest is still cached.
    await revokeKey({ db: tdb.db, clock: systemClock, actor: OPERATOR }, keys[0]!.keyId);
    await revokeKey({ db: tdb.db, clock: systemClock, actor: OPERATOR }, keys[2]!.keyId);
    t = 1;
    expect(await cache.resolve(tdb.db, keys[0]!.apiKey)).toBeUndefined();
    expect(await cache.resolve(tdb.db, keys[2]!.apiKey)).toBeDefined();
  });
});

describe('when each API key was last used', () => {
  it('is recorded in batches, not on the request path, and shown by the key list without the secret', async () => {
    const ctx = await createTestContext();
    try {
      const used = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks']);
      const unused = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks']);
      expect((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: used.apiKey })).status).toBe(200);
      // Nothing is written while the process runs between flushes ...
      const before = await listKeys(ctx.tdb.db, { merchantId: ctx.merchant.merchantId });
      expect(before.find((k) => k.keyId === used.keyId)?.lastUsedAt).toBeNull();
      // ... and the app writes what it noted when it closes (and every minute meanwhile).
      await ctx.app.close();
      const keys = await listKeys(ctx.tdb.db, { merchantId: ctx.merchant.merchantId });
      expect(keys.find((k) => k.keyId === used.keyId)?.lastUsedAt).toBe(ctx.clock.now().toISOString());
      expect(keys.find((k) => k.keyId === unused.keyId)?.lastUsedAt).toBeNull();
      for (const k of keys) {
        expect(k.display).toMatch(/^pk_.{4}….{4}$/);
        expect(JSON.stringify(keys)).not.toContain(used.apiKey);
      }
      expect(keys.find((k) => k.keyId === used.keyId)?.display).toBe(`${used.apiKey.slice(0, 7)}…${used.apiKey.slice(-4)}`);
    } finally {
      await ctx.tdb.drop();
    }
  });
});
