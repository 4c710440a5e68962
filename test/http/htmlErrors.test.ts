import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { portalUser, textOf } from '../portal/helpers.js';

// The HTML error pages of the shopper's pages and the portal come from one set of rules
// (src/web/errorPages.ts), each in its part's frame, in the reader's language.

describe('HTML error pages in both languages', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('an unknown payment page is a 404 page in the language asked for, with the page headers', async () => {
    const is = await ctx.app.inject({ method: 'GET', url: '/pay/pl_nope?lang=is' });
    const en = await ctx.app.inject({ method: 'GET', url: '/pay/pl_nope?lang=en' });
    expect([is.statusCode, en.statusCode]).toEqual([404, 404]);
    expect(is.body).toContain('<html lang="is">');
    expect(textOf(is.body)).toContain('Greiðsla fannst ekki');
    expect(en.body).toContain('<html lang="en">');
    expect(textOf(en.body)).toContain('Payment not found');
    expect(en.headers['content-security-policy']).toContain("default-src 'none'");
    // Without a choice, the browser's language.
    const browser = await ctx.app.inject({ method: 'GET', url: '/checkout/cs_nope', headers: { 'accept-language': 'en-GB,en;q=0.9' } });
    expect(browser.statusCode).toBe(404);
    expect(browser.body).toContain('<html lang="en">');
  });

  it('an unknown portal page is a 404 page in the browser’s language, and in the signed-in frame for a user', async () => {
    const is = await ctx.app.inject({ method: 'GET', url: '/portal/no-such-page', headers: { 'accept-language': 'is' } });
    const en = await ctx.app.inject({ method: 'GET', url: '/portal/no-such-page', headers: { 'accept-language': 'en' } });
    expect([is.statusCode, en.statusCode]).toEqual([404, 404]);
    expect(textOf(is.body)).toContain('Fannst ekki');
    expect(textOf(en.body)).toContain('Not found');
    expect(en.headers['content-security-policy']).toContain('blob:');
    const { browser } = await portalUser(ctx, 'staff');
    const signedIn = await browser.get('/portal/no-such-page');
    expect(signedIn.statusCode).toBe(404);
    expect(textOf(signedIn.body)).toContain('Sign out');
  });
});
