import { describe, expect, it } from 'vitest';
import { createKey, createMerchant } from '../../src/accounts/service.js';
import { hmacSignature } from '../../src/webhooks/delivery/sign.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { call, type TestContext, asOperator } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { modificationsSuite, CARD, capture, deliveries, ledger, paidSession, refund, reverse, testProcessor } from './helpers.js';

// Captures, refunds and reversals (§Modifications and saved cards): the ledger rules, the webhook of each outcome, the delayed
// captures of §Hosted checkout, the §Clients in the field request shapes of the plugins in the field, isolation (§Authentication) and races.

let ctx: TestContext;
let processor: ModificationProcessor;
modificationsSuite((c, p) => {
  ctx = c;
  processor = p;
});

const manual = { isManualCapture: true };

describe('capture (§Modifications and saved cards, §Hosted checkout manual capture)', () => {
  it('answers Received with a new payfacReference, and the Capture webhook carries the original', async () => {
    const p = await paidSession(ctx, manual);
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ amount: 12345, captured_amount: 0, capture_state: 'Manual' });
    const r = await capture(ctx, p, 12345);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ status: 'Received' });
    expect(r.body.payfacReference).toMatch(/^\d{16}$/);
    expect(r.body.payfacReference).not.toBe(p.payfacReference);
    expect(typeof r.body.responseIdentifier).toBe('string');

    // Nothing moves until the acquirer has answered.
    expect((await ledger(ctx, p.payfacReference)).captured_amount).toBe(0);
    expect(await deliveries(ctx, 'Capture', p.payfacReference)).toEqual([]);

    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12345, capture_state: 'Captured' });
    const [body, ...more] = await deliveries(ctx, 'Capture', p.payfacReference);
    expect(more).toEqual([]);
    expect(body).toMatchObject({
      checkoutReference: p.checkoutReference,
      payfacReference: r.body.payfacReference,
      merchantReference: 'order-17',
      amount: '12345',
      currency: 'EUR',
      reason: null,
      success: 'true',
      additionalData: {
        eventType: 'Capture',
        originalPayfacReference: p.payfacReference,
        cardSummary: '4242',
        cardNumber: '424242******4242',
        paymentMethod: 'visa',
      },
    });
    expect(typeof body?.hmacSignature).toBe('string');
  });

  it('partial captures add up to at most the authorised amount; one more minor unit is refused with a field code', async () => {
    const p = await paidSession(ctx, manual);
    expect((await capture(ctx, p, 5000)).status).toBe(200);
    expect((await capture(ctx, p, 7000)).status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12000, capture_state: 'Manual' });
    const over = await capture(ctx, p, 346);
    expect(over.status).toBe(400);
    expect(over.res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(over.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'amount', code: 'EXCEEDS_CAPTURABLE' }] });
    expect((await capture(ctx, p, 345)).status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12345, capture_state: 'Captured' });
    expect((await deliveries(ctx, 'Capture', p.payfacReference)).map((b) => b.amount)).toEqual(['5000', '7000', '345']);
  });

  it('counts captures that are Received but not completed against the authorisation', async () => {
    const p = await paidSession(ctx, manual);
    expect((await capture(ctx, p, 10000)).status).toBe(200);
    // The processor has not run: 10000 is in progress, 2345 is what may still be asked for.
    const over = await capture(ctx, p, 2346);
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual([
      expect.objectContaining({ field: 'amount', code: 'EXCEEDS_CAPTURABLE', message: expect.stringContaining('captures in progress 10000') }),
    ]);
    expect((await capture(ctx, p, 2345)).status).toBe(200);
    await processor.settled();
    expect((await ledger(ctx, p.payfacReference)).captured_amount).toBe(12345);
  });

  it('refuses a capture above the authorisation, in another currency, and of a refused payment', async () => {
    const p = await paidSession(ctx, manual);
    const both = await capture(ctx, p, 12346, { currency: 'ISK' });
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'amount', code: 'EXCEEDS_CAPTURABLE' }),
        expect.objectContaining({ field: 'currency', code: 'CURRENCY_MISMATCH' }),
      ]),
    );
    const zero = await capture(ctx, p, 0);
    expect(zero.status).toBe(400);
    expect(zero.body.errors).toEqual([expect.objectContaining({ field: 'amount', code: 'RANGE' })]);

    const refused = await paidSession(ctx, manual, CARD.refused);
    const r = await capture(ctx, refused, 100);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('INVALID_STATE');
  });

  it('an automatically captured payment has nothing left to capture', async () => {
    const p = await paidSession(ctx);
    const r = await capture(ctx, p, 1);
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: 'amount', code: 'EXCEEDS_CAPTURABLE' })]);
  });

  it('a pre-authorisation (isPreAuth) is captured through the same path', async () => {
    const p = await paidSession(ctx, { isPreAuth: true });
    expect((await ledger(ctx, p.payfacReference)).capture_state).toBe('Manual');
    expect((await capture(ctx, p, 12345)).status).toBe(200);
    await processor.settled();
    expect((await ledger(ctx, p.payfacReference)).capture_state).toBe('Captured');
  });

  it('an acquirer refusal raises Capture with success "false" and its reason, and moves nothing', async () => {
    const p = await paidSession(ctx, manual, CARD.laterRefused);
    const r = await capture(ctx, p, 12345);
    expect(r.status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 0, capture_state: 'Manual' });
    const [body] = await deliveries(ctx, 'Capture', p.payfacReference);
    expect(body).toMatchObject({
      payfacReference: r.body.payfacReference,
      amount: '12345',
      success: 'false',
      reason: 'Refused',
      additionalData: { eventType: 'Capture', originalPayfacReference: p.payfacReference },
    });
    // Nothing was taken by the failed capture: the whole authorisation can be asked for again.
    expect((await capture(ctx, p, 12345)).status).toBe(200);
  });
});

describe('delayed capture (§Hosted checkout captureHoursDelay) runs on the injected clock', () => {
  it('is executed when due, through a capture modification and its Capture webhook', async () => {
    const p = await paidSession(ctx, { captureHoursDelay: 2 });
    expect((await ledger(ctx, p.payfacReference)).capture_state).toBe('Scheduled');
    await processor.settled();
    ctx.clock.advance(2 * 3_600_000 - 1_000);
    await processor.settled();
    expect((await ledger(ctx, p.payfacReference)).captured_amount).toBe(0);
    ctx.clock.advance(1_000);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12345, capture_state: 'Captured' });
    const bodies = await deliveries(ctx, 'Capture', p.payfacReference);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ amount: '12345', success: 'true', additionalData: { originalPayfacReference: p.payfacReference } });
    expect(bodies[0]?.payfacReference).not.toBe(p.payfacReference);
  });

  it('captures only what a merchant capture before the due time left uncaptured', async () => {
    const p = await paidSession(ctx, { captureHoursDelay: 1 });
    expect((await capture(ctx, p, 2345)).status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 2345, capture_state: 'Scheduled' });
    ctx.clock.advance(3_600_000);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12345, capture_state: 'Captured' });
    expect((await deliveries(ctx, 'Capture', p.payfacReference)).map((b) => b.amount)).toEqual(['2345', '10000']);
  });

  it('is called off by a reversal before it is due', async () => {
    const p = await paidSession(ctx, { captureHoursDelay: 1 });
    expect((await reverse(ctx, p)).status).toBe(200);
    ctx.clock.advance(3_600_000);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 0, capture_state: 'Cancelled' });
    expect(await deliveries(ctx, 'Capture', p.payfacReference)).toEqual([]);
  });
});

describe('refund (§Modifications and saved cards)', () => {
  it('partial refunds add up to at most the captured amount, counting those in progress', async () => {
    const p = await paidSession(ctx);
    const first = await refund(ctx, p, 5000);
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('Received');
    // 5000 in progress: 7345 is left.
    const over = await refund(ctx, p, 7346);
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'amount', code: 'EXCEEDS_REFUNDABLE' }] });
    expect((await refund(ctx, p, 7345)).status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12345, refunded_amount: 12345 });
    expect((await refund(ctx, p, 1)).status).toBe(400);

    const bodies = await deliveries(ctx, 'Refund', p.payfacReference);
    expect(bodies.map((b) => [b.amount, b.success, b.additionalData.eventType, b.additionalData.originalPayfacReference])).toEqual([
      ['5000', 'true', 'Refund', p.payfacReference],
      ['7345', 'true', 'Refund', p.payfacReference],
    ]);
    expect(bodies[0]).toMatchObject({
      payfacReference: first.body.payfacReference,
      checkoutReference: p.checkoutReference,
      merchantReference: 'order-17',
      currency: 'EUR',
      reason: null,
    });
  });

  it('nothing captured, nothing to refund', async () => {
    const p = await paidSession(ctx, manual);
    const r = await refund(ctx, p, 1);
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: 'amount', code: 'EXCEEDS_REFUNDABLE' })]);
    // A capture still in progress is not refundable yet.
    expect((await capture(ctx, p, 12345)).status).toBe(200);
    expect((await refund(ctx, p, 1)).status).toBe(400);
    await processor.settled();
    expect((await refund(ctx, p, 12345)).status).toBe(200);
  });

  it('refuses an unknown refundReason and another currency, naming both fields', async () => {
    const p = await paidSession(ctx);
    const r = await refund(ctx, p, 100, { refundReason: 'BORED', currency: 'USD' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'refundReason', code: 'ENUM' })]));
    const c = await refund(ctx, p, 100, { currency: 'USD' });
    expect(c.body.errors).toEqual([expect.objectContaining({ field: 'currency', code: 'CURRENCY_MISMATCH' })]);
  });

  it('takes refundReason in any case, as a shop plugin sends "Customer request", and stores and sends the canonical form', async () => {
    const p = await paidSession(ctx);
    const r = await refund(ctx, p, 1500, { refundReason: 'Customer request' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const { rows } = await ctx.tdb.db.pool.query<{ refund_reason: string }>('SELECT refund_reason FROM modifications WHERE payfac_reference = $1', [
      r.body.payfacReference,
    ]);
    expect(rows[0]?.refund_reason).toBe('CUSTOMER REQUEST');
    await processor.settled();
    const [body] = await deliveries(ctx, 'Refund', p.payfacReference);
    expect(body).toMatchObject({ success: 'true', additionalData: { refundReason: 'CUSTOMER REQUEST', originalPayfacReference: p.payfacReference } });
    expect((await refund(ctx, p, 100, { refundReason: 'return' })).status).toBe(200);
  });

  it('an acquirer refusal raises Refund with success "false" and leaves the ledger', async () => {
    const p = await paidSession(ctx, {}, CARD.laterRefused);
    const r = await refund(ctx, p, 2000);
    await processor.settled();
    expect((await ledger(ctx, p.payfacReference)).refunded_amount).toBe(0);
    const [body] = await deliveries(ctx, 'Refund', p.payfacReference);
    expect(body).toMatchObject({
      payfacReference: r.body.payfacReference,
      amount: '2000',
      success: 'false',
      reason: 'Refused',
      additionalData: { originalPayfacReference: p.payfacReference },
    });
  });
});

describe('reverse (§Modifications and saved cards)', () => {
  it('cancels an uncaptured payment: Refund webhook of the authorised amount, no capture afterwards', async () => {
    const p = await paidSession(ctx, manual);
    const r = await reverse(ctx, p);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('Received');
    // Being reversed: nothing more is accepted.
    const c = await capture(ctx, p, 100);
    expect(c.status).toBe(409);
    expect(c.body.code).toBe('INVALID_STATE');
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 0, refunded_amount: 0, capture_state: 'Cancelled' });
    const [body, ...more] = await deliveries(ctx, 'Refund', p.payfacReference);
    expect(more).toEqual([]);
    expect(body).toMatchObject({
      payfacReference: r.body.payfacReference,
      amount: '12345',
      success: 'true',
      additionalData: { eventType: 'Refund', originalPayfacReference: p.payfacReference },
    });
    expect((await capture(ctx, p, 100)).status).toBe(409);
    expect((await reverse(ctx, p)).status).toBe(409);
  });

  it('refunds a captured payment what is left after earlier refunds (accepted before it, completed first)', async () => {
    const p = await paidSession(ctx);
    expect((await refund(ctx, p, 2345)).status).toBe(200);
    const r = await reverse(ctx, p);
    expect(r.status).toBe(200);
    expect((await refund(ctx, p, 1)).status).toBe(409);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12345, refunded_amount: 12345, capture_state: 'Captured' });
    const bodies = await deliveries(ctx, 'Refund', p.payfacReference);
    expect(bodies.map((b) => [b.payfacReference === r.body.payfacReference, b.amount, b.success])).toEqual([
      [false, '2345', 'true'],
      [true, '10000', 'true'],
    ]);
  });

  it('a partly captured manual payment is refunded what was captured', async () => {
    const p = await paidSession(ctx, manual);
    expect((await capture(ctx, p, 4000)).status).toBe(200);
    expect((await reverse(ctx, p)).status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 4000, refunded_amount: 4000 });
    expect((await deliveries(ctx, 'Refund', p.payfacReference)).map((b) => b.amount)).toEqual(['4000']);
  });

  it('a fully refunded payment has nothing left to reverse', async () => {
    const p = await paidSession(ctx);
    expect((await refund(ctx, p, 12345)).status).toBe(200);
    const r = await reverse(ctx, p);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('INVALID_STATE');
  });

  it('a refused reversal raises Refund success "false"; the payment can then be modified again', async () => {
    const p = await paidSession(ctx, manual, CARD.laterRefused);
    const r = await reverse(ctx, p);
    await processor.settled();
    const [body] = await deliveries(ctx, 'Refund', p.payfacReference);
    expect(body).toMatchObject({ payfacReference: r.body.payfacReference, amount: '12345', success: 'false', reason: 'Refused' });
    expect((await ledger(ctx, p.payfacReference)).capture_state).toBe('Manual');
    expect((await capture(ctx, p, 100)).status).toBe(200);
  });
});

describe('isolation and access (§Authentication, §Errors)', () => {
  it("another merchant's payment is 404 in §Errors form, for each operation, and nothing is recorded", async () => {
    const p = await paidSession(ctx, manual);
    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    for (const r of [await capture(ctx, p, 100, {}, other.apiKey), await refund(ctx, p, 100, {}, other.apiKey), await reverse(ctx, p, other.apiKey)]) {
      expect(r.status).toBe(404);
      expect(r.res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 404, code: 'NOT_FOUND', type: 'about:blank' });
      expect(typeof r.body.message).toBe('string');
    }
    const { rows } = await ctx.tdb.db.pool.query('SELECT 1 FROM modifications WHERE original_payfac_reference = $1', [p.payfacReference]);
    expect(rows).toEqual([]);
    expect((await capture(ctx, 'no-such-payment', 100)).status).toBe(404);
  });

  it('needs the HostedCheckout capability (403) and a key (401)', async () => {
    const p = await paidSession(ctx, manual);
    const key = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks']);
    expect((await capture(ctx, p, 100, {}, key.apiKey)).status).toBe(403);
    const r = await call(ctx, 'POST', '/api/v1/modification/reverse', { reference: 'x', payfacReference: p.payfacReference }, { apiKey: null });
    expect(r.status).toBe(401);
  });
});

describe('request shapes of the clients in the field (§Clients in the field)', () => {
  it('WooCommerce: capture and reverse as the plugin sends them', async () => {
    const p = await paidSession(ctx, manual);
    const c = await call(
      ctx,
      'POST',
      '/api/v1/modification/capture',
      { reference: '1042', payfacReference: p.payfacReference, amount: 12345, currency: 'EUR' },
      { headers: { 'content-type': 'application/json' } },
    );
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    await processor.settled();
    const r = await call(ctx, 'POST', '/api/v1/modification/reverse', { reference: '1042', payfacReference: p.payfacReference });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('Adobe Commerce: refund with refundReason "CUSTOMER REQUEST" and an amount as digits', async () => {
    const p = await paidSession(ctx);
    const r = await call(ctx, 'POST', '/api/v1/modification/refund', {
      reference: '000000042',
      payfacReference: p.payfacReference,
      amount: '2000',
      currency: 'EUR',
      refundReason: 'CUSTOMER REQUEST',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await processor.settled();
    expect((await ledger(ctx, p.payfacReference)).refunded_amount).toBe(2000);
  });

  it('PascalCase names, digit-string amounts and null optional fields', async () => {
    const p = await paidSession(ctx);
    const r = await call(ctx, 'POST', '/api/v1/modification/refund', {
      Reference: 'order-17',
      PayfacReference: p.payfacReference,
      Amount: '345',
      Currency: 'EUR',
      RefundReason: null,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const c = await call(ctx, 'POST', '/api/v1/modification/capture', {
      REFERENCE: 'order-17',
      payfacreference: p.payfacReference,
      amount: '1',
      currency: 'EUR',
    });
    expect(c.status).toBe(400); // captured in full already: the shape is understood, the amount is not available
    expect(c.body.errors).toEqual([expect.objectContaining({ field: 'amount', code: 'EXCEEDS_CAPTURABLE' })]);
    const unknown = await call(ctx, 'POST', '/api/v1/modification/reverse', { reference: 'x', payfacReference: p.payfacReference, merchantAccount: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'merchantAccount', code: 'UNKNOWN_FIELD' })]);
  });
});

describe('webhook bodies are signed as every other (interface §5.2)', () => {
  it('the Refund delivery verifies with the webhook HMAC key', async () => {
    const reg = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/second', eventTypes: ['Refund'], description: 'verify' });
    const hmacKey = reg.body.hmacKey as string;
    const p = await paidSession(ctx);
    const r = await refund(ctx, p, 100);
    await processor.settled();
    const { rows } = await ctx.tdb.db.pool.query<{ body: string }>('SELECT body FROM webhook_deliveries WHERE webhook_id = $1 AND payfac_reference = $2', [
      reg.body.webhookId,
      r.body.payfacReference,
    ]);
    expect(rows).toHaveLength(1);
    const body = JSON.parse(rows[0]?.body ?? '{}') as Parameters<typeof hmacSignature>[1] & { hmacSignature: string };
    expect(body.hmacSignature).toBe(hmacSignature(hmacKey, body));
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${String(reg.body.webhookId)}/delete`)).status).toBe(200);
  });
});

describe('concurrency (PostgreSQL: PGlite has one connection, so its requests never overlap)', () => {
  it.skipIf(TEST_DB === 'pglite')('20 refunds racing on one payment never overdraw it', async () => {
    const p = await paidSession(ctx);
    const results = await Promise.all(Array.from({ length: 20 }, () => refund(ctx, p, 1000)));
    const accepted = results.filter((r) => r.status === 200).length;
    expect(accepted).toBe(12);
    expect(results.filter((r) => r.status === 400).every((r) => (r.body.errors as { code: string }[])[0]?.code === 'EXCEEDS_REFUNDABLE')).toBe(true);
    await processor.settled();
    expect((await ledger(ctx, p.payfacReference)).refunded_amount).toBe(12000);
    expect(await deliveries(ctx, 'Refund', p.payfacReference)).toHaveLength(12);
  });

  it.skipIf(TEST_DB === 'pglite')('captures and refunds racing, completed by two processors at once: each completed exactly once', async () => {
    const p = await paidSession(ctx, manual);
    const captures = await Promise.all(Array.from({ length: 15 }, () => capture(ctx, p, 1000)));
    expect(captures.filter((r) => r.status === 200)).toHaveLength(12);
    const second = testProcessor(ctx);
    await Promise.all([processor.settled(), second.settled()]);
    const refunds = await Promise.all(Array.from({ length: 15 }, () => refund(ctx, p, 1000)));
    expect(refunds.filter((r) => r.status === 200)).toHaveLength(12);
    await Promise.all([processor.settled(), second.settled()]);
    await second.stop();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12000, refunded_amount: 12000 });
    expect(await deliveries(ctx, 'Capture', p.payfacReference)).toHaveLength(12);
    expect(await deliveries(ctx, 'Refund', p.payfacReference)).toHaveLength(12);
  });
});
