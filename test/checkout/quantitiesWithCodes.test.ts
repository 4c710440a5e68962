import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, payByLink, Shopper, FUTURE_EXPIRY } from './fixtures.js';

// A link whose items have an adjustable quantity and that takes promotion codes: the code applies to
// the total at the quantities chosen, whichever the shopper does first, and the payment charges that.

const ITEMS = [
  { name: 'Mug', quantity: 2, unitPrice: 1000, amountWithoutDiscount: 2000, amount: 2000, adjustableQuantity: { minimum: 0, maximum: 5 } },
  { name: 'Postage', quantity: 1, unitPrice: 500, amountWithoutDiscount: 500, amount: 500 },
];

describe('adjustable quantities with a promotion code', () => {
  let ctx: TestContext;
  let ref: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    ref = await createLink(ctx, payByLink(ctx, { culture: 'en', currency: 'EUR', amount: 2500, items: ITEMS, allowPromotionCodes: true }));
    const made = await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'TENOFF', percentOff: 10 });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('keeps the chosen quantities when a code is applied, and the code when the total is updated', async () => {
    const s = new Shopper(ctx);
    await s.get(`/pay/${ref}`);
    // Quantities first (4 mugs: 45.00), then the code: its form carries the quantities the page shows.
    const updated = await s.post(`/pay/${ref}`, { 'qty-0': '4', updateTotal: 'yes', lang: 'en' });
    expect(updated.body).toContain('Pay €45.00');
    expect(updated.body).toMatch(/data-promo-form[\s\S]*<input type="hidden" name="qty-0" value="4"\/>/);
    const applied = await s.post(`/pay/${ref}`, { action: 'applyCode', promotionCode: 'TENOFF', 'qty-0': '4', lang: 'en' });
    expect(applied.statusCode).toBe(200);
    expect(applied.body).toContain('Pay €40.50');
    expect(applied.body).toMatch(/id="qty-0" name="qty-0"[^>]*value="4"/);
    // Then the quantities again: the code stays, on the new total (1 mug: 15.00 less 1.50).
    const again = await s.post(`/pay/${ref}`, { 'qty-0': '1', updateTotal: 'yes', promotionCode: 'TENOFF', lang: 'en' });
    expect(again.body).toContain('The total is updated: €13.50.');
    expect(again.body).toContain('Pay €13.50');
  });

  it('charges the discounted total of the chosen quantities', async () => {
    const s = new Shopper(ctx);
    await s.get(`/pay/${ref}`);
    const paid = await s.post(`/pay/${ref}`, {
      'qty-0': '3',
      shownTotal: '3500',
      promotionCode: 'TENOFF',
      cardNumber: '4242424242424242',
      expiryDate: FUTURE_EXPIRY,
      cvc: '123',
      lang: 'en',
    });
    expect(paid.statusCode, paid.body.slice(0, 500)).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ amount: number; discount: number; code: string }>(
      'SELECT amount, discount_amount AS discount, promotion_code AS code FROM payments WHERE payment_link_reference = $1',
      [ref],
    );
    expect(rows).toEqual([{ amount: 3150, discount: 350, code: 'TENOFF' }]);
  });

  it('asks the shopper to confirm at the 3-D Secure step exactly what will be charged, however the amount changed', async () => {
    expect((await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'EURO3', amountOff: 300, currency: 'EUR' })).status).toBe(200);
    // The link's own total is €25.00 (2 mugs and postage); each way below changes it.
    const ways: { name: string; fields: Record<string, string>; charged: number; shown: string }[] = [
      { name: 'quantities', fields: { 'qty-0': '4', shownTotal: '4500' }, charged: 4500, shown: '€45.00' },
      { name: 'a percentage code', fields: { shownTotal: '2500', promotionCode: 'TENOFF' }, charged: 2250, shown: '€22.50' },
      { name: 'an amount code', fields: { shownTotal: '2500', promotionCode: 'EURO3' }, charged: 2200, shown: '€22.00' },
      { name: 'quantities and a code', fields: { 'qty-0': '4', shownTotal: '4500', promotionCode: 'TENOFF' }, charged: 4050, shown: '€40.50' },
    ];
    for (const way of ways) {
      const s = new Shopper(ctx);
      await s.get(`/pay/${ref}`);
      const step = await s.post(`/pay/${ref}`, { ...way.fields, cardNumber: '4000000000003220', expiryDate: FUTURE_EXPIRY, cvc: '123', lang: 'en' });
      expect(step.statusCode, way.name).toBe(200);
      expect(step.body, way.name).toContain(`confirm the payment of ${way.shown} with the card ending in 3220`);
      const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] as string;
      const done = await s.post(`/pay/${ref}/3ds`, { challenge, action: 'confirm', lang: 'en' });
      expect(done.statusCode, way.name).toBe(303);
      const payfac = new URL(String(done.headers.location), 'http://x').searchParams.get('p');
      const { rows } = await ctx.tdb.db.pool.query<{ amount: number }>('SELECT amount FROM payments WHERE payfac_reference = $1', [payfac]);
      expect(rows, way.name).toEqual([{ amount: way.charged }]);
    }
  });
});
