import { describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import type { TestContext } from '../helpers/app.js';
import { modificationsSuite, CARD, adjust, capture, deliveries, ledger, paidSession, reverse } from './helpers.js';

// Adjusting an authorisation (docs/api.md, Adjust an authorisation): accepted as Received, completed by the
// processor with an Adjustment webhook, and the captures that follow are bounded by the adjusted amount.

let ctx: TestContext;
let processor: ModificationProcessor;
modificationsSuite((c, p) => {
  ctx = c;
  processor = p;
});

const manual = { isManualCapture: true };

async function adjustedAmount(payfacReference: string): Promise<number | null> {
  const { rows } = await ctx.tdb.db.pool.query<{ adjusted_amount: number | null }>('SELECT adjusted_amount FROM payments WHERE payfac_reference = $1', [
    payfacReference,
  ]);
  return rows[0]?.adjusted_amount ?? null;
}

describe('adjusting an authorisation', () => {
  it('raises the authorisation: Received, then an Adjustment webhook, and captures may then reach the new amount', async () => {
    const p = await paidSession(ctx, manual);
    const r = await adjust(ctx, p, 20000);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ status: 'Received' });
    expect(r.body.payfacReference).toMatch(/^\d{16}$/);
    expect(r.body.payfacReference).not.toBe(p.payfacReference);

    // Nothing moves until the acquirer has answered: the capture limit is still the first amount.
    expect(await adjustedAmount(p.payfacReference)).toBeNull();
    expect(await deliveries(ctx, 'Adjustment', p.payfacReference)).toEqual([]);
    expect((await capture(ctx, p, 12346)).body).toMatchObject({ errors: [{ field: 'amount', code: 'EXCEEDS_CAPTURABLE' }] });

    await processor.settled();
    expect(await adjustedAmount(p.payfacReference)).toBe(20000);
    // The amount the shopper authorised is kept.
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ amount: 12345, captured_amount: 0, capture_state: 'Manual' });
    const [body, ...more] = await deliveries(ctx, 'Adjustment', p.payfacReference);
    expect(more).toEqual([]);
    expect(body).toMatchObject({
      checkoutReference: p.checkoutReference,
      payfacReference: r.body.payfacReference,
      merchantReference: 'order-17',
      amount: '20000',
      currency: 'EUR',
      reason: null,
      success: 'true',
      additionalData: { eventType: 'Adjustment', originalPayfacReference: p.payfacReference, cardSummary: '4242' },
    });
    expect(typeof body?.hmacSignature).toBe('string');

    // Captures are now bounded by 20000, not 12345.
    expect((await capture(ctx, p, 15000)).status).toBe(200);
    expect((await capture(ctx, p, 5001)).body).toMatchObject({
      errors: [{ field: 'amount', code: 'EXCEEDS_CAPTURABLE', message: expect.stringContaining('authorised 20000') }],
    });
    expect((await capture(ctx, p, 5000)).status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 20000, capture_state: 'Captured' });
    // Captured in full: no more adjustments.
    expect((await adjust(ctx, p, 25000)).body).toMatchObject({ code: 'INVALID_STATE' });
  });

  it('lowers a pre-authorisation; a reversal then releases the adjusted amount', async () => {
    const p = await paidSession(ctx, { isPreAuth: true });
    expect((await adjust(ctx, p, 5000)).status).toBe(200);
    await processor.settled();
    expect(await adjustedAmount(p.payfacReference)).toBe(5000);
    expect((await capture(ctx, p, 5001)).body).toMatchObject({ errors: [{ field: 'amount', code: 'EXCEEDS_CAPTURABLE' }] });
    expect((await reverse(ctx, p)).status).toBe(200);
    await processor.settled();
    const [refund] = await deliveries(ctx, 'Refund', p.payfacReference);
    expect(refund).toMatchObject({ amount: '5000', success: 'true' });
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ capture_state: 'Cancelled' });
  });

  it('cannot go below what is captured or being captured; lowered to exactly that, the payment is captured in full', async () => {
    const p = await paidSession(ctx, manual);
    expect((await capture(ctx, p, 3000)).status).toBe(200);
    expect((await capture(ctx, p, 1000)).status).toBe(200);
    const below = await adjust(ctx, p, 3999);
    expect(below.status).toBe(400);
    expect(below.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'amount', code: 'BELOW_CAPTURED' }] });
    expect((await adjust(ctx, p, 4000)).status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 4000, capture_state: 'Captured' });
    expect(await adjustedAmount(p.payfacReference)).toBe(4000);
  });

  it('the sandbox refuses an increase above twice the first amount, with a failure webhook; twice exactly succeeds', async () => {
    const p = await paidSession(ctx, manual);
    expect((await adjust(ctx, p, 24691)).status).toBe(200);
    expect((await adjust(ctx, p, 24690)).status).toBe(200);
    await processor.settled();
    const [refused, accepted] = await deliveries(ctx, 'Adjustment', p.payfacReference);
    expect(refused).toMatchObject({ amount: '24691', success: 'false', reason: 'Amount exceeds 2 times the original authorisation' });
    expect(accepted).toMatchObject({ amount: '24690', success: 'true', reason: null });
    expect(await adjustedAmount(p.payfacReference)).toBe(24690);
    // Twice the first amount, not twice the adjusted one.
    expect((await adjust(ctx, p, 30000)).status).toBe(200);
    await processor.settled();
    expect((await deliveries(ctx, 'Adjustment', p.payfacReference))[2]).toMatchObject({ success: 'false' });
    expect(await adjustedAmount(p.payfacReference)).toBe(24690);
  });

  it('the test card that refuses adjustments: Adjustment success "false", the authorisation unchanged, captures still work', async () => {
    const p = await paidSession(ctx, manual, CARD.adjustRefused);
    expect((await adjust(ctx, p, 10000)).status).toBe(200);
    await processor.settled();
    expect(await deliveries(ctx, 'Adjustment', p.payfacReference)).toEqual([expect.objectContaining({ success: 'false', reason: 'Adjustment Refused' })]);
    expect(await adjustedAmount(p.payfacReference)).toBeNull();
    expect((await capture(ctx, p, 12345)).status).toBe(200);
    await processor.settled();
    expect(await deliveries(ctx, 'Capture', p.payfacReference)).toEqual([expect.objectContaining({ success: 'true' })]);
  });

  it('refuses payments captured at once, refused, reversed, another currency, and another merchant (404)', async () => {
    const captured = await paidSession(ctx);
    expect((await adjust(ctx, captured, 100)).body).toMatchObject({ code: 'INVALID_STATE' });
    expect((await adjust(ctx, captured, 100)).status).toBe(409);

    const delayed = await paidSession(ctx, { captureHoursDelay: 2 });
    expect((await adjust(ctx, delayed, 100)).status).toBe(409);

    const p = await paidSession(ctx, manual);
    const currency = await adjust(ctx, p, 100, { currency: 'USD' });
    expect(currency.status).toBe(400);
    expect(currency.body).toMatchObject({ errors: [{ field: 'currency', code: 'CURRENCY_MISMATCH' }] });
    expect((await adjust(ctx, p, 0)).status).toBe(400);

    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    expect((await adjust(ctx, p, 100, {}, other.apiKey)).status).toBe(404);

    expect((await reverse(ctx, p)).status).toBe(200);
    expect((await adjust(ctx, p, 100)).status).toBe(409);
    await processor.settled();
  });

  it('takes the request shapes of the plugins in the field: a digit-string amount and any case of field names', async () => {
    const p = await paidSession(ctx, manual);
    const r = await adjust(ctx, p, '15000', { Currency: 'EUR', currency: undefined });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await processor.settled();
    expect(await adjustedAmount(p.payfacReference)).toBe(15000);
  });
});
