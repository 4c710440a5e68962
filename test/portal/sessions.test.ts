import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createSession, sessionBody, Shopper } from '../checkout/fixtures.js';
import { createMerchant } from '../../src/accounts/service.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// Checkout sessions in the portal (§The portal, §Hosted checkout): the list, newest first and paged by
// keyset, and a session's page with its payment; another merchant's session is not found.

describe('checkout sessions in the portal', () => {
  let ctx: TestContext;
  let staff: PortalBrowser;
  let developer: PortalBrowser;
  const refs: Record<string, string> = {};
  let payfacReference = '';
  let otherSession = '';

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    staff = (await portalUser(ctx, 'staff')).browser;
    developer = (await portalUser(ctx, 'developer')).browser;
    const made = async (overrides: Record<string, unknown>): Promise<string> => {
      ctx.clock.advance(1);
      return createSession(ctx, overrides);
    };
    refs.expired = await made({ reference: 'order-expired', expiresAt: new Date(ctx.clock.now().getTime() + 60_000).toISOString() });
    refs.paid = await made({
      reference: 'order-paid',
      amount: 4990,
      isManualCapture: true,
      items: [{ name: 'Mug', amount: 4990, quantity: '1.5', unitPrice: 3327 }],
    });
    refs.open = await made({ reference: 'order-open', returnUrl: 'https://shop.example/return?order=open', abandonUrl: 'https://shop.example/cart' });
    const paid = await new Shopper(ctx).payWith(`/checkout/${refs.paid}`, '4242424242424242');
    expect(paid.statusCode, paid.body.slice(0, 300)).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM checkout_sessions WHERE reference = $1', [
      refs.paid,
    ]);
    payfacReference = rows[0]?.payfac_reference ?? '';
    expect(payfacReference).toMatch(/^\d{16}$/);
    ctx.clock.advance(120_000);

    const other = await createMerchant(ctx.tdb.db, 'Other merchant');
    const r = await call(
      ctx,
      'POST',
      '/api/v1/hostedcheckout',
      { ...sessionBody(ctx), terminalIdentifier: other.terminalIdentifier, reference: 'not-yours' },
      { apiKey: other.apiKey },
    );
    expect(r.status).toBe(200);
    otherSession = r.body.checkoutReference as string;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('lists the merchant’s sessions newest first, with status and amount, and none of another merchant’s', async () => {
    const res = await staff.get('/portal/sessions');
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    const at = (ref: string) => res.body.indexOf(`/portal/sessions/${ref}"`);
    expect(at(refs.open as string)).toBeGreaterThan(0);
    expect(at(refs.open as string)).toBeLessThan(at(refs.paid as string));
    expect(at(refs.paid as string)).toBeLessThan(at(refs.expired as string));
    expect(text).toMatch(/order-open\s+\S+\s+Open/);
    expect(text).toMatch(/order-paid\s+\S+\s+Completed/);
    expect(text).toMatch(/order-expired\s+\S+\s+Expired/);
    expect(text).toContain('€49.90');
    expect(text).not.toContain('not-yours');
    expect(res.body).not.toContain(otherSession);
  });

  it('a session’s page has every field, the return address and the payment', async () => {
    const paid = await staff.get(`/portal/sessions/${refs.paid}`);
    expect(paid.statusCode).toBe(200);
    const text = textOf(paid.body);
    expect(text).toContain('Completed');
    expect(text).toContain('order-paid');
    expect(text).toContain('https://shop.example/return?order=17');
    expect(text).toContain('By you, later');
    expect(text).toContain('Mug');
    expect(text).toContain('1.5');
    expect(paid.body).toContain(`href="/portal/payments/${payfacReference}"`);
    expect(text).toContain('visa •••• 4242');

    const open = await staff.get(`/portal/sessions/${refs.open}`);
    const openText = textOf(open.body);
    expect(openText).toContain('Open');
    expect(openText).toContain('https://shop.example/return?order=open');
    expect(openText).toContain('https://shop.example/cart');
    expect(open.body).toContain(`value="http://paylinks.test/checkout/${refs.open}"`);
    expect(openText).toContain('No one has tried to pay yet.');

    const expired = await developer.get(`/portal/sessions/${refs.expired}`);
    expect(expired.statusCode).toBe(200);
    expect(textOf(expired.body)).toContain('Expired');
  });

  it('another merchant’s session is not found', async () => {
    const res = await staff.get(`/portal/sessions/${otherSession}`);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('not-yours');
    expect((await staff.get('/portal/sessions/cs_nothing_here')).statusCode).toBe(404);
  });

  it('shows what the shop sent, however hostile, as text', async () => {
    const hostile = `x"'><script>alert(1)</script>`;
    const reference = await createSession(ctx, {
      reference: hostile,
      returnUrl: 'https://shop.example/back?a="><script>alert(3)</script>',
      items: [{ name: hostile, amount: 12345 }],
    });
    for (const path of ['/portal/sessions', `/portal/sessions/${reference}`]) {
      const res = await staff.get(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.body, path).not.toMatch(/<script>alert|"><script/);
      expect(textOf(res.body), path).toContain('<script>alert(1)</script>');
    }
  });

  it('pages by older and newer', async () => {
    const made: string[] = [];
    for (let i = 0; i < 21; i++) {
      ctx.clock.advance(1);
      made.push(await createSession(ctx, { reference: `bulk-${i}` }));
    }
    const newestFirst = [...made].reverse();
    const first = await staff.get('/portal/sessions');
    for (const r of newestFirst.slice(0, 20)) expect(first.body).toContain(`/portal/sessions/${r}"`);
    expect(first.body).not.toContain(`/portal/sessions/${newestFirst[20]}"`);
    expect(first.body).not.toMatch(/rel="prev"/);
    const older = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    expect(older).toMatch(/^\/portal\/sessions\?before=/);
    const second = await staff.get(older as string);
    expect(second.body).toContain(`/portal/sessions/${newestFirst[20]}"`);
    expect(second.body).toContain(`/portal/sessions/${refs.expired}"`);
    expect(second.body).not.toContain(`/portal/sessions/${newestFirst[19]}"`);
    expect(second.body).not.toMatch(/rel="next"/);
    const newer = /href="([^"]+)" rel="prev"/.exec(second.body)?.[1]?.replace(/&amp;/g, '&');
    const back = await staff.get(newer as string);
    expect(back.body).toContain(`/portal/sessions/${newestFirst[19]}"`);
    expect(back.body).toContain(`/portal/sessions/${newestFirst[0]}"`);
    // A cursor that is not one is the first page.
    expect((await staff.get('/portal/sessions?before=nonsense')).body).toContain(`/portal/sessions/${newestFirst[0]}"`);
  });
});
