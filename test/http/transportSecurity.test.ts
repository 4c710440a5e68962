import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, type TestContext } from '../helpers/app.js';

// Strict-Transport-Security (docs/running.md, Production): in production with an https public
// address, every answer tells the browser to come back only over https for a year: the pages, the
// API, the API reference, its errors, and the errors raised before a route is found. Never over http
// or in development, where it would lock a browser out of a local http service.

const PROD = { PAYLINKS_ENV: 'production', PAYLINKS_SECRET_KEY: 'ab'.repeat(32) };

/** One request of every kind the service answers. */
function everyKind(ctx: TestContext): Promise<LightMyRequestResponse>[] {
  const key = { 'x-api-key': ctx.merchant.apiKey };
  return [
    ctx.app.inject({ method: 'GET', url: '/portal/sign-in' }),
    ctx.app.inject({ method: 'GET', url: '/pay/pl_nosuchlink00000000000' }),
    ctx.app.inject({ method: 'GET', url: '/api/v1/paymentlinks/pl_nosuchlink00000000000', headers: key }),
    ctx.app.inject({ method: 'POST', url: '/api/v1/paymentlinks/create', headers: { ...key, 'content-type': 'application/json' }, payload: '{' }),
    ctx.app.inject({ method: 'GET', url: '/api/v1/webhooks' }),
    ctx.app.inject({ method: 'GET', url: '/docs' }),
    ctx.app.inject({ method: 'GET', url: '/healthz' }),
    ctx.app.inject({ method: 'GET', url: '/no/such/page' }),
    ctx.app.inject({ method: 'GET', url: '/api/v1/webhooks/%E0%A4%A' }),
    ctx.app.inject({ method: 'GET', url: `/api/v1/webhooks/${'a'.repeat(300)}` }),
  ];
}

describe('Strict-Transport-Security in production over https', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ ...PROD, PUBLIC_BASE_URL: 'https://pay.example.com' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('is on every answer, for at least a year', async () => {
    const answers = await Promise.all(everyKind(ctx));
    // The bad percent-encoding is answered before any route is found (no hook runs); the over-long
    // identifier reaches its route, where a caller without a key is 401 first.
    expect(answers.map((a) => a.statusCode)).toEqual([200, 404, 404, 400, 401, 200, 200, 404, 400, 401]);
    for (const a of answers) {
      const value = String(a.headers['strict-transport-security']);
      const maxAge = Number(/^max-age=(\d+)/.exec(value)?.[1]);
      expect(maxAge, `${value} on a ${a.statusCode}`).toBeGreaterThanOrEqual(365 * 86_400);
    }
  });
});

describe('no Strict-Transport-Security without https in production', () => {
  for (const [name, env] of [
    ['development with an https address', { PUBLIC_BASE_URL: 'https://pay.example.com' }],
    ['production with an http address', { ...PROD, PUBLIC_BASE_URL: 'http://pay.internal' }],
  ] as const) {
    it(name, async () => {
      const ctx = await createTestContext(env);
      try {
        for (const a of await Promise.all(everyKind(ctx))) expect(a.headers['strict-transport-security']).toBeUndefined();
      } finally {
        await ctx.close();
      }
    });
  }
});
