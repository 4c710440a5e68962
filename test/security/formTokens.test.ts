import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, createSession, linkDetails, payByLink, sessionStatus } from '../checkout/fixtures.js';
import { PortalBrowser } from '../portal/helpers.js';

// The shopper's pages and the portal share one form token (src/web/), each with a secret cookie of
// its own: a token is good only for what it was bound to. One browser (one cookie jar) collects
// tokens from each, and each is tried where it does not belong.

const CARD = { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' };

describe('one form token for the shopper pages and the portal', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('a token is bound to its page or the portal, never another, with the same browser cookie', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const session = await createSession(ctx);
    const b = new PortalBrowser(ctx);

    await b.get(`/pay/${ref}`);
    const linkToken = b.csrf;
    await b.get(`/checkout/${session}`);
    const sessionToken = b.csrf;
    await b.get('/portal/sign-in');
    const portalToken = b.csrf;
    // One secret cookie for the shopper's pages, where the binding tells them apart, and one for the portal.
    expect([...b.cookies.keys()].filter((k) => k.endsWith('_csrf')).sort()).toEqual(['paylinks_portal_csrf', 'paylinks_shopper_csrf']);
    expect(new Set([linkToken, sessionToken, portalToken]).size).toBe(3);

    expect((await b.post(`/pay/${ref}`, CARD, { csrf: portalToken })).statusCode).toBe(403);
    expect((await b.post(`/pay/${ref}`, CARD, { csrf: sessionToken })).statusCode).toBe(403);
    expect((await b.post(`/checkout/${session}`, CARD, { csrf: linkToken })).statusCode).toBe(403);
    expect((await b.post('/portal/language', { language: 'is', back: '/portal' }, { csrf: linkToken })).statusCode).toBe(403);
    expect((await linkDetails(ctx, ref)).salesCount).toBe(0);
    expect((await sessionStatus(ctx, session)).status).toBe('New');

    // Each where it belongs.
    expect((await b.post('/portal/language', { language: 'is', back: '/portal' }, { csrf: portalToken })).statusCode).toBe(303);
    expect((await b.post(`/pay/${ref}`, CARD, { csrf: linkToken })).statusCode).toBe(303);
    expect((await linkDetails(ctx, ref)).salesCount).toBe(1);
  });

  it('a token with another browser’s cookie, or a forged cookie, is refused', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const a = new PortalBrowser(ctx);
    const b = new PortalBrowser(ctx);
    await a.get(`/pay/${ref}`);
    await b.get(`/pay/${ref}`);
    expect((await b.post(`/pay/${ref}`, CARD, { csrf: a.csrf })).statusCode).toBe(403);
    // The secret cookie is signed: a value the browser made up is no secret of ours.
    const forged = new PortalBrowser(ctx);
    forged.cookies.set('paylinks_shopper_csrf', 'made-up-secret');
    expect((await forged.post(`/pay/${ref}`, CARD, { csrf: a.csrf })).statusCode).toBe(403);
    expect((await linkDetails(ctx, ref)).salesCount).toBe(0);
  });
});

describe("the portal's and the shopper's forms in one browser", () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('both post when their pages were first loaded together (neither page replaces the other’s secret)', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const b = new PortalBrowser(ctx);
    // Two tabs opened at once in a new browser: each page finds no secret and sets one.
    const [portalPage, payPage] = await Promise.all([
      ctx.app.inject({ method: 'GET', url: '/portal/sign-in' }),
      ctx.app.inject({ method: 'GET', url: `/pay/${ref}` }),
    ]);
    b.remember(portalPage);
    const portalToken = b.csrf;
    b.remember(payPage);
    const payToken = b.csrf;
    expect((await b.post(`/pay/${ref}`, CARD, { csrf: payToken })).statusCode).toBe(303);
    expect((await b.post('/portal/language', { language: 'is', back: '/portal' }, { csrf: portalToken })).statusCode).toBe(303);
    expect((await linkDetails(ctx, ref)).salesCount).toBe(1);
  });
});
