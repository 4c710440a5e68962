import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, linkDetails, payByLink, Shopper, FUTURE_EXPIRY } from '../checkout/fixtures.js';
import { fieldId } from '../../src/portal/views/components.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// The portal's link forms with an item's adjustable quantity (docs/portal.md; docs/rules.md,
// §Adjustable quantities): two inputs per item row, no script needed, the service's errors beside
// them in the reader's language; the link's page lists the ranges, and a payment's page the
// quantities the shopper chose.

function errorBeside(html: string, field: string): string | undefined {
  const id = `${fieldId(field)}-error`;
  const m = new RegExp(`<p class="error" id="${id}">([\\s\\S]*?)</p>`).exec(html);
  if (!m) return undefined;
  expect(html, `an input names ${id}`).toMatch(new RegExp(`aria-describedby="[^"]*${id}`));
  return textOf(m[1] ?? '');
}

function payForm(ctx: TestContext, extra: Record<string, string> = {}): Record<string, string> {
  return {
    type: 'PayByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    currency: 'ISK',
    culture: 'en',
    description: 'Kaffi',
    'items[0].name': 'Kaffipoki',
    'items[0].quantity': '2',
    'items[0].unitPrice': '1500',
    'items[0].discount': '',
    ...extra,
  };
}

describe('portal: adjustable quantities of a link’s items', () => {
  let ctx: TestContext;
  let staff: PortalBrowser;
  beforeAll(async () => {
    ctx = await createTestContext();
    staff = (await portalUser(ctx, 'staff')).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('creates a link with a range, shows it on the link’s page and fills it into the edit form', async () => {
    const form = await staff.get('/portal/links/new?type=PayByLink');
    expect(form.body).toContain('name="items[0].minQuantity"');
    expect(form.body).toContain('name="items[0].maxQuantity"');
    expect(textOf(form.body)).toContain('give it a min. and a max. quantity');
    const res = await staff.post('/portal/links', payForm(ctx, { 'items[0].minQuantity': '1', 'items[0].maxQuantity': '10' }));
    expect(res.statusCode, textOf(res.body).slice(0, 500)).toBe(303);
    const reference = String(res.headers.location).split('/').pop()?.split('?')[0] as string;
    const link = await linkDetails(ctx, reference);
    expect((link.items as Record<string, unknown>[])[0]).toMatchObject({ quantity: 2, amount: 300000, adjustableQuantity: { minimum: 1, maximum: 10 } });
    const page = await staff.follow(res);
    expect(textOf(page.body)).toMatch(/Quantities the shopper may choose\s+Kaffipoki: from 1 to 10/);

    const edit = await staff.get(`/portal/links/${reference}/edit`);
    expect(edit.body).toMatch(/name="items\[0\]\.minQuantity"[^>]*value="1"|value="1"[^>]*name="items\[0\]\.minQuantity"/);
    expect(edit.body).toMatch(/name="items\[0\]\.maxQuantity"[^>]*value="10"|value="10"[^>]*name="items\[0\]\.maxQuantity"/);
  });

  it('an edit before the first sale removes the range when both inputs are left empty', async () => {
    const reference = await createLink(
      ctx,
      payByLink(ctx, {
        amount: 300000,
        items: [
          { name: 'Kaffipoki', quantity: 2, unitPrice: 150000, amountWithoutDiscount: 300000, amount: 300000, adjustableQuantity: { minimum: 0, maximum: 5 } },
        ],
      }),
    );
    await staff.get(`/portal/links/${reference}/edit`);
    const res = await staff.post(`/portal/links/${reference}/edit`, {
      description: 'Kaffi',
      culture: 'is',
      currency: 'ISK',
      money: '1',
      'items[0].name': 'Kaffipoki',
      'items[0].quantity': '2',
      'items[0].unitPrice': '1500',
      'items[0].discount': '',
      'items[0].minQuantity': '',
      'items[0].maxQuantity': '',
    });
    expect(res.statusCode, textOf(res.body).slice(0, 500)).toBe(303);
    expect(JSON.stringify((await linkDetails(ctx, reference)).items)).not.toContain('adjustableQuantity');
  });

  it('puts the service’s errors beside the two inputs, in English and in Icelandic, and saves nothing', async () => {
    const before = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links');
    await staff.get('/portal/links/new?type=PayByLink');
    const outside = await staff.post('/portal/links', payForm(ctx, { 'items[0].minQuantity': '3', 'items[0].maxQuantity': '5' }));
    expect(outside.statusCode).toBe(400);
    expect(errorBeside(outside.body, 'items[0].minQuantity')).toBe('must have minimum ≤ quantity ≤ maximum (quantity is 2)');
    const tooMany = await staff.post('/portal/links', payForm(ctx, { 'items[0].minQuantity': '1', 'items[0].maxQuantity': '100' }));
    expect(errorBeside(tooMany.body, 'items[0].maxQuantity')).toBe('must be from 1 to 99');
    const half = await staff.post('/portal/links', payForm(ctx, { 'items[0].minQuantity': '1' }));
    expect(errorBeside(half.body, 'items[0].maxQuantity')).toBeDefined();

    const { browser } = await portalUser(ctx, 'staff');
    await browser.get('/portal/account');
    await browser.post('/portal/account/language', { language: 'is' });
    const form = await browser.get('/portal/links/new?type=PayByLink');
    expect(textOf(form.body)).toContain('Lágmarksmagn');
    // 3 units at 10 kr. less 1 kr. (29 kr.) is no whole price per unit.
    const odd = await browser.post(
      '/portal/links',
      payForm(ctx, {
        'items[0].quantity': '3',
        'items[0].unitPrice': '10',
        'items[0].minQuantity': '1',
        'items[0].maxQuantity': '5',
        'items[0].discount': '1',
      }),
    );
    expect(odd.statusCode).toBe(400);
    expect(errorBeside(odd.body, 'items[0].discount')).toContain('Upphæðin deilt með magni verður að vera heil tala');
    const isOutside = await browser.post('/portal/links', payForm(ctx, { 'items[0].minQuantity': '3', 'items[0].maxQuantity': '5' }));
    expect(errorBeside(isOutside.body, 'items[0].minQuantity')).toBe('Utan leyfilegra marka.');
    const after = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links');
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
  });

  it('shows the quantities a shopper chose on the payment’s page', async () => {
    const reference = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        amount: 300000,
        items: [
          { name: 'Kaffipoki', quantity: 2, unitPrice: 150000, amountWithoutDiscount: 300000, amount: 300000, adjustableQuantity: { minimum: 0, maximum: 5 } },
        ],
      }),
    );
    const s = new Shopper(ctx);
    await s.get(`/pay/${reference}`);
    const paid = await s.post(`/pay/${reference}`, {
      'qty-0': '3',
      shownTotal: '450000',
      cardNumber: '4242424242424242',
      expiryDate: FUTURE_EXPIRY,
      cvc: '123',
    });
    expect(paid.statusCode).toBe(303);
    const payfac = new URL(String(paid.headers.location), 'http://x').searchParams.get('p') as string;
    const page = await staff.get(`/portal/payments/${payfac}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toMatch(/Quantities chosen\s+3 × Kaffipoki: ISK\s?4,500/);
    // The link's page lists the submission with the items as chosen.
    const linkPage = await staff.get(`/portal/links/${reference}`);
    expect(linkPage.statusCode).toBe(200);
    expect(linkPage.body).toContain('data-chosen-items');
    expect(textOf(linkPage.body)).toMatch(/3 × Kaffipoki: ISK\s?4,500/);
  });
});
