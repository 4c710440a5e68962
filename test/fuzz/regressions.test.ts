import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';

// What the route fuzzer found (§Hardening), kept as plain examples: each answered 500 or a non-§Errors body.

describe('inputs the fuzzer found', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('a NUL in a path parameter is a §Errors field error, not a database error', async () => {
    const r = await call(ctx, 'GET', '/api/v1/paymentlinks/pl_%00x');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'reference', code: 'FORMAT' }] });
  });

  it('a NUL in a body string and in a property name is reported with the other field errors', async () => {
    const r = await call(ctx, 'POST', '/api/v1/paymentlinks/create', {
      type: 'PayByLink',
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 'x',
      currency: 'EUR',
      description: 'a\u0000b',
      items: [],
    });
    expect(r.status).toBe(400);
    const fields = (r.body.errors as { field: string; code: string }[]).map((e) => `${e.field}:${e.code}`);
    expect(fields).toContain('description:FORMAT');
    expect(fields).toContain('amount:TYPE');
    const s = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Adjustment', amount: 1, currency: 'EUR', additionalData: { 'k\u0000': 'v' } });
    expect(s.status).toBe(400);
    expect(s.body).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('a path parameter over the length limit and a URL that is not valid percent-encoding answer in §Errors form', async () => {
    const long = await call(ctx, 'GET', `/api/v1/webhooks/${'a'.repeat(300)}`);
    expect(long.status).toBe(404);
    expect(long.res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(long.body).toMatchObject({ code: 'NOT_FOUND', responseIdentifier: expect.any(String) });
    const bad = await call(ctx, 'GET', '/api/v1/webhooks/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('a create without a body under an Idempotency-Key that was used before is a §Errors error, not a 500 (§Idempotent creates)', async () => {
    const key = { headers: { 'idempotency-key': 'used-once' } };
    expect((await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/x' }, key)).status).toBe(200);
    for (const url of ['/api/v1/webhooks', '/api/v1/paymentlinks/create', '/api/v1/hostedcheckout', '/api/v1/payment']) {
      const r = await ctx.app.inject({ method: 'POST', url, headers: { 'x-api-key': ctx.merchant.apiKey, 'idempotency-key': 'used-once' } });
      expect(r.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(r.statusCode, url).toBeLessThan(500);
      const deep = await ctx.app.inject({
        method: 'POST',
        url,
        headers: { 'x-api-key': ctx.merchant.apiKey, 'idempotency-key': 'used-once', 'content-type': 'application/json' },
        payload: `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
      });
      expect([400, 409], `${url} deep`).toContain(deep.statusCode);
    }
  });

  it('a shopper page posted an empty JSON body or a NUL reference answers 4xx, not 500', async () => {
    const empty = await ctx.app.inject({ method: 'POST', url: '/pay/pl_x', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(empty.statusCode).toBe(400);
    // A reference with a NUL cannot be one of ours: the page answers 404 without asking the database
    // (docs/performance.md; it used to be the database's refusal, answered 400).
    const nul = await ctx.app.inject({ method: 'GET', url: '/checkout/cs_%00' });
    expect(nul.statusCode).toBe(404);
    expect(nul.headers['content-type']).toMatch(/^text\/html/);
  });
});
