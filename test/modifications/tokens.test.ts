import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { CARD, deliveries, ledger, refund, registerWebhook, testProcessor, tokenFromLink, tokenFromSession } from './helpers.js';

// Token payments and disable-token (D19): the model rules, the Authorization/Capture and
// TokenDisabled webhooks, refusals, isolation (D1), D18 request shapes, D16 idempotency.

let ctx: TestContext;
let processor: ModificationProcessor;

beforeAll(async () => {
  ctx = await createTestContext();
  processor = testProcessor(ctx);
  await registerWebhook(ctx);
});
afterAll(async () => {
  await processor.stop();
  await ctx?.close();
});
beforeEach(() => {
  ctx.clock.set(new Date());
});

function payment(token: string, model: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    amount: 4900,
    currency: 'EUR',
    reference: 'renewal-77',
    returnUrl: 'https://shop.example/return',
    channel: 'Web',
    shopperIp: '203.0.113.7',
    origin: 'https://shop.example',
    tokenDetails: { tokenValue: token, recurringProcessingModel: model },
    ...overrides,
  };
}

const pay = (body: Record<string, unknown>, opts: Parameters<typeof call>[4] = {}) => call(ctx, 'POST', '/api/v1/payment', body, opts);

describe('charging a saved card (D19)', () => {
  it('a Subscription token charged merchant-initiated: Authorised, then Authorization and Capture webhooks', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const r = await pay(payment(token, 'Subscription'));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ resultCode: 'Authorised' });
    expect(r.body.payfacReference).toMatch(/^\d{16}$/);
    expect(r.body).not.toHaveProperty('redirect');
    const payfacReference = r.body.payfacReference as string;
    expect(await ledger(ctx, payfacReference)).toMatchObject({ amount: 4900, captured_amount: 4900, capture_state: 'Captured' });

    const [auth] = await deliveries(ctx, 'Authorization', payfacReference);
    expect(auth).toMatchObject({
      // The charge is a checkout of its own; shop plugins need the reference on every event.
      checkoutReference: expect.stringMatching(/^cs_/),
      payfacReference,
      merchantReference: 'renewal-77',
      amount: '4900',
      currency: 'EUR',
      reason: null,
      success: 'true',
      additionalData: { eventType: 'Authorization', cardSummary: '4242', paymentMethod: 'visa', threeDAuthenticated: 'false' },
    });
    expect(auth?.additionalData.authCode).toMatch(/^\d{6}$/);
    const [cap] = await deliveries(ctx, 'Capture', payfacReference);
    expect(cap).toMatchObject({ payfacReference, amount: '4900', success: 'true', checkoutReference: auth?.checkoutReference });

    // A token payment is a payment like any other: it can be refunded.
    expect((await refund(ctx, payfacReference, 900)).status).toBe(200);
    await processor.settled();
    expect((await ledger(ctx, payfacReference)).refunded_amount).toBe(900);
  });

  it('the model decides who is present: any saved card with CardOnFile, merchant-initiated only for its own model', async () => {
    const subscription = await tokenFromSession(ctx, 'Subscription');
    const unscheduled = await tokenFromSession(ctx, 'UnscheduledCardOnFile');
    const cardOnFile = await tokenFromLink(ctx, 'CardOnFile');

    expect((await pay(payment(subscription, 'CardOnFile'))).body.resultCode).toBe('Authorised');
    expect((await pay(payment(unscheduled, 'UnscheduledCardOnFile'))).body.resultCode).toBe('Authorised');
    expect((await pay(payment(cardOnFile, 'CardOnFile'))).body.resultCode).toBe('Authorised');

    for (const [token, model] of [
      [cardOnFile, 'Subscription'],
      [cardOnFile, 'UnscheduledCardOnFile'],
      [subscription, 'UnscheduledCardOnFile'],
      [unscheduled, 'Subscription'],
    ] as const) {
      const r = await pay(payment(token, model, { reference: `mismatch-${model}` }));
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'tokenDetails.recurringProcessingModel', code: 'MODEL_MISMATCH' }] });
      // Refused before the acquirer: no payment, no webhook.
      const { rows } = await ctx.tdb.db.pool.query('SELECT 1 FROM payments WHERE merchant_reference = $1', [`mismatch-${model}`]);
      expect(rows).toEqual([]);
    }
  });

  it('a refusal answers Refused and raises Authorization success "false" without a Capture', async () => {
    const token = await tokenFromSession(ctx, 'Subscription', CARD.laterRefused);
    const r = await pay(payment(token, 'Subscription'));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ resultCode: 'Refused', refusalReason: 'Refused' });
    const payfacReference = r.body.payfacReference as string;
    const [auth] = await deliveries(ctx, 'Authorization', payfacReference);
    expect(auth).toMatchObject({ success: 'false', reason: 'Refused', amount: '4900' });
    expect(await deliveries(ctx, 'Capture', payfacReference)).toEqual([]);
    expect(await ledger(ctx, payfacReference)).toMatchObject({ captured_amount: 0, capture_state: 'None' });
    // A refused payment takes no modification.
    expect((await refund(ctx, payfacReference, 1)).status).toBe(409);
  });

  it('a card that has expired since it was saved is refused (Expired Card), judged on the injected clock', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    ctx.clock.set('2040-01-01T00:00:00.000Z'); // the test cards expire 12/2039
    const r = await pay(payment(token, 'Subscription'));
    expect(r.body).toMatchObject({ resultCode: 'Refused', refusalReason: 'Expired Card' });
  });

  it('reports every failing field at once: schema, returnUrl and terminal (D2, D1)', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const r = await pay(payment(token, 'Subscription', { amount: 0, returnUrl: 'ftp://x', terminalIdentifier: 'ZZZZZZZZZZZZ', channel: '' }));
    expect(r.status).toBe(400);
    const fields = (r.body.errors as { field: string; code: string }[]).map((e) => `${e.field}:${e.code}`).sort();
    expect(fields).toEqual(['amount:RANGE', 'channel:LENGTH', 'returnUrl:INVALID_RETURN_URL', 'terminalIdentifier:TERMINAL_NOT_FOUND']);
  });

  it('an Idempotency-Key makes a retry answer the first payment (D16)', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const headers = { 'idempotency-key': `renewal-${token}` };
    const first = await pay(payment(token, 'Subscription'), { headers });
    const again = await pay(payment(token, 'Subscription'), { headers });
    expect(again.body.payfacReference).toBe(first.body.payfacReference);
    const { rows } = await ctx.tdb.db.pool.query('SELECT 1 FROM payments WHERE charged_token = $1', [token]);
    expect(rows).toHaveLength(1);
    const other = await pay(payment(token, 'Subscription', { amount: 5000 }), { headers });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('disable-token (D19)', () => {
  it('answers success, raises TokenDisabled once, and the token is refused afterwards', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM payment_tokens WHERE token = $1', [token]);
    const saving = rows[0]?.payfac_reference ?? '';

    const r = await call(ctx, 'POST', '/api/v1/payment/disable-token', { tokenValue: token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true });
    expect(typeof r.body.responseDateTime).toBe('string');
    const [body, ...more] = await deliveries(ctx, 'TokenDisabled', saving);
    expect(more).toEqual([]);
    expect(body).toMatchObject({ payfacReference: saving, merchantReference: 'order-17', amount: '0', currency: 'EUR', success: 'true', additionalData: { eventType: 'TokenDisabled', token, cardSummary: '4242' } });

    const again = await call(ctx, 'POST', '/api/v1/payment/disable-token', { TokenValue: token });
    expect(again.status).toBe(200);
    expect(await deliveries(ctx, 'TokenDisabled', saving)).toHaveLength(1);

    const charge = await pay(payment(token, 'Subscription'));
    expect(charge.status).toBe(409);
    expect(charge.body.code).toBe('INVALID_STATE');
  });

  it("another merchant's token is not found (404) for charging and disabling (D1)", async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    const charge = await pay(payment(token, 'Subscription', { terminalIdentifier: other.terminalIdentifier }), { apiKey: other.apiKey });
    expect(charge.status).toBe(404);
    expect(charge.body).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const disable = await call(ctx, 'POST', '/api/v1/payment/disable-token', { tokenValue: token }, { apiKey: other.apiKey });
    expect(disable.status).toBe(404);
    // Still usable by its own merchant.
    expect((await pay(payment(token, 'Subscription'))).body.resultCode).toBe('Authorised');
    expect((await call(ctx, 'POST', '/api/v1/payment/disable-token', { tokenValue: 'tok_nope' })).status).toBe(404);
  });
});

describe('request shapes of the clients in the field (D18)', () => {
  it('WooCommerce subscription renewal, as the plugin sends it', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const r = await pay({
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 4900,
      currency: 'EUR',
      reference: '1077',
      shopperIp: '',
      origin: 'https://shop.example',
      channel: 'Web',
      returnUrl: 'https://shop.example/?wc-api=straumur',
      tokenDetails: { tokenValue: token, recurringProcessingModel: 'Subscription' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.resultCode).toBe('Authorised');
  });

  it('PascalCase names, a digit-string amount and null optional fields', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const r = await pay({
      TerminalIdentifier: ctx.merchant.terminalIdentifier,
      Amount: '4900',
      Currency: 'EUR',
      Reference: 'pascal-1',
      ReturnUrl: 'https://shop.example/return',
      Channel: 'Web',
      ShopperIp: null,
      Origin: null,
      TokenDetails: { TokenValue: token, RecurringProcessingModel: 'Subscription' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.resultCode).toBe('Authorised');
  });
});

describe('the OpenAPI document (issue 5)', () => {
  it('describes the five operations with examples', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const doc = JSON.parse(res.body) as { paths: Record<string, Record<string, { summary?: string; tags?: string[]; requestBody?: { content: Record<string, { schema: { examples?: unknown[] }; example?: unknown; examples?: unknown }> } }>> };
    for (const path of ['/api/v1/modification/capture', '/api/v1/modification/refund', '/api/v1/modification/reverse', '/api/v1/payment', '/api/v1/payment/disable-token']) {
      const op = doc.paths[path]?.post;
      expect(op?.summary, path).toMatch(/\w{4,}/);
      expect(op?.summary, path).not.toMatch(/\bD\d+\b/);
      expect(op?.tags?.length, path).toBe(1);
      const content = op?.requestBody?.content['application/json'];
      expect(JSON.stringify(content), path).toContain(path.includes('token') ? 'tokenValue' : path.includes('modification') ? 'payfacReference' : 'tokenDetails');
      expect(JSON.stringify(content), path).toMatch(/example/);
    }
  });
});
