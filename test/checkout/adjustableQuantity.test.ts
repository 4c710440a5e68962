import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, eventsOf, linkDetails, payByLink, Shopper, FUTURE_EXPIRY } from './fixtures.js';

// The payment page of a link whose items have an adjustable quantity (docs/rules.md, §Adjustable
// quantities): "Update total" without JavaScript, the payment charging the items at the chosen
// quantities, refusals of quantities out of range, and what is kept of the choice. The webhook
// bodies stay as the provider defines them, carrying the amount charged.

const CARD = '4242424242424242';
const THREE_DS = '4000000000003220';

// EUR: a mug at 10.00 (2 of them, 0 to 5), a tea at 15.00 discounted to 10.00 (fixed at 1).
const EUR_ITEMS = [
  { name: 'Mug', quantity: 2, unitPrice: 1000, amountWithoutDiscount: 2000, amount: 2000, adjustableQuantity: { minimum: 0, maximum: 5 } },
  { name: 'Tea', quantity: 1, unitPrice: 1500, amountWithoutDiscount: 1500, amount: 1000, adjustableQuantity: { minimum: 0, maximum: 3 } },
  { name: 'Postage', quantity: 1, unitPrice: 500, amountWithoutDiscount: 500, amount: 500 },
];

function payfacOf(location: string): string {
  return new URL(location, 'http://x').searchParams.get('p') as string;
}

async function payment(ctx: TestContext, payfacReference: string): Promise<{ amount: number; chosen: unknown }> {
  const { rows } = await ctx.tdb.db.pool.query<{ amount: string; chosen: unknown }>(
    'SELECT amount, chosen_items AS chosen FROM payments WHERE payfac_reference = $1',
    [payfacReference],
  );
  return { amount: Number(rows[0]?.amount), chosen: rows[0]?.chosen };
}

async function paymentsOn(ctx: TestContext, reference: string): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE payment_link_reference = $1', [reference]);
  return rows[0]?.n ?? 0;
}

const card = (cardNumber = CARD) => ({ cardNumber, expiryDate: FUTURE_EXPIRY, cvc: '123' });

describe('adjustable quantities on the payment page', () => {
  let ctx: TestContext;
  let eur: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    eur = await createLink(ctx, payByLink(ctx, { culture: 'en', currency: 'EUR', amount: 3500, items: EUR_ITEMS }));
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('shows a number input with the range for each adjustable item, and an Update total button that sends no card', async () => {
    const s = new Shopper(ctx);
    const page = await s.get(`/pay/${eur}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(
      /<label for="qty-0">Quantity of Mug<\/label><input type="number" id="qty-0" name="qty-0" inputmode="numeric" min="0" max="5" step="1" value="2"/,
    );
    expect(page.body).toContain('<span class="hint" id="qty-1-hint">From 0 to 3</span>');
    expect(page.body).not.toContain('id="qty-2"');
    expect(page.body).toMatch(/<button type="submit" class="secondary" name="updateTotal" value="yes" formnovalidate data-update-total>Update total<\/button>/);
    expect(page.body).toContain('<input type="hidden" name="shownTotal" value="3500"/>');
    expect(page.body).toContain('Pay €35.00');
  });

  it('Update total: the page again with the lines and the total at the new quantities, nothing paid', async () => {
    const s = new Shopper(ctx);
    await s.get(`/pay/${eur}`);
    const updated = await s.post(`/pay/${eur}`, { 'qty-0': '4', 'qty-1': '0', updateTotal: 'yes', lang: 'en' });
    expect(updated.statusCode).toBe(200);
    expect(updated.body).toContain('data-total aria-live="polite">€45.00</td>');
    expect(updated.body).toContain('Pay €45.00');
    expect(updated.body).toContain('The total is updated: €45.00.');
    expect(updated.body).toContain('<input type="hidden" name="shownTotal" value="4500"/>');
    expect(updated.body).toMatch(/id="qty-0" name="qty-0"[^>]*value="4"/);
    expect(await paymentsOn(ctx, eur)).toBe(0);

    // In Icelandic, with a card typed before pressing it: the card is not shown again, and the page says so.
    const is = await s.post(`/pay/${eur}`, { 'qty-0': '1', updateTotal: 'yes', lang: 'is', ...card() });
    expect(is.statusCode).toBe(200);
    expect(is.body).toContain('Samtalan hefur verið uppfærð');
    expect(is.body).toContain('Kortanúmer og öryggisnúmer eru ekki geymd');
    expect(is.body).not.toContain(CARD);
  });

  it('charges the items at the chosen quantities and keeps them with the payment and the submission; the events carry the amount charged', async () => {
    const s = new Shopper(ctx);
    await s.get(`/pay/${eur}`);
    const res = await s.post(`/pay/${eur}`, { 'qty-0': '3', 'qty-1': '2', shownTotal: '5500', ...card() });
    expect(res.statusCode, res.body.slice(0, 400)).toBe(303);
    const p = await payment(ctx, payfacOf(String(res.headers.location)));
    // 3 mugs at 10.00, 2 teas at 10.00 after discount, postage 5.00.
    expect(p.amount).toBe(5500);
    const chosen = [
      { name: 'Mug', quantity: 3, amount: 3000 },
      { name: 'Tea', quantity: 2, amount: 2000 },
      { name: 'Postage', quantity: 1, amount: 500 },
    ];
    expect(p.chosen).toEqual(chosen);
    const link = await linkDetails(ctx, eur);
    const submissions = link.submissions as Record<string, unknown>[];
    expect(submissions.at(-1)).toMatchObject({ completed: true, amount: 5500, items: chosen });
    expect(link.amount).toBe(3500);

    const events = await eventsOf(ctx, payfacOf(String(res.headers.location)));
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(Number(e.message.amount)).toBe(5500);
      expect(JSON.stringify(e.message)).not.toMatch(/quantit|chosen|"items"/i);
    }
    // A link without adjustable items: the same event keys, and a submission without items.
    const plain = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const plainRes = await new Shopper(ctx).payWith(`/pay/${plain}`, CARD);
    const plainEvents = await eventsOf(ctx, payfacOf(String(plainRes.headers.location)));
    expect(plainEvents.map((e) => Object.keys(e.message).sort())).toEqual(events.map((e) => Object.keys(e.message).sort()));
    expect((await linkDetails(ctx, plain)).submissions).toEqual([expect.not.objectContaining({ items: expect.anything() })]);
    expect((await payment(ctx, payfacOf(String(plainRes.headers.location)))).chosen).toBeNull();
  });

  it('refuses a quantity out of its range, or a change to an item without one, beside its input, and charges nothing', async () => {
    const s = new Shopper(ctx);
    await s.get(`/pay/${eur}`);
    const before = await paymentsOn(ctx, eur);
    for (const [field, value] of [
      ['qty-0', '6'],
      ['qty-0', '-1'],
      ['qty-1', '1.5'],
      ['qty-1', 'two'],
    ] as const) {
      const res = await s.post(`/pay/${eur}`, { [field]: value, lang: 'en', ...card() });
      expect(res.statusCode, `${field}=${value}`).toBe(400);
      expect(res.body).toContain(`<p class="error" id="${field}-error">Choose a number in the range shown.</p>`);
      expect(res.body).toMatch(new RegExp(`id="${field}"[^>]*aria-describedby="${field}-hint ${field}-error" aria-invalid="true"`));
    }
    // The same through Update total.
    const update = await s.post(`/pay/${eur}`, { 'qty-0': '99', updateTotal: 'yes', lang: 'en' });
    expect(update.statusCode).toBe(400);
    expect(update.body).toContain('id="qty-0-error"');
    // A quantity for the fixed item (Postage) is not read from the form: the page has no input for it.
    const fixed = await s.post(`/pay/${eur}`, { 'qty-2': '9', shownTotal: '3500', ...card() });
    expect(fixed.statusCode).toBe(303);
    expect((await payment(ctx, payfacOf(String(fixed.headers.location)))).amount).toBe(3500);
    expect(await paymentsOn(ctx, eur)).toBe(before + 1);
  });

  it('keeps at least one item and something to pay', async () => {
    const s = new Shopper(ctx);
    const only = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        currency: 'EUR',
        amount: 1000,
        items: [{ name: 'Ticket', quantity: 1, unitPrice: 1000, amountWithoutDiscount: 1000, amount: 1000, adjustableQuantity: { minimum: 0, maximum: 4 } }],
      }),
    );
    await s.get(`/pay/${only}`);
    const none = await s.post(`/pay/${only}`, { 'qty-0': '0', lang: 'en', ...card() });
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('<p class="error" id="quantities-error">Keep at least one item in the order.</p>');
    const free = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        currency: 'EUR',
        amount: 1000,
        items: [
          { name: 'Ticket', quantity: 1, unitPrice: 1000, amountWithoutDiscount: 1000, amount: 1000, adjustableQuantity: { minimum: 0, maximum: 4 } },
          { name: 'Programme', quantity: 1, unitPrice: 0, amountWithoutDiscount: 0, amount: 0 },
        ],
      }),
    );
    await s.get(`/pay/${free}`);
    const zero = await s.post(`/pay/${free}`, { 'qty-0': '0', updateTotal: 'yes', lang: 'en' });
    expect(zero.statusCode).toBe(400);
    expect(zero.body).toContain('The order must cost something: add an item.');
    expect(await paymentsOn(ctx, only)).toBe(0);
    expect(await paymentsOn(ctx, free)).toBe(0);
  });

  it('does not charge a total the shopper was not shown: quantities changed without Update total show the new total first', async () => {
    const s = new Shopper(ctx);
    await s.get(`/pay/${eur}`);
    const before = await paymentsOn(ctx, eur);
    const changed = await s.post(`/pay/${eur}`, { 'qty-0': '5', shownTotal: '3500', lang: 'en', ...card() });
    expect(changed.statusCode).toBe(409);
    expect(changed.body).toContain('The total for these quantities is €65.00. Check your order and pay again.');
    expect(changed.body).toContain('Pay €65.00');
    expect(changed.body).toContain('<input type="hidden" name="shownTotal" value="6500"/>');
    expect(await paymentsOn(ctx, eur)).toBe(before);
    const paid = await s.post(`/pay/${eur}`, { 'qty-0': '5', shownTotal: '6500', ...card() });
    expect(paid.statusCode).toBe(303);
    expect((await payment(ctx, payfacOf(String(paid.headers.location)))).amount).toBe(6500);
  });

  it('charges nothing where quantities can change and the post does not say which total it showed', async () => {
    const s = new Shopper(ctx);
    await s.get(`/pay/${eur}`);
    const before = await paymentsOn(ctx, eur);
    const posts: Record<string, string>[] = [{ 'qty-0': '5' }, { 'qty-0': '1' }, { 'qty-0': '5', shownTotal: 'lots' }];
    for (const fields of posts) {
      const res = await s.post(`/pay/${eur}`, { ...fields, lang: 'en', ...card() });
      expect(res.statusCode, JSON.stringify(fields)).toBe(409);
      expect(res.body).toContain('Check your order and pay again.');
    }
    expect(await paymentsOn(ctx, eur)).toBe(before);
  });

  it('ISK: whole krónur per unit, and the total at the chosen quantities', async () => {
    const ref = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'is',
        currency: 'ISK',
        amount: 129000,
        items: [
          { name: 'Lopapeysa', quantity: 1, unitPrice: 99000, amountWithoutDiscount: 99000, amount: 89000, adjustableQuantity: { minimum: 1, maximum: 3 } },
          { name: 'Vettlingar', quantity: 2, unitPrice: 20000, amountWithoutDiscount: 40000, amount: 40000, adjustableQuantity: { minimum: 0, maximum: 6 } },
        ],
      }),
    );
    const s = new Shopper(ctx);
    const page = await s.get(`/pay/${ref}`);
    expect(page.body).toContain('Greiða 1.290\u00a0kr.');
    const updated = await s.post(`/pay/${ref}`, { 'qty-0': '2', 'qty-1': '5', updateTotal: 'yes', lang: 'is' });
    // 2 × 890 + 5 × 200 = 2.780 kr.
    expect(updated.body).toContain('Greiða 2.780\u00a0kr.');
    const paid = await s.post(`/pay/${ref}`, { 'qty-0': '2', 'qty-1': '5', shownTotal: '278000', ...card() });
    expect(paid.statusCode).toBe(303);
    const p = await payment(ctx, payfacOf(String(paid.headers.location)));
    expect(p.amount).toBe(278000);
    expect(p.amount % 100).toBe(0);
  });

  it('keeps the quantities through a 3-D Secure step', async () => {
    const s = new Shopper(ctx);
    await s.get(`/pay/${eur}`);
    const step = await s.post(`/pay/${eur}`, { 'qty-0': '1', 'qty-1': '0', shownTotal: '1500', ...card(THREE_DS) });
    expect(step.statusCode).toBe(200);
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] as string;
    const done = await s.post(`/pay/${eur}/3ds`, { challenge, action: 'confirm' });
    expect(done.statusCode).toBe(303);
    const p = await payment(ctx, payfacOf(String(done.headers.location)));
    expect(p.amount).toBe(1500);
    expect(p.chosen).toEqual([
      { name: 'Mug', quantity: 1, amount: 1000 },
      { name: 'Tea', quantity: 0, amount: 0 },
      { name: 'Postage', quantity: 1, amount: 500 },
    ]);
  });
});
