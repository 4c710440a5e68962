import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, payByLink } from '../checkout/fixtures.js';
import { allowedOrigins } from '../../src/accounts/service.js';
import { csvCell } from '../../src/portal/payments/csv.js';
import { CSP } from '../../src/web/headers.js';
import { portalUser, textOf, type PortalBrowser } from '../portal/helpers.js';

// The portal's findings of the second outside audit (docs/portal.md): the CSV export's cells and
// filters, the allowed origins' form, `Origin: null`, and a URL that is not valid percent-encoding
// under the pages.

describe('second audit: the portal', () => {
  let ctx: TestContext;
  let owner: PortalBrowser;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = (await portalUser(ctx, 'owner')).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('keeps as text a CSV cell that starts with any invisible or blank character before a formula sign', () => {
    // U+061C Arabic letter mark, U+034F combining grapheme joiner, U+2800 braille blank, U+3164 Hangul
    // filler, U+180E Mongolian vowel separator, U+0301 a combining accent with no letter.
    for (const lead of ['\u061c', '\u034f', '\u2800', '\u3164', '\u180e', '\u0301', '\u2028', '\u0085']) {
      const value = `${lead}=HYPERLINK("https://evil.example")`;
      const cell = csvCell(value);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
      expect(unquoted, JSON.stringify(lead)).toBe(`'${value}`);
    }
    expect(csvCell('Ísafjörður')).toBe('Ísafjörður');
  });

  it('refuses an export whose filter is given twice, is no status, or is no filter at all: never every payment', async () => {
    for (const query of ['from=2099-01-01&from=x', 'from=2099-01-01&from=2099-01-02', 'state=bogus', 'status=refused', 'state=refused&state=paid']) {
      const res = await owner.get(`/portal/payments/export.csv?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-disposition']).toBeUndefined();
    }
    // The list says so beside its inputs, and shows no filter it did not understand as applied.
    const list = await owner.get('/portal/payments?state=bogus');
    expect(list.statusCode).toBe(400);
    expect(textOf(list.body)).toContain('Choose one of the statuses in the list.');
    const twice = await owner.get('/portal/payments?from=2099-01-01&from=x');
    expect(twice.statusCode).toBe(400);
    expect(textOf(twice.body)).toContain('Give this filter once.');
    expect((await owner.get('/portal/payments/export.csv?state=refused&from=2024-02-29')).statusCode).toBe(200);
  });

  it('refuses an allowed-origins post without the field, or with it twice, and keeps the list', async () => {
    await owner.get('/portal/developers');
    expect((await owner.post('/portal/developers/origins', { allowedOrigins: 'https://shop.example' })).statusCode).toBe(303);
    const json = (payload: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/portal/developers/origins',
        headers: { 'content-type': 'application/json', cookie: owner.cookieHeader() },
        payload,
      });
    await owner.get('/portal/developers');
    const missing = await json(JSON.stringify({ _csrf: owner.csrf }));
    expect(missing.statusCode).toBe(400);
    expect(textOf(missing.body)).toContain('is required');
    await owner.get('/portal/developers');
    const repeated = await json(JSON.stringify({ _csrf: owner.csrf, allowedOrigins: ['https://a.example', 'https://b.example'] }));
    expect(repeated.statusCode).toBe(400);
    expect(textOf(repeated.body)).toContain('must be sent once');
    // A list whose first value is no text is no list of origins either (read as text it would be empty: any origin).
    await owner.get('/portal/developers');
    expect((await json(JSON.stringify({ _csrf: owner.csrf, allowedOrigins: [1, 'https://x.example'] }))).statusCode).toBe(400);
    await owner.get('/portal/developers');
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/portal/developers/origins',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: owner.cookieHeader() },
      payload: new URLSearchParams([
        ['_csrf', owner.csrf],
        ['allowedOrigins', 'https://a.example'],
        ['allowedOrigins', 'https://b.example'],
      ]).toString(),
    });
    expect(form.statusCode).toBe(400);
    expect(await allowedOrigins(ctx.tdb.db, ctx.merchant.merchantId)).toEqual(['https://shop.example']);
    // An empty text is still how an owner allows any origin.
    await owner.get('/portal/developers');
    expect((await owner.post('/portal/developers/origins', { allowedOrigins: '' })).statusCode).toBe(303);
    expect(await allowedOrigins(ctx.tdb.db, ctx.merchant.merchantId)).toEqual([]);
  });

  it('answers a URL that is not valid percent-encoding under the pages with their 400 page and headers', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const cases = [
      { url: '/portal/links/%E0%A4%A', csp: CSP.portal },
      { url: '/portal/%FF', csp: CSP.portal },
      { url: '/pay/%E0%A4%A', csp: CSP.shopper },
      { url: `/pay/${ref}/%E0%A4%A`, csp: CSP.shopper },
      { url: '/checkout/%E0%A4%A', csp: CSP.shopper },
      { url: '/charge/%E0%A4%A', csp: CSP.shopper },
    ];
    for (const { url, csp } of cases) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { cookie: owner.cookieHeader() } });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy'], url).toBe(csp);
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['cache-control'], url).toBe('no-store');
      expect(res.body).toContain('<!doctype html>');
      expect(res.body).toContain(csp === CSP.shopper ? 'Check the address you were given.' : 'There is nothing here, or it belongs to another merchant.');
    }
    // The API keeps its own answer.
    const api = await ctx.app.inject({ method: 'GET', url: '/api/v1/paymentlinks/%E0%A4%A', headers: { 'x-api-key': ctx.merchant.apiKey } });
    expect(api.statusCode).toBe(400);
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    // A path that merely starts like a page's prefix is not a page.
    const other = await ctx.app.inject({ method: 'GET', url: '/payments%E0%A4%A' });
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('refuses a promotion code of a kind that is neither a percentage nor an amount', async () => {
    await owner.get('/portal/promotion-codes/new');
    const res = await owner.post('/portal/promotion-codes', { code: 'BOGUS1', kind: 'bogus', percentOff: '50', active: 'on' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/id="f-kind"[^>]*aria-invalid="true"/);
    const { rows } = await ctx.tdb.db.pool.query("SELECT count(*)::int AS n FROM promotion_codes WHERE code = 'BOGUS1'");
    expect(rows).toEqual([{ n: 0 }]);
  });
});
