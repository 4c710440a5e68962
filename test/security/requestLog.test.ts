import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, createSession, payByLink } from '../checkout/fixtures.js';
import { createUser, newSignInLink } from '../../src/users/service.js';

// The request log never holds a secret that travels in a path (docs/running.md, What the logs never
// contain): one-time sign-in links, the shopper's page references (whoever has one
// can open the page), on the API too, and in paths no route answers. The log is captured as written.

describe('secrets in paths never reach the request log', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'trace' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  /** The request lines written for this path (one per request), as parsed objects. */
  const requestLines = (from: number): { url: string; status: number }[] =>
    ctx.logs
      .slice(from)
      .map((l) => JSON.parse(l) as { msg?: string; url: string; status: number })
      .filter((l) => l.msg === 'request');

  it('one-time sign-in links (a new user’s, and one asked for again) are logged without their token', async () => {
    const signIn = await createUser(ctx.tdb.db, ctx.clock, {
      email: `log.${randomBytes(4).toString('hex')}@example.com`,
      owner: { merchantId: ctx.merchant.merchantId },
      role: 'owner',
      createdBy: null,
    });
    const other = await createUser(ctx.tdb.db, ctx.clock, {
      email: `other.${randomBytes(4).toString('hex')}@example.com`,
      owner: { merchantId: ctx.merchant.merchantId },
      role: 'staff',
      createdBy: null,
    });
    const invite = await newSignInLink(ctx.tdb.db, ctx.clock, other.email);
    const from = ctx.logs.length;
    for (const token of [signIn.token, invite.token]) {
      expect((await ctx.app.inject({ method: 'GET', url: `/portal/link/${token}` })).statusCode).toBe(200);
      // A post without its form token is refused, and logged just the same.
      await ctx.app.inject({ method: 'POST', url: `/portal/link/${token}`, payload: {} });
      // A path no route answers, with the token in it.
      expect((await ctx.app.inject({ method: 'GET', url: `/portal/link/${token}/more` })).statusCode).toBe(404);
    }
    const text = ctx.logs.slice(from).join('\n');
    expect(text).not.toContain(signIn.token);
    expect(text).not.toContain(invite.token);
    const urls = requestLines(from).map((l) => l.url);
    expect(urls).toHaveLength(6);
    expect(urls).toContain('/portal/link/[redacted]');
    expect(urls).toContain('/portal/link/[redacted]/more');
  });

  it("the shopper's page references are logged without them, on the pages and on the API", async () => {
    const link = await createLink(ctx, payByLink(ctx));
    const session = await createSession(ctx);
    const charge = `ck_${randomBytes(16).toString('base64url')}`;
    const unmatched = randomBytes(24).toString('base64url');
    const from = ctx.logs.length;
    const paths = [
      `/pay/${link}`,
      `/pay/${link}/receipt?p=1234567890123456&s=signature`,
      `/checkout/${session}`,
      `/charge/${charge}`,
      `/api/v1/paymentlinks/${link}`,
      `/api/v1/hostedcheckout/status/${session}`,
      `/api/v1/nothing/${unmatched}`,
    ];
    for (const url of paths) await ctx.app.inject({ method: 'GET', url, headers: { 'x-api-key': ctx.merchant.apiKey } });
    const text = ctx.logs.slice(from).join('\n');
    for (const secret of [link, session, charge, unmatched, 'signature']) expect(text).not.toContain(secret);
    expect(requestLines(from).map((l) => l.url)).toEqual([
      '/pay/[redacted]',
      '/pay/[redacted]/receipt',
      '/checkout/[redacted]',
      '/charge/[redacted]',
      '/api/v1/paymentlinks/[redacted]',
      '/api/v1/hostedcheckout/status/[redacted]',
      '/api/v1/nothing/[redacted]',
    ]);
  });

  it('keeps the identifiers that are no secret, so a line still says what was asked for', async () => {
    const from = ctx.logs.length;
    await ctx.app.inject({ method: 'GET', url: '/api/v1/webhooks/wh_0123456789abcdef', headers: { 'x-api-key': ctx.merchant.apiKey } });
    await ctx.app.inject({ method: 'GET', url: '/portal/payments/1234567890123456' });
    expect(requestLines(from).map((l) => l.url)).toEqual(['/api/v1/webhooks/wh_0123456789abcdef', '/portal/payments/1234567890123456']);
  });

  it('a line that logs a request object gets its method and redacted path only', async () => {
    const token = randomBytes(24).toString('base64url');
    const from = ctx.logs.length;
    const req = {
      method: 'GET',
      url: `/portal/link/${token}?x=1`,
      routeOptions: { url: '/portal/link/:token' },
      params: { token },
      headers: { cookie: 'a=b' },
    };
    ctx.app.log.warn({ req }, 'something about a request');
    const line = JSON.parse(ctx.logs.slice(from).join('')) as { req: unknown };
    expect(line.req).toEqual({ method: 'GET', url: '/portal/link/[redacted]' });
  });
});
