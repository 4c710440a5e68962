import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, listKeys } from '../../src/accounts/service.js';
import { recordAudit } from '../../src/audit/service.js';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { ownedBy } from '../security/world.js';
import type { PortalBrowser } from './helpers.js';
import { portalUser, textOf } from './helpers.js';

// The audit log page (§The portal's audit log): owners only, newest first, a sentence per action in
// both languages with who, what it concerned and the details, paged by a cursor; one merchant's log
// only.

/** The rows of the log's table, as text, in page order. */
function rows(html: string): string[] {
  const body = html.split('<tbody>')[1]?.split('</tbody>')[0] ?? '';
  return body
    .split('<tr>')
    .slice(1)
    .map((r) => textOf(r));
}

describe('portal audit log', () => {
  let ctx: TestContext;
  let owner: { userId: string; email: string; browser: PortalBrowser };

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = await portalUser(ctx, 'owner', { email: 'boss@shop.example' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('shows what owners and others did, newest first, with who, target and details', async () => {
    const empty = await owner.browser.get('/portal/audit');
    expect(empty.statusCode).toBe(200);
    expect(textOf(empty.body)).toContain('Nothing recorded yet.');

    // Things done through the portal...
    await owner.browser.get('/portal/users');
    expect((await owner.browser.post('/portal/users', { email: 'helper@shop.example', role: 'staff' })).statusCode).toBe(200);
    await owner.browser.get('/portal/themes/new');
    expect(
      (await owner.browser.postMultipart('/portal/themes', { name: 'Plain', accentColor: '#1f5eff', backgroundColor: '#ffffff', buttonShape: 'square' }))
        .statusCode,
    ).toBe(303);
    // ...and by other parts of the portal (a refund, recorded with its amount), later.
    ctx.clock.advance(60_000);
    await recordAudit(
      ctx.tdb.db.pool,
      { clock: ctx.clock, actor: { kind: 'user', userId: 'usr_x', email: 'clerk@shop.example' } },
      {
        merchantId: ctx.merchant.merchantId,
        action: 'payment.refund',
        target: '1234567890123456',
        details: { amount: 48900, currency: 'ISK' },
      },
    );

    const page = await owner.browser.get('/portal/audit');
    const [refund, theme, invite, ...rest] = rows(page.body);
    expect(rest).toEqual([]);
    expect(refund).toContain('clerk@shop.example');
    expect(refund).toContain('Refunded a payment');
    expect(refund).toContain('1234567890123456');
    expect(refund).toContain('Amount: ISK 489');
    expect(theme).toContain('boss@shop.example');
    expect(theme).toContain('Created a theme');
    expect(theme).toMatch(/th_[\w-]+/);
    expect(theme).toContain('Name: Plain');
    expect(invite).toContain('Invited a user');
    expect(invite).toContain('helper@shop.example');
    expect(invite).toContain('Role: Staff');

    await owner.browser.post('/portal/language', { language: 'is', back: '/portal/audit' });
    const is = await owner.browser.get('/portal/audit');
    expect(textOf(is.body)).toContain('Aðgerðaskrá');
    const [refundIs, themeIs, inviteIs] = rows(is.body);
    expect(refundIs).toContain('Endurgreiddi greiðslu');
    expect(refundIs).toContain('Upphæð: 489 kr.');
    expect(themeIs).toContain('Bjó til útlit');
    expect(inviteIs).toContain('Bauð notanda');
    expect(inviteIs).toContain('Hlutverk: Starfsmaður');
    await owner.browser.post('/portal/language', { language: 'en', back: '/portal/audit' });
  });

  it('records every change made with an API key, the key named by its id and first and last characters, beside the portal’s own', async () => {
    const m = await createMerchant(ctx.tdb.db, 'API shop');
    const boss = await portalUser(ctx, 'owner', { owner: { merchantId: m.merchantId } });
    const [key] = await listKeys(ctx.tdb.db, { merchantId: m.merchantId });
    const display = key?.display ?? 'no display';
    const owned = await ownedBy(ctx, m);
    const entries = async () =>
      (
        await ctx.tdb.db.pool.query<{
          action: string;
          target: string | null;
          actor_key_id: string | null;
          actor_key_display: string | null;
          details: Record<string, unknown>;
        }>('SELECT action, target, actor_key_id, actor_key_display, details FROM audit_log WHERE merchant_id = $1 ORDER BY id', [m.merchantId])
      ).rows;
    const made = await entries();
    expect(made.map((e) => [e.action, e.target])).toEqual([
      ['webhook.create', owned.webhookId],
      ['link.create', owned.linkReference],
      ['link.create', owned.tokenizeLinkReference],
      ['checkout.create', owned.checkoutReference],
      ['checkout.create', owned.paidCheckoutReference],
    ]);
    for (const e of made) {
      expect(e.actor_key_id).toBe(key?.keyId);
      expect(e.actor_key_display).toBe(display);
    }
    expect(made[1]?.details).toEqual({ type: 'PayByLink', amount: 3000, currency: 'EUR' });

    // Money moved, a link changed and disabled, a card charged and disabled, a webhook's secrets rotated.
    const apiKey = owned.apiKey;
    const refund = await call(
      ctx,
      'POST',
      '/api/v1/modification/refund',
      { reference: 'r-1', payfacReference: owned.payfacReference, amount: 100, currency: 'EUR' },
      { apiKey },
    );
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    expect(
      (await call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: owned.linkReference, description: 'Mugs' }, { apiKey })).status,
    ).toBe(200);
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: owned.linkReference }, { apiKey })).status).toBe(200);
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${owned.webhookId}/rotate-secrets`, undefined, { apiKey })).status).toBe(200);
    expect((await call(ctx, 'POST', '/api/v1/payment/disable-token', { tokenValue: owned.tokenValue }, { apiKey })).status).toBe(200);
    // Refused calls and reads change nothing and are not recorded; nor is a retry answered with the first answer.
    const count = (await entries()).length;
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: 'pl_nothing' }, { apiKey })).status).toBe(404);
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/create', { type: 'PayByLink' }, { apiKey })).status).toBe(400);
    expect((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey })).status).toBe(200);
    expect((await call(ctx, 'POST', `/api/v1/hostedcheckout/status/${owned.checkoutReference}`, undefined, { apiKey })).status).toBe(200);
    expect(await entries()).toHaveLength(count);
    const body = { amount: 500, currency: 'EUR', returnUrl: 'https://shop.example/return', reference: 'order-9', terminalIdentifier: owned.terminalIdentifier };
    const first = await call(ctx, 'POST', '/api/v1/hostedcheckout', body, { apiKey, headers: { 'idempotency-key': 'once' } });
    const again = await call(ctx, 'POST', '/api/v1/hostedcheckout', body, { apiKey, headers: { 'idempotency-key': 'once' } });
    expect(again.body.checkoutReference).toBe(first.body.checkoutReference);

    const later = (await entries()).slice(made.length);
    expect(later.map((e) => [e.action, e.target])).toEqual([
      ['payment.refund', owned.payfacReference],
      ['link.update', owned.linkReference],
      ['link.disable', owned.linkReference],
      ['webhook.rotate', owned.webhookId],
      ['token.disable', `…${owned.tokenValue.slice(-4)}`],
      ['checkout.create', first.body.checkoutReference],
    ]);
    expect(later[0]?.details).toEqual({ reference: 'r-1', amount: 100, currency: 'EUR', modification: refund.body.payfacReference });
    expect(later[1]?.details).toEqual({ changed: ['description'] });
    // Never the key itself, nor the token.
    const all = JSON.stringify(await entries());
    expect(all).not.toContain(apiKey);
    expect(all).not.toContain(owned.tokenValue);

    // The owner sees them beside the portal's own actions, the key by its id and characters.
    await boss.browser.get('/portal/developers');
    expect((await boss.browser.post('/portal/developers/terminals', {})).statusCode).toBe(303);
    const page = await boss.browser.get('/portal/audit');
    const [terminal, checkout, disabled, , , , refunded] = rows(page.body);
    expect(terminal).toContain(boss.email);
    expect(terminal).toContain('Added a terminal');
    expect(checkout).toContain(`API key ${display} ${key?.keyId}`);
    expect(checkout).toContain('Created a checkout session');
    expect(disabled).toContain('Disabled a saved card');
    expect(refunded).toContain('Refunded a payment');
    expect(refunded).toContain('Amount: €1.00');
    expect(page.body).not.toContain(apiKey);
    await boss.browser.post('/portal/language', { language: 'is', back: '/portal/audit' });
    const is = rows((await boss.browser.get('/portal/audit')).body);
    expect(is[1]).toContain(`API-lykill ${display}`);
    expect(is[1]).toContain('Stofnaði greiðslusíðu');
  });

  it('pages fifty at a time by keyset, each page continuing before the last entry of the one before', async () => {
    const m = await createMerchant(ctx.tdb.db, 'Busy shop');
    const busy = await portalUser(ctx, 'owner', { owner: { merchantId: m.merchantId } });
    for (let i = 0; i < 120; i++) {
      await recordAudit(ctx.tdb.db.pool, asOperator(ctx), {
        merchantId: m.merchantId,
        action: 'link.create',
        target: `pl_${String(i).padStart(3, '0')}`,
      });
    }
    const seen: string[] = [];
    let url: string | null = '/portal/audit';
    const sizes: number[] = [];
    while (url !== null) {
      const res = await busy.browser.get(url);
      expect(res.statusCode).toBe(200);
      const targets = rows(res.body).map((r) => /pl_\d{3}/.exec(r)?.[0] ?? '');
      sizes.push(targets.length);
      seen.push(...targets);
      const next = /<a href="(\/portal\/audit\?before=[^"]+)" rel="next">/.exec(res.body)?.[1];
      url = next ? next.replace(/&amp;/g, '&') : null;
      if (sizes.length > 1) expect(res.body).toMatch(/<a href="\/portal\/audit">Newest<\/a><a href="\/portal\/audit\?after=[^"]+" rel="prev">Newer<\/a>/);
    }
    expect(sizes).toEqual([50, 50, 20]);
    // Newest first, each entry once, the operator's (no user) shown as such.
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => `pl_${String(119 - i).padStart(3, '0')}`));
    expect(textOf((await busy.browser.get('/portal/audit')).body)).toContain('The operator');
    // A cursor that is not one is the first page; an entry's id (the links of the pager before) still pages.
    expect(rows((await busy.browser.get('/portal/audit?before=abc')).body)[0]).toContain('pl_119');
    const { rows: ids } = await ctx.tdb.db.pool.query<{ id: string }>("SELECT id::text AS id FROM audit_log WHERE merchant_id = $1 AND target = 'pl_070'", [
      m.merchantId,
    ]);
    expect(rows((await busy.browser.get(`/portal/audit?before=${ids[0]?.id}`)).body)[0]).toContain('pl_069');
  });

  it('is for owners only, and shows one merchant’s entries only', async () => {
    const { browser: dev } = await portalUser(ctx, 'developer');
    const { browser: staff } = await portalUser(ctx, 'staff');
    expect((await dev.get('/portal/audit')).statusCode).toBe(403);
    expect((await staff.get('/portal/audit')).statusCode).toBe(403);
    const other = await createMerchant(ctx.tdb.db, 'Quiet shop');
    const theirs = await portalUser(ctx, 'owner', { owner: { merchantId: other.merchantId } });
    const page = await theirs.browser.get('/portal/audit');
    expect(page.statusCode).toBe(200);
    expect(rows(page.body)).toEqual([]);
    expect(page.body).not.toContain('boss@shop.example');
    // Their own cursor cannot reach another merchant's entries either.
    const { rows: ids } = await ctx.tdb.db.pool.query<{ id: string }>('SELECT max(id)::text AS id FROM audit_log WHERE merchant_id = $1', [
      ctx.merchant.merchantId,
    ]);
    const paged = await theirs.browser.get(`/portal/audit?before=${Number(ids[0]?.id) + 1}`);
    expect(rows(paged.body)).toEqual([]);
  });
});
