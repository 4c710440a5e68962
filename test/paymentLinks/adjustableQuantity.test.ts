import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, details, fieldsOf, payByLink, storedRow } from './fixtures.js';

// An item's adjustableQuantity through the API (docs/rules.md, §Adjustable quantities): the rules
// the link service checks once for the API, the portal and the CLI, and the read answer, which has
// the key only on an item that has it. What the payment page and the payment do with it is in
// test/checkout/adjustableQuantity.test.ts.

const CREATE = '/api/v1/paymentlinks/create';
const UPDATE = '/api/v1/paymentlinks/update';

const MUG = { name: 'Mug', quantity: 2, unitPrice: 1000, amountWithoutDiscount: 2000, amount: 2000 };
const TEA = { name: 'Tea', quantity: 1, unitPrice: 1500, amountWithoutDiscount: 1500, amount: 1000 };

describe('adjustable quantities of a link’s items in the API', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('stores the range and reads it back on that item only; a link without one reads as before', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { items: [{ ...MUG, adjustableQuantity: { minimum: 0, maximum: 10 } }, TEA] }));
    const link = await details(ctx, ref);
    const items = link.items as Record<string, unknown>[];
    expect(items[0]).toEqual({ ...MUG, adjustableQuantity: { minimum: 0, maximum: 10 } });
    expect(items[1]).toEqual(TEA);
    expect(Object.keys(items[1] ?? {}).sort()).toEqual(['amount', 'amountWithoutDiscount', 'name', 'quantity', 'unitPrice']);

    const plain = await createLink(ctx, payByLink(ctx));
    const r = await call(ctx, 'GET', `/api/v1/paymentlinks/${plain}`);
    expect(JSON.stringify(r.body)).not.toContain('adjustableQuantity');
    const stored = (await storedRow(ctx, plain)) as { items: unknown[] };
    expect(JSON.stringify(stored.items)).not.toContain('adjustableQuantity');
  });

  it('refuses a range that does not hold the quantity, bounds past 0–99 and unknown keys, every field at once', async () => {
    const r = await call(
      ctx,
      'POST',
      CREATE,
      payByLink(ctx, {
        items: [
          { ...MUG, adjustableQuantity: { minimum: 3, maximum: 10 } },
          { ...TEA, adjustableQuantity: { minimum: -1, maximum: 100, step: 2 } },
        ],
      }),
    );
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    const fields = fieldsOf(r.body);
    expect(fields).toContainEqual({ field: 'items[0].adjustableQuantity', code: 'RANGE' });
    expect(fields.map((f) => f.field).sort()).toEqual([
      'items[0].adjustableQuantity',
      'items[1].adjustableQuantity.maximum',
      'items[1].adjustableQuantity.minimum',
      'items[1].adjustableQuantity.step',
    ]);
    const mine = (r.body.errors as { field: string; message: string }[]).find((e) => e.field === 'items[0].adjustableQuantity');
    expect(mine?.message).toBe('must have minimum ≤ quantity ≤ maximum (quantity is 2)');
  });

  it('needs a whole price per unit (amount ÷ quantity), ending in 00 for ISK', async () => {
    // 1000 for 3 units is no whole number per unit.
    const odd = { name: 'Bun', quantity: 3, unitPrice: 400, amountWithoutDiscount: 1200, amount: 1000, adjustableQuantity: { minimum: 1, maximum: 5 } };
    const r = await call(ctx, 'POST', CREATE, payByLink(ctx, { amount: 1000, items: [odd] }));
    expect(fieldsOf(r.body)).toEqual([{ field: 'items[0].amount', code: 'NOT_WHOLE_PER_UNIT' }]);

    // ISK: 2 units for 1000 kr. (100000) are 500 kr. a unit: fine; 3 units for 1500 kr. are 500 kr.: fine; 2 for 3 kr. are 1.50 kr.
    const isk = (amount: number, quantity: number) => ({
      name: 'Kaffi',
      quantity,
      unitPrice: amount / quantity,
      amountWithoutDiscount: amount,
      amount,
      adjustableQuantity: { minimum: 1, maximum: 9 },
    });
    expect((await call(ctx, 'POST', CREATE, payByLink(ctx, { currency: 'ISK', amount: 100000, items: [isk(100000, 2)] }))).status).toBe(200);
    expect((await call(ctx, 'POST', CREATE, payByLink(ctx, { currency: 'ISK', amount: 150000, items: [isk(150000, 3)] }))).status).toBe(200);
    const cents = await call(ctx, 'POST', CREATE, payByLink(ctx, { currency: 'ISK', amount: 300, items: [isk(300, 2)] }));
    expect(fieldsOf(cents.body)).toEqual([{ field: 'items[0].amount', code: 'NOT_MULTIPLE_OF_100' }]);
  });

  it('keeps the link amount equal to the items at their own quantities, and the highest total payable', async () => {
    const wrong = await call(ctx, 'POST', CREATE, payByLink(ctx, { amount: 4000, items: [{ ...MUG, adjustableQuantity: { minimum: 1, maximum: 4 } }, TEA] }));
    expect(fieldsOf(wrong.body)).toEqual([{ field: 'items', code: 'SUM_MISMATCH' }]);
    const big = { name: 'Car', quantity: 1, unitPrice: 90_000_000_000, amountWithoutDiscount: 90_000_000_000, amount: 90_000_000_000 };
    const tooMuch = await call(
      ctx,
      'POST',
      CREATE,
      payByLink(ctx, { amount: 90_000_000_000, items: [{ ...big, adjustableQuantity: { minimum: 1, maximum: 2 } }] }),
    );
    expect(fieldsOf(tooMuch.body)).toEqual([{ field: 'items', code: 'RANGE' }]);
  });

  it('is refused on a TokenizeByLink, whose items must be empty', async () => {
    const r = await call(ctx, 'POST', CREATE, {
      type: 'TokenizeByLink',
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 0,
      currency: 'ISK',
      recurringProcessingModel: 'CardOnFile',
      items: [{ ...MUG, adjustableQuantity: { minimum: 1, maximum: 3 } }],
    });
    expect(fieldsOf(r.body)).toContainEqual({ field: 'items', code: 'COUNT' });
  });

  it('is set, changed and removed by an update before the first sale, under the same rules', async () => {
    const ref = await createLink(ctx, payByLink(ctx));
    const set = await call(ctx, 'POST', UPDATE, { paymentLinkReference: ref, items: [{ ...MUG, adjustableQuantity: { minimum: 1, maximum: 6 } }, TEA] });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(((await details(ctx, ref)).items as Record<string, unknown>[])[0]).toHaveProperty('adjustableQuantity', { minimum: 1, maximum: 6 });
    const bad = await call(ctx, 'POST', UPDATE, { paymentLinkReference: ref, items: [{ ...MUG, adjustableQuantity: { minimum: 1, maximum: 1 } }, TEA] });
    expect(fieldsOf(bad.body)).toEqual([{ field: 'items[0].adjustableQuantity', code: 'RANGE' }]);
    const removed = await call(ctx, 'POST', UPDATE, { paymentLinkReference: ref, items: [MUG, TEA] });
    expect(removed.status).toBe(200);
    expect(JSON.stringify((await details(ctx, ref)).items)).not.toContain('adjustableQuantity');
  });
});
