import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../src/accounts/service.js';
import { hashSecret } from '../../src/ids.js';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { FUTURE_EXPIRY, Shopper } from '../checkout/fixtures.js';
import { buildWorld, type World } from './world.js';

// Issue 7, property 5: API keys stored only hashed (§Authentication); each webhook's apiKey and hmacKey, and the
// stored replay of their registration (§Idempotent creates), encrypted at rest under PAYLINKS_SECRET_KEY; no secret,
// card number or CVC in any log line (at trace), error body or page.

const SECRET_KEY = randomBytes(32).toString('hex');
const CARD = '4242424242424242';
const CVC = '987';

/** Every row of every table as JSON text, one line per row. */
async function dumpDatabase(ctx: TestContext): Promise<string> {
  const { rows: tables } = await ctx.tdb.db.pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  const out: string[] = [];
  for (const { table_name } of tables) {
    const { rows } = await ctx.tdb.db.pool.query<{ row: unknown }>(`SELECT to_jsonb(t) AS row FROM "${table_name}" t`);
    for (const r of rows) out.push(`${table_name}: ${JSON.stringify(r.row)}`);
  }
  return out.join('\n');
}

describe('secrets at rest and in logs (§Hardening)', () => {
  let ctx: TestContext;
  let world: World;
  const secrets: string[] = [];
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'trace', PAYLINKS_SECRET_KEY: SECRET_KEY });
    world = await buildWorld(ctx);
    secrets.push(world.a.apiKey, world.b.apiKey, world.partner.apiKey);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('stores API keys only as SHA-256 hashes, and webhook secrets and their replay only sealed', async () => {
    const idem = { headers: { 'idempotency-key': 'reg-1' } };
    const first = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/sealed' }, idem);
    expect(first.status).toBe(200);
    const replay = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/sealed' }, idem);
    expect(replay.body).toMatchObject({ webhookId: first.body.webhookId, apiKey: first.body.apiKey, hmacKey: first.body.hmacKey });
    const rotated = await call(ctx, 'POST', `/api/v1/webhooks/${first.body.webhookId as string}/rotate-secrets`, undefined);
    expect(rotated.status).toBe(200);
    const webhookSecrets = [first.body.apiKey, first.body.hmacKey, rotated.body.apiKey, rotated.body.hmacKey] as string[];
    secrets.push(...webhookSecrets);

    const dump = await dumpDatabase(ctx);
    for (const s of [...secrets, ...webhookSecrets]) expect(dump).not.toContain(s);
    // The hash is what is there (§Authentication).
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE key_hash = $1', [hashSecret(world.a.apiKey)]);
    expect(rows[0]?.n).toBe(1);
    const { rows: sealed } = await ctx.tdb.db.pool.query<{ api_key_sealed: string; hmac_key_sealed: string }>(
      'SELECT api_key_sealed, hmac_key_sealed FROM webhooks',
    );
    for (const r of sealed) {
      expect(r.api_key_sealed).toMatch(/^v1:[0-9a-f]{8}:/);
      expect(r.hmac_key_sealed).toMatch(/^v1:[0-9a-f]{8}:/);
    }
    const { rows: stored } = await ctx.tdb.db.pool.query<{ response_body: Record<string, unknown> }>(
      "SELECT response_body FROM idempotency_keys WHERE idempotency_key = 'reg-1'",
    );
    expect(Object.keys(stored[0]?.response_body ?? {})).toEqual(['sealed']);
  });

  it('deliveries are signed and authorised with the opened secrets (the seal is transparent)', async () => {
    const reg = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/signed', eventTypes: ['Adjustment'] });
    const ev = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Adjustment', amount: 100, currency: 'EUR' });
    const { rows } = await ctx.tdb.db.pool.query<{ body: string }>('SELECT body FROM webhook_deliveries WHERE webhook_id = $1 AND payfac_reference = $2', [
      reg.body.webhookId,
      ev.body.payfacReference,
    ]);
    const body = JSON.parse(rows[0]?.body ?? '{}') as Record<string, string>;
    const { hmacSignature } = await import('../../src/webhooks/delivery/sign.js');
    expect(body.hmacSignature).toBe(hmacSignature(reg.body.hmacKey as string, body as never));
    secrets.push(reg.body.apiKey as string, reg.body.hmacKey as string);
  });

  it('never writes a secret, card number or CVC to a log line, an error body or a page', async () => {
    const bodies: string[] = [];
    const keep = (r: { res: { body: string } }) => bodies.push(r.res.body);
    // Secrets sent where they do not belong: unknown fields, wrong headers, bad keys.
    keep(await call(ctx, 'POST', '/api/v1/paymentlinks/create', { apiKey: world.a.apiKey, hmacKey: secrets[3], cardNumber: CARD, cvc: CVC }));
    keep(await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: `${world.a.apiKey}x` }));
    keep(
      await call(ctx, 'POST', '/api/v1/payment', {
        terminalIdentifier: world.a.terminalIdentifier,
        amount: 1,
        currency: 'EUR',
        reference: 'r',
        returnUrl: 'https://x.example',
        channel: 'Web',
        tokenDetails: { tokenValue: CARD, recurringProcessingModel: 'CardOnFile' },
        cvc: CVC,
      }),
    );
    const revoked = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks']);
    await revokeKey(asOperator(ctx), revoked.keyId);
    keep(await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: revoked.apiKey }));
    secrets.push(revoked.apiKey);
    // A card on the page: refused, mistyped, and paid.
    const link = world.a.linkReference;
    for (const fields of [
      { cardNumber: '4000000000000002', expiryDate: FUTURE_EXPIRY, cvc: CVC },
      { cardNumber: CARD, expiryDate: '13/99', cvc: CVC },
      { cardNumber: `${CARD.slice(0, 8)} ${CARD.slice(8)}`, expiryDate: FUTURE_EXPIRY, cvc: CVC },
    ]) {
      const s = new Shopper(ctx);
      await s.get(`/pay/${link}`);
      const res = await s.post(`/pay/${link}`, fields);
      bodies.push(res.body);
      if (res.statusCode === 303) bodies.push((await s.get(res.headers.location as string)).body);
    }
    const logs = ctx.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(ctx.logs.some((l) => l.includes('"level":10') || l.includes('"level":20') || l.includes('"level":30'))).toBe(true);
    for (const where of [logs, ...bodies]) {
      for (const s of secrets) expect(where).not.toContain(s);
      expect(where).not.toContain(CARD);
      expect(where).not.toMatch(/4242\D?4242\D?4242\D?4242/);
      expect(where).not.toMatch(new RegExp(`cvc\\W{0,8}${CVC}`, 'i'));
      expect(where).not.toContain(SECRET_KEY);
    }
  });
});
