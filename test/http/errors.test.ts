import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { createKey } from '../../src/accounts/service.js';

// §Errors and §Status codes at the HTTP boundary: every failure is problem+json with the envelope, and each class
// of bad request gets its own status and code. A rejected request writes nothing.

const PROBLEM = /^application\/problem\+json/;

describe('standard error form and status codes (§Errors, §Status codes)', () => {
  let ctx: TestContext;
  const count = async (): Promise<number> => (await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links')).rows[0]?.n ?? -1;

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  const cases: { name: string; headers?: Record<string, string>; body: string; status: number; code: string }[] = [
    { name: 'malformed JSON', body: '{"type": "PayByLink",', status: 400, code: 'MALFORMED_JSON' },
    { name: 'an empty JSON body', body: '', status: 400, code: 'MALFORMED_JSON' },
    { name: 'a JSON array instead of an object', body: '[1,2]', status: 400, code: 'VALIDATION_FAILED' },
    { name: 'a prototype-poisoning body', body: '{"__proto__": {"x": 1}}', status: 400, code: 'MALFORMED_JSON' },
    { name: 'a text/plain body', headers: { 'content-type': 'text/plain' }, body: 'hello', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'a form body', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'a body over 1 MiB', body: JSON.stringify({ description: 'x'.repeat(1024 * 1024) }), status: 413, code: 'PAYLOAD_TOO_LARGE' },
  ];

  for (const c of cases) {
    it(`answers ${c.name} with ${c.status} ${c.code} and writes nothing`, async () => {
      const before = await count();
      const r = await call(ctx, 'POST', '/api/v1/paymentlinks/create', c.body, { headers: { 'content-type': 'application/json', ...c.headers } });
      expect(r.status).toBe(c.status);
      expect(r.res.headers['content-type']).toMatch(PROBLEM);
      expect(r.body).toMatchObject({ type: 'about:blank', status: c.status, code: c.code });
      expect(r.body.message).toBe(r.body.detail);
      expect(typeof r.body.responseIdentifier).toBe('string');
      expect(await count()).toBe(before);
    });
  }

  it('answers a missing key, an unknown key and a key without the capability with 401, 401, 403', async () => {
    const none = await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: null });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHENTICATED');
    const unknown = await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: 'pk_notarealkeynotarealkeynotarealkey' });
    expect(unknown.status).toBe(401);
    const webhooksOnly = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['Webhooks']);
    const forbidden = await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: webhooksOnly.apiKey });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
  });

  it('matches the X-API-Key header name without regard to case (§Authentication)', async () => {
    const r = await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: null, headers: { 'X-API-KEY': ctx.merchant.apiKey } });
    expect(r.status).toBe(200);
  });

  it('authenticates before it reads the body: no key and a bad body is 401, not 400/413/415', async () => {
    const r = await call(ctx, 'POST', '/api/v1/paymentlinks/create', 'not json', { apiKey: null, headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(401);
  });

  it('answers a wrong method on a known path with 405 and Allow', async () => {
    for (const path of ['create', 'update', 'disable']) {
      const g = await call(ctx, 'GET', `/api/v1/paymentlinks/${path}`);
      expect(g.status).toBe(405);
      expect(g.res.headers.allow).toBe('POST');
    }
    const d = await call(ctx, 'DELETE', '/api/v1/paymentlinks');
    expect(d.status).toBe(405);
    expect(d.body.code).toBe('METHOD_NOT_ALLOWED');
    expect(String(d.res.headers.allow).split(', ')).toContain('GET');
    expect(d.res.headers['content-type']).toMatch(PROBLEM);
  });

  it('never shows an internal detail or a secret in an error body', async () => {
    const r = await call(ctx, 'POST', '/api/v1/paymentlinks/create', { cardNumber: '4242424242424242', cvc: '123' });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).not.toContain('4242424242424242');
    expect(ctx.logs.join('\n')).not.toContain('4242424242424242');
  });
});
