import { describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { call, type TestContext } from '../helpers/app.js';
import { Shopper, createSession } from '../checkout/fixtures.js';
import { modificationsSuite, CARD, deliveries, ledger, refund, tokenFromLink, tokenFromSession } from './helpers.js';

// Token payments and disable-token (§Modifications and saved cards): the model rules, the Authorization/Capture and
// TokenDisabled webhooks, refusals, isolation (§Authentication), §Clients in the field request shapes, §Idempotent creates idempotency.

let ctx: TestContext;
let processor: ModificationProcessor;
modificationsSuite((c, p) => {
  ctx = c;
  processor = p;
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

describe('charging a saved card (§Modifications and saved cards)', () => {
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

  it('reports every failing field at once: schema, returnUrl and terminal (§Errors, §Authentication)', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const r = await pay(payment(token, 'Subscription', { amount: 0, returnUrl: 'ftp://x', terminalIdentifier: 'ZZZZZZZZZZZZ', channel: '' }));
    expect(r.status).toBe(400);
    const fields = (r.body.errors as { field: string; code: string }[]).map((e) => `${e.field}:${e.code}`).sort();
    expect(fields).toEqual(['amount:RANGE', 'channel:LENGTH', 'returnUrl:INVALID_RETURN_URL', 'terminalIdentifier:TERMINAL_NOT_FOUND']);
  });

  it('an Idempotency-Key makes a retry answer the first payment (§Idempotent creates)', async () => {
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

describe('disable-token (§Modifications and saved cards)', () => {
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
    expect(body).toMatchObject({
      payfacReference: saving,
      merchantReference: 'order-17',
      amount: '0',
      currency: 'EUR',
      success: 'true',
      additionalData: { eventType: 'TokenDisabled', token, cardSummary: '4242' },
    });

    const again = await call(ctx, 'POST', '/api/v1/payment/disable-token', { TokenValue: token });
    expect(again.status).toBe(200);
    expect(await deliveries(ctx, 'TokenDisabled', saving)).toHaveLength(1);

    const charge = await pay(payment(token, 'Subscription'));
    expect(charge.status).toBe(409);
    expect(charge.body.code).toBe('INVALID_STATE');
  });

  it("another merchant's token is not found (404) for charging and disabling (§Authentication)", async () => {
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

describe('request shapes of the clients in the field (§Clients in the field)', () => {
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

describe('the OpenAPI document ', () => {
  it('describes the five operations with examples', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const doc = JSON.parse(res.body) as {
      paths: Record<
        string,
        Record<
          string,
          {
            summary?: string;
            tags?: string[];
            requestBody?: { content: Record<string, { schema: { examples?: unknown[] }; example?: unknown; examples?: unknown }> };
          }
        >
      >;
    };
    for (const path of [
      '/api/v1/modification/capture',
      '/api/v1/modification/refund',
      '/api/v1/modification/reverse',
      '/api/v1/payment',
      '/api/v1/payment/disable-token',
    ]) {
      const op = doc.paths[path]?.post;
      expect(op?.summary, path).toMatch(/\w{4,}/);
      expect(op?.summary, path).not.toMatch(/\bD\d+\b/);
      expect(op?.tags?.length, path).toBe(1);
      const content = op?.requestBody?.content['application/json'];
      expect(JSON.stringify(content), path).toContain(
        path.includes('token') ? 'tokenValue' : path.includes('modification') ? 'payfacReference' : 'tokenDetails',
      );
      expect(JSON.stringify(content), path).toMatch(/example/);
    }
  });
});

describe('a saved card that asks for 3-D Secure again', () => {
  /** A card saved with the 3-D Secure test card, through its confirm step on a session's page. */
  async function threeDSToken(model: string): Promise<string> {
    const reference = await createSession(ctx, { recurringProcessingModel: model });
    const s = new Shopper(ctx);
    const step = await s.payWith(`/checkout/${reference}`, '4000000000003220');
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] ?? '';
    const done = await s.post(`/checkout/${reference}/3ds`, { challenge, action: 'confirm' });
    expect(done.statusCode).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ token: string }>(
      "SELECT message->'additionalData'->>'token' AS token FROM webhook_events WHERE event_type = 'Tokenization' AND message->>'checkoutReference' = $1",
      [reference],
    );
    return rows[0]?.token ?? '';
  }

  it('answers RedirectShopper to a shopper-present web charge; confirmed, the shopper returns to returnUrl and the webhooks follow', async () => {
    const token = await threeDSToken('CardOnFile');
    const r = await pay(payment(token, 'CardOnFile', { reference: 'order-3ds', returnUrl: 'https://shop.example/return?order=9' }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      resultCode: 'RedirectShopper',
      redirect: { url: expect.stringMatching(/^http:\/\/paylinks\.test\/charge\/cs_[A-Za-z0-9_-]{22}$/) },
    });
    const payfacReference = r.body.payfacReference as string;
    // Nothing is charged, and no webhook sent, before the shopper has taken the step.
    expect(await deliveries(ctx, 'Authorization', payfacReference)).toEqual([]);
    const path = new URL((r.body.redirect as { url: string }).url).pathname;
    const checkoutReference = path.split('/').pop() ?? '';

    const s = new Shopper(ctx);
    const page = await s.get(`${path}?lang=en`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('ending in 3220');
    // The merchant's name, asked of accounts (docs/architecture.md: tables read across modules).
    expect(page.body).toContain('Test merchant');
    const done = await s.post(`${path}/3ds`, { challenge: checkoutReference, action: 'confirm', lang: 'en' });
    expect(done.statusCode).toBe(303);
    const outcome = await s.get(done.headers.location as string);
    expect(outcome.body).toContain('Payment successful');
    const back = `https://shop.example/return?order=9&amp;checkoutReference=${checkoutReference}`;
    expect(outcome.body).toContain(`href="${back}"`);

    const [auth] = await deliveries(ctx, 'Authorization', payfacReference);
    expect(auth).toMatchObject({
      checkoutReference,
      payfacReference,
      merchantReference: 'order-3ds',
      amount: '4900',
      success: 'true',
      additionalData: { threeDAuthenticated: 'true' },
    });
    expect(await deliveries(ctx, 'Capture', payfacReference)).toHaveLength(1);
    // The step is taken once: confirming again changes nothing.
    expect((await s.post(`${path}/3ds`, { challenge: checkoutReference, action: 'confirm' })).statusCode).toBe(410);
    expect(await deliveries(ctx, 'Authorization', payfacReference)).toHaveLength(1);
  });

  it('records a cancelled step as a refused charge (3D Not Authenticated), and never redirects a merchant-initiated charge', async () => {
    const token = await threeDSToken('Subscription');
    const r = await pay(payment(token, 'CardOnFile', { reference: 'order-3ds-cancel' }));
    expect(r.body.resultCode).toBe('RedirectShopper');
    const path = new URL((r.body.redirect as { url: string }).url).pathname;
    const s = new Shopper(ctx);
    await s.get(path);
    expect((await s.post(`${path}/3ds`, { challenge: 'x', action: 'cancel' })).statusCode).toBe(303);
    const [auth] = await deliveries(ctx, 'Authorization', r.body.payfacReference as string);
    expect(auth).toMatchObject({ success: 'false', reason: '3D Not Authenticated' });

    const renewal = await pay(payment(token, 'Subscription', { reference: 'renewal-3ds' }));
    expect(renewal.body).toMatchObject({ resultCode: 'Authorised' });
    expect(renewal.body).not.toHaveProperty('redirect');
    // Shopper present in an app, not on the web: no page to send the shopper to, so no step.
    const app = await pay(payment(token, 'CardOnFile', { reference: 'app-3ds', channel: 'iOS' }));
    expect(app.body).toMatchObject({ resultCode: 'Authorised' });
  });

  it('lets a step lapse after 15 minutes: no payment, and the page says so', async () => {
    const token = await threeDSToken('CardOnFile');
    const r = await pay(payment(token, 'CardOnFile', { reference: 'order-3ds-lapse' }));
    const path = new URL((r.body.redirect as { url: string }).url).pathname;
    ctx.clock.advance(15 * 60_000 + 1);
    const s = new Shopper(ctx);
    expect((await s.get(path)).statusCode).toBe(410);
    const { rows } = await ctx.tdb.db.pool.query('SELECT 1 FROM payments WHERE payfac_reference = $1', [r.body.payfacReference]);
    expect(rows).toEqual([]);
  });
});
