import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, TEST_PUBLIC_BASE_URL, type TestContext, asOperator } from '../helpers/app.js';
import { createLink, linkDetails, payByLink } from '../checkout/fixtures.js';
import { allowedOrigins, updateAllowedOrigins } from '../../src/accounts/service.js';
import { ApiError } from '../../src/errors.js';
import { CSP } from '../../src/web/headers.js';
import { portalUser, textOf, type PortalBrowser } from '../portal/helpers.js';

// The smaller findings of an outside audit of the portal: the CSV export's date filter, a JSON post of
// the allowed origins, a post from another site with a valid token, an over-long identifier in a
// portal path, and the API reference's style policy.

const CARD = { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' };

describe('smaller audit findings', () => {
  let ctx: TestContext;
  let owner: PortalBrowser;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = (await portalUser(ctx, 'owner')).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  /** A post of the owner's browser with its current token and cookies, and more headers. */
  const postWith = (url: string, headers: Record<string, string>, fields: Record<string, string>): Promise<LightMyRequestResponse> =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: owner.cookieHeader(), ...headers },
      payload: new URLSearchParams({ _csrf: owner.csrf, ...fields }).toString(),
    });

  it('the CSV export refuses a day that is no date with 400, as the list does, and exports nothing', async () => {
    for (const query of ['from=2024-13-45', 'until=yesterday', 'from=2024-02-30&until=2024-03-01']) {
      const list = await owner.get(`/portal/payments?${query}`);
      expect(list.statusCode).toBe(400);
      const res = await owner.get(`/portal/payments/export.csv?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-disposition']).toBeUndefined();
      expect(res.headers['content-security-policy']).toBe(CSP.portal);
    }
    expect((await owner.get('/portal/payments/export.csv?from=2024-02-29')).statusCode).toBe(200);
  });

  it('allowed origins sent as anything but text are refused with a field error, never saved as "any origin"', async () => {
    await owner.get('/portal/developers');
    expect((await owner.post('/portal/developers/origins', { allowedOrigins: 'https://shop.example' })).statusCode).toBe(303);
    expect(await allowedOrigins(ctx.tdb.db, ctx.merchant.merchantId)).toEqual(['https://shop.example']);
    await owner.get('/portal/developers');
    for (const value of [{ a: 1 }, 7, [], [{ a: 1 }], null, true]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/portal/developers/origins',
        headers: { 'content-type': 'application/json', cookie: owner.cookieHeader() },
        payload: JSON.stringify({ _csrf: owner.csrf, allowedOrigins: value }),
      });
      expect(res.statusCode, JSON.stringify(value)).toBe(400);
      // Beside the field, on the page the form is on.
      expect(textOf(res.body)).toContain(
        'Origins, one per line For example https://shop.example or http://localhost:3000: the scheme, host and port, no path. must be a list of origins',
      );
      expect(await allowedOrigins(ctx.tdb.db, ctx.merchant.merchantId)).toEqual(['https://shop.example']);
    }
    // The service itself refuses them, whoever calls it.
    const refused = await updateAllowedOrigins(asOperator(ctx), ctx.merchant.merchantId, { a: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).errors).toEqual([expect.objectContaining({ field: 'allowedOrigins', code: 'TYPE' })]);
    expect(await allowedOrigins(ctx.tdb.db, ctx.merchant.merchantId)).toEqual(['https://shop.example']);
  });

  it('a post from another site is refused even with a valid token; the service’s own origin, or none, is not', async () => {
    await owner.get('/portal/account');
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'http://paylinks.test.evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      // An opaque origin: a sandboxed frame or a data: page of another site.
      { origin: 'null' },
    ];
    for (const headers of foreign) {
      const res = await postWith('/portal/account/language', headers, { language: 'is' });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toBe(CSP.portal);
    }
    expect((await owner.get('/portal/account')).body).toContain('lang="en"');
    const own: Record<string, string>[] = [
      { origin: TEST_PUBLIC_BASE_URL },
      // A page of ours served before Referrer-Policy same-origin posts its forms so; the browser says whose it is.
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
      { origin: 'http://localhost:8080', host: 'localhost:8080' },
      { 'sec-fetch-site': 'same-origin', origin: TEST_PUBLIC_BASE_URL },
      {},
    ];
    for (const headers of own) {
      const res = await postWith('/portal/account/language', headers, { language: 'en' });
      expect(res.statusCode, JSON.stringify(headers)).toBe(303);
    }

    // The shopper's pages too: a card sent from another site's page pays nothing.
    const ref = await createLink(ctx, payByLink(ctx));
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${ref}` });
    const cookie = String(page.headers['set-cookie']).split(';')[0] ?? '';
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const pay = (origin: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/pay/${ref}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
        payload: new URLSearchParams({ _csrf: token, ...CARD }).toString(),
      });
    expect((await pay('https://evil.example')).statusCode).toBe(403);
    expect((await pay('null')).statusCode).toBe(403);
    expect((await linkDetails(ctx, ref)).salesCount).toBe(0);
    expect((await pay(TEST_PUBLIC_BASE_URL)).statusCode).toBe(303);
    expect((await linkDetails(ctx, ref)).salesCount).toBe(1);
  });

  it('an over-long identifier in a portal path is the portal’s own 404 page; on the API, §Errors', async () => {
    for (const url of [`/portal/links/${'a'.repeat(300)}`, `/portal/payments/${'1'.repeat(5000)}`, `/portal/webhooks/${'w'.repeat(201)}/deliveries`]) {
      const res = await owner.get(url);
      expect(res.statusCode, url.slice(0, 30)).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toBe(CSP.portal);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const page = await ctx.app.inject({ method: 'GET', url: `/pay/${'x'.repeat(300)}` });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-security-policy']).toBe(CSP.shopper);
    const api = await ctx.app.inject({ method: 'GET', url: `/api/v1/paymentlinks/${'x'.repeat(300)}`, headers: { 'x-api-key': ctx.merchant.apiKey } });
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(api.body)).toMatchObject({ code: 'NOT_FOUND' });
    // The longest identifier still reaches its route.
    expect((await owner.get(`/portal/links/${'a'.repeat(200)}`)).statusCode).toBe(404);
  });

  it('the API reference allows no inline style but its logo’s, by its hash', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/style-src 'self' 'sha256-[A-Za-z0-9+/]{43}='; /);
    expect(csp).not.toContain('unsafe-inline');
  });
});
