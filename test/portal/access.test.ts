import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createUser } from '../../src/users/service.js';
import { THROTTLE } from '../../src/users/service.js';
import { PASSWORD, PortalBrowser, portalUser, textOf } from './helpers.js';

// The portal's people and access (§The portal): sign-in, sessions and their cookie, CSRF on every post,
// the throttle, expiry, sign-out everywhere, and the headers of every page.

async function count(ctx: TestContext, table: string): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? 0;
}

describe('portal sign-in and sessions', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('a one-time link lets the user choose a password once; opening it changes nothing', async () => {
    const link = await createUser(ctx.tdb.db, ctx.clock, {
      email: 'New.Owner@Example.com',
      owner: { merchantId: ctx.merchant.merchantId },
      role: 'owner',
      createdBy: null,
    });
    expect(link.email).toBe('new.owner@example.com');
    const b = new PortalBrowser(ctx);
    const page = await b.get(`/portal/link/${link.token}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('new.owner@example.com');
    // A second GET (a mail scanner) still finds it unused.
    expect((await b.get(`/portal/link/${link.token}`)).statusCode).toBe(200);
    const short = await b.post(`/portal/link/${link.token}`, { password: 'short', confirm: 'short' });
    expect(short.statusCode).toBe(400);
    expect(textOf(short.body)).toContain('at least 12 characters');
    const mismatch = await b.post(`/portal/link/${link.token}`, { password: PASSWORD, confirm: `${PASSWORD}!` });
    expect(mismatch.statusCode).toBe(400);
    const ok = await b.post(`/portal/link/${link.token}`, { password: PASSWORD, confirm: PASSWORD });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/portal');
    const home = await b.follow(ok);
    expect(home.statusCode).toBe(200);
    expect(textOf(home.body)).toContain('Test merchant');
    // Used: a second use is refused, and the password works for sign-in.
    const again = await new PortalBrowser(ctx).get(`/portal/link/${link.token}`);
    expect(again.statusCode).toBe(404);
    const other = new PortalBrowser(ctx);
    expect((await other.signIn('new.owner@example.com')).statusCode).toBe(303);
  });

  it('an unknown address and a wrong password get the same answer', async () => {
    const { email } = await portalUser(ctx, 'staff');
    const wrong = await new PortalBrowser(ctx).signIn(email, 'not the password at all');
    const unknown = await new PortalBrowser(ctx).signIn('nobody@example.com', 'not the password at all');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    const strip = (html: string) => textOf(html).replace(/\S+@example\.com/, 'EMAIL');
    expect(strip(wrong.body)).toBe(strip(unknown.body));
    expect(wrong.headers['set-cookie']?.toString() ?? '').not.toContain('paylinks_session');
  });

  it('the session cookie is HttpOnly and SameSite=Lax, and sign-in gives a new session id every time', async () => {
    const { email, browser } = await portalUser(ctx, 'owner');
    const first = browser.cookies.get('paylinks_session');
    expect(first).toBeTruthy();
    const again = await browser.signIn(email);
    const setCookie = String(again.headers['set-cookie']);
    expect(setCookie).toMatch(/paylinks_session=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax/);
    expect(setCookie).not.toContain('Secure');
    const second = browser.cookies.get('paylinks_session');
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    // The earlier session ended with the new sign-in.
    const old = new PortalBrowser(ctx);
    old.cookies.set('paylinks_session', first as string);
    const res = await old.get('/portal');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toContain('/portal/sign-in');
  });

  it('a post without the form token, or with another session’s, is refused and changes nothing', async () => {
    const a = await portalUser(ctx, 'owner');
    const b = await portalUser(ctx, 'owner');
    await a.browser.get('/portal/account');
    const before = await count(ctx, 'portal_sessions');
    const none = await a.browser.post('/portal/account/sign-out-everywhere', {}, { csrf: null });
    expect(none.statusCode).toBe(403);
    const bad = await a.browser.post('/portal/account/sign-out-everywhere', {}, { csrf: 'x'.repeat(60) });
    expect(bad.statusCode).toBe(403);
    await b.browser.get('/portal/account');
    const foreign = await a.browser.post('/portal/account/sign-out-everywhere', {}, { csrf: b.browser.csrf });
    expect(foreign.statusCode).toBe(403);
    expect(textOf(foreign.body)).toContain('Nothing was changed');
    expect(await count(ctx, 'portal_sessions')).toBe(before);
  });

  it('sign-in is throttled per account and network address after repeated failures, even with the right password', async () => {
    const { email } = await portalUser(ctx, 'staff');
    for (let i = 0; i < THROTTLE.perAccountAndAddress.failures; i++)
      expect((await new PortalBrowser(ctx).signIn(email, `wrong password ${i}`)).statusCode).toBe(401);
    const blocked = await new PortalBrowser(ctx).signIn(email);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // An unknown address is throttled the same way (nothing tells whether it exists).
    for (let i = 0; i < THROTTLE.perAccountAndAddress.failures; i++) await new PortalBrowser(ctx).signIn('ghost@example.com', `wrong ${i}`);
    expect((await new PortalBrowser(ctx).signIn('ghost@example.com', 'wrong again')).statusCode).toBe(429);
    // After the window the right password works again.
    ctx.clock.advance(THROTTLE.perAccountAndAddress.windowMs + 1_000);
    expect((await new PortalBrowser(ctx).signIn(email)).statusCode).toBe(303);
  });

  it('a session ends when idle too long and after its absolute lifetime', async () => {
    const { browser } = await portalUser(ctx, 'staff');
    ctx.clock.advance(59 * 60_000);
    expect((await browser.get('/portal')).statusCode).toBe(200);
    ctx.clock.advance(59 * 60_000);
    expect((await browser.get('/portal')).statusCode).toBe(200);
    ctx.clock.advance(61 * 60_000);
    const idle = await browser.get('/portal');
    expect(idle.statusCode).toBe(303);
    expect(idle.headers.location).toBe('/portal/sign-in?m=ended&next=%2Fportal');

    const { browser: busy } = await portalUser(ctx, 'staff');
    // Used every 50 minutes, it still ends 12 hours after sign-in.
    for (let i = 0; i < 14; i++) {
      ctx.clock.advance(50 * 60_000);
      expect((await busy.get('/portal')).statusCode).toBe(200);
    }
    ctx.clock.advance(50 * 60_000);
    expect((await busy.get('/portal')).statusCode).toBe(303);
  });

  it('sign out everywhere ends every session of the user', async () => {
    const { email, browser } = await portalUser(ctx, 'developer');
    const other = new PortalBrowser(ctx);
    await other.signIn(email);
    expect((await other.get('/portal')).statusCode).toBe(200);
    await browser.get('/portal/account');
    const out = await browser.post('/portal/account/sign-out-everywhere', {});
    expect(out.statusCode).toBe(303);
    expect((await other.get('/portal')).statusCode).toBe(303);
    expect((await browser.get('/portal')).statusCode).toBe(303);
  });

  it('every portal page carries a strict CSP and no-store; a signed-out visitor is sent to sign in', async () => {
    const b = new PortalBrowser(ctx);
    const res = await b.get('/portal/account');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/sign-in?m=in&next=%2Fportal%2Faccount');
    const page = await b.get('/portal/sign-in');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).not.toMatch(/<script>/);
  });

  it('a multipart body that is not well formed is the request’s fault (400), never a 500', async () => {
    const { browser } = await portalUser(ctx, 'owner');
    for (const url of ['/portal/links', '/portal/link/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', '/portal/themes']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url,
        headers: { cookie: browser.cookieHeader(), 'content-type': 'multipart/form-data; boundary=xyz' },
        payload: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nunfinished',
      });
      expect(res.statusCode, url).toBe(400);
    }
  });

  it('the language is chosen per user and kept', async () => {
    const { browser } = await portalUser(ctx, 'owner');
    await browser.get('/portal/account');
    expect((await browser.post('/portal/account/language', { language: 'is' })).statusCode).toBe(303);
    const page = await browser.get('/portal/account');
    expect(page.body).toContain('<html lang="is">');
    expect(textOf(page.body)).toContain('Þinn aðgangur');
  });
});

describe('portal cookies over https', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn', PUBLIC_BASE_URL: 'https://pay.example.com' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('are Secure and host-only (__Host-)', async () => {
    const b = new PortalBrowser(ctx);
    const page = await b.get('/portal/sign-in');
    expect(String(page.headers['set-cookie'])).toMatch(/__Host-paylinks_portal_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax/);
    await createUser(ctx.tdb.db, ctx.clock, {
      email: 'secure@example.com',
      owner: { merchantId: ctx.merchant.merchantId },
      role: 'owner',
      createdBy: null,
    });
    const { browser } = await portalUser(ctx, 'owner');
    expect([...browser.cookies.keys()]).toContain('__Host-paylinks_session');
  });
});
