import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import { createPromotionCode } from '../../src/promotionCodes/service.js';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { createLink, linkDetails, payByLink, Shopper, FUTURE_EXPIRY } from '../checkout/fixtures.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// Promotion codes in the portal (docs/portal.md, Promotion codes): the list, making a code with its field
// errors beside the fields, changing one, in both languages; the link form's box; the code and the
// discount on a payment's page; another merchant's code is not found.

describe('promotion codes in the portal', () => {
  let ctx: TestContext;
  let owner: PortalBrowser;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = (await portalUser(ctx, 'owner')).browser;
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('makes a code, refuses a bad one beside its fields, changes one, in English and Icelandic', async () => {
    const empty = await owner.get('/portal/promotion-codes');
    expect(empty.statusCode).toBe(200);
    expect(textOf(empty.body)).toContain('No promotion codes yet.');

    await owner.get('/portal/promotion-codes/new');
    const bad = await owner.post('/portal/promotion-codes', { code: 'no spaces', kind: 'amount', amountOff: '4,5', currency: 'ISK', active: 'on' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="f-code-error"');
    expect(bad.body).toContain('value="no spaces"');

    const made = await owner.post('/portal/promotion-codes', {
      code: 'SUMAR',
      kind: 'amount',
      amountOff: '1000',
      currency: 'ISK',
      maxRedemptions: '3',
      active: 'on',
    });
    expect(made.statusCode).toBe(303);
    const location = made.headers.location as string;
    expect(location).toMatch(/^\/portal\/promotion-codes\/promo_[^?]+\?done=created$/);
    const page = await owner.get(location);
    expect(textOf(page.body)).toContain('The promotion code was created.');
    expect(textOf(page.body)).toMatch(/ISK\s*1,000/);

    const saved = await owner.post(location.split('?')[0] as string, { expiresAt: '', maxRedemptions: '10' });
    expect(saved.statusCode).toBe(303);
    const api = await call(ctx, 'GET', `/api/v1/promotioncodes/${(location.split('/').pop() as string).split('?')[0] as string}`);
    expect(api.body.promotionCode).toMatchObject({ code: 'SUMAR', amountOff: 100000, currency: 'ISK', maxRedemptions: 10, active: false });

    await owner.get('/portal/account');
    await owner.post('/portal/account/language', { language: 'is' });
    const is = textOf((await owner.get('/portal/promotion-codes')).body);
    expect(is).toContain('Afsláttarkóðar');
    expect(is).toContain('SUMAR');
    expect(is).toContain('Óvirkur');
    await owner.post('/portal/account/language', { language: 'en' });
  });

  it('another merchant’s code is not found', async () => {
    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    const theirs = await createPromotionCode({ ...asOperator(ctx), sealer: ctx.sealer }, other.merchantId, { code: 'THEIRS', percentOff: 5 }, undefined);
    expect((await owner.get(`/portal/promotion-codes/${theirs.promotionCodeId}`)).statusCode).toBe(404);
  });

  it('the link form allows codes, and a payment’s page shows the code and the discount', async () => {
    const form = await owner.get('/portal/links/new');
    expect(form.body).toContain('name="allowPromotionCodes"');
    await createPromotionCode({ ...asOperator(ctx), sealer: ctx.sealer }, ctx.merchant.merchantId, { code: 'TIU', percentOff: 10 }, undefined);
    const ref = await createLink(ctx, payByLink(ctx, { allowPromotionCodes: true }));
    expect((await linkDetails(ctx, ref)).allowPromotionCodes).toBe(true);
    expect(textOf((await owner.get(`/portal/links/${ref}`)).body)).toMatch(/Promotion codes\s+Allowed/);
    const shopper = new Shopper(ctx);
    await shopper.get(`/pay/${ref}`);
    const paid = await shopper.post(`/pay/${ref}`, { cardNumber: '4242424242424242', expiryDate: FUTURE_EXPIRY, cvc: '123', promotionCode: 'tiu' });
    expect(paid.statusCode).toBe(303);
    const p = new URLSearchParams((paid.headers.location as string).split('?')[1]).get('p') as string;
    const page = textOf((await owner.get(`/portal/payments/${p}`)).body);
    expect(page).toMatch(/Promotion code\s+TIU/);
    expect(page).toMatch(/Discount\s+ISK\s*49/);
  });
});
