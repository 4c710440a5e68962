import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createMerchant, updateAllowedOrigins } from '../../src/accounts/service.js';
import { call, createTestContext, TEST_PUBLIC_BASE_URL, type TestContext, asOperator } from '../helpers/app.js';

const CREATE = '/api/v1/hostedcheckout';
const status = (ref: string) => `/api/v1/hostedcheckout/status/${ref}`;

function session(ctx: TestContext, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 48900,
    currency: 'ISK',
    returnUrl: 'https://shop.example/return?order=17',
    reference: 'order-17',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    ...overrides,
  };
}

function fieldsOf(body: Record<string, unknown>): { field: string; code: string }[] {
  return ((body.errors ?? []) as { field: string; code: string }[]).map((e) => ({ field: e.field, code: e.code }));
}

async function stored(ctx: TestContext, ref: string): Promise<Record<string, unknown>> {
  const { rows } = await ctx.tdb.db.pool.query<{ row: Record<string, unknown> }>('SELECT to_jsonb(s) AS row FROM checkout_sessions s WHERE reference = $1', [
    ref,
  ]);
  return rows[0]?.row ?? {};
}

describe('Hosted checkout API (interface §4.6, §Hosted checkout)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('creates a session: {checkoutReference, url} with the envelope; status New (§References and URLs, §Hosted checkout)', async () => {
    const r = await call(ctx, 'POST', CREATE, session(ctx));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const ref = r.body.checkoutReference as string;
    expect(ref).toMatch(/^cs_[A-Za-z0-9_-]{16,}$/);
    expect(r.body.url).toBe(`${TEST_PUBLIC_BASE_URL}/checkout/${ref}`);
    expect(r.body.responseIdentifier).toEqual(expect.any(String));
    const s = await call(ctx, 'GET', status(ref));
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ status: 'New', payfacReference: null, responseDateTime: expect.any(String) });
    const p = await call(ctx, 'POST', status(ref));
    expect(p.body).toMatchObject({ status: 'New', payfacReference: null });
  });

  it('accepts a request as the provider plugins send it (§Clients in the field): any case, digit strings, discount lines, shopperContact object', async () => {
    const body = {
      Amount: '48900',
      Currency: 'ISK',
      ReturnUrl: 'https://shop.example/is/checkout/done?x=1',
      Reference: 'WC-Ørder 1001 / "quoted" ',
      TerminalIdentifier: ctx.merchant.terminalIdentifier,
      IsManualCapture: true,
      CaptureHoursDelay: '5',
      Culture: 'en',
      Items: [
        { Name: 'Peysa', Amount: 49400, Quantity: '1', UnitPrice: '49400' },
        { Name: 'Afsláttur', Amount: -500 },
        { name: 'Half a cake', amount: 0, quantity: 0.5 },
      ],
      ShopperContact: { Email: 'anna@example.is' },
      MerchantShopperReference: 'shopper-9',
      RecurringProcessingModel: null,
      AbandonUrl: 'https://shop.example/cart',
      ThemeKey: 'dark',
      IsPreAuth: false,
    };
    const r = await call(ctx, 'POST', CREATE, body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const row = await stored(ctx, r.body.checkoutReference as string);
    expect(row).toMatchObject({
      amount: 48900,
      merchant_reference: 'WC-Ørder 1001 / "quoted" ',
      culture: 'en',
      is_manual_capture: true,
      capture_hours_delay: null, // §Hosted checkout: manual capture wins
      shopper_email: 'anna@example.is',
      abandon_url: 'https://shop.example/cart',
      recurring_processing_model: null,
      theme_key: 'dark',
    });
    expect(row.items).toEqual([
      { name: 'Peysa', amount: 49400, quantity: 1, unitPrice: 49400 },
      { name: 'Afsláttur', amount: -500, quantity: null, unitPrice: null },
      { name: 'Half a cake', amount: 0, quantity: 0.5, unitPrice: null },
    ]);
  });

  it('takes shopperContact as a plain string, and a delay without manual capture', async () => {
    const r = await call(ctx, 'POST', CREATE, session(ctx, { shopperContact: 'bob@example.com', captureHoursDelay: 48 }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await stored(ctx, r.body.checkoutReference as string)).toMatchObject({ shopper_email: 'bob@example.com', capture_hours_delay: 48, culture: 'is' });
  });

  it('expires 24 hours after creation by default, and the status says so the moment it passes', async () => {
    const r = await call(ctx, 'POST', CREATE, session(ctx));
    const ref = r.body.checkoutReference as string;
    ctx.clock.advance(24 * 3600_000 - 1);
    expect((await call(ctx, 'GET', status(ref))).body.status).toBe('New');
    ctx.clock.advance(1);
    expect((await call(ctx, 'GET', status(ref))).body.status).toBe('Expired');
  });

  it('takes expiresAt up to 24 hours ahead', async () => {
    const now = ctx.clock.now().getTime();
    const soon = new Date(now + 60_000).toISOString();
    const r = await call(ctx, 'POST', CREATE, session(ctx, { expiresAt: soon }));
    expect(r.status).toBe(200);
    ctx.clock.advance(60_000);
    expect((await call(ctx, 'GET', status(r.body.checkoutReference as string))).body.status).toBe('Expired');
    // More than 5 minutes beyond 24 hours is not clock skew: refused.
    const tooFar = new Date(ctx.clock.now().getTime() + 24 * 3600_000 + 6 * 60_000).toISOString();
    const bad = await call(ctx, 'POST', CREATE, session(ctx, { expiresAt: tooFar }));
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual([{ field: 'expiresAt', code: 'RANGE' }]);
    const past = await call(ctx, 'POST', CREATE, session(ctx, { expiresAt: new Date(ctx.clock.now().getTime() - 1000).toISOString() }));
    expect(fieldsOf(past.body)).toEqual([{ field: 'expiresAt', code: 'RANGE' }]);
  });

  it('takes the 24-hour maximum computed on a shop clock 30 s ahead, and clamps it to 24 hours', async () => {
    // As the shop plugins send it: "now + 24 h" on their own clock, to the second, with a Z.
    const shopNow = ctx.clock.now().getTime() + 30_000;
    const expiresAt = new Date(shopNow + 24 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const r = await call(ctx, 'POST', CREATE, session(ctx, { ExpiresAt: expiresAt }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const ref = r.body.checkoutReference as string;
    ctx.clock.advance(24 * 3600_000 - 1);
    expect((await call(ctx, 'GET', status(ref))).body.status).toBe('New');
    ctx.clock.advance(1);
    expect((await call(ctx, 'GET', status(ref))).body.status).toBe('Expired');
    // The edge of the allowance: 24 hours and 5 minutes is still taken.
    const edge = new Date(ctx.clock.now().getTime() + 24 * 3600_000 + 5 * 60_000).toISOString();
    expect((await call(ctx, 'POST', CREATE, session(ctx, { expiresAt: edge }))).status).toBe(200);
  });

  it("takes an ISK amount that does not end in 00: that rule is Create Payment Link's (interface §8), not §Hosted checkout's", async () => {
    const r = await call(ctx, 'POST', CREATE, session(ctx, { amount: 48950, currency: 'ISK' }));
    expect(r.status).toBe(200);
    expect(typeof r.body.checkoutReference).toBe('string');
  });

  it('names every failing field at once (§Errors)', async () => {
    const r = await call(ctx, 'POST', CREATE, {
      amount: 48950,
      currency: 'ISK',
      returnUrl: 'ftp://nope',
      reference: 'x'.repeat(201),
      terminalIdentifier: 'short',
      culture: 'de',
      captureHoursDelay: 673,
      merchantShopperReference: 'ab',
      shopperContact: 'not-an-email',
      recurringProcessingModel: 'Sometimes',
      abandonUrl: 'javascript:alert(1)',
      items: [{ name: 'x', amount: 'lots' }],
      surprise: true,
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    const fields = fieldsOf(r.body);
    expect(fields).toEqual(
      expect.arrayContaining([
        { field: 'returnUrl', code: 'INVALID_RETURN_URL' },
        { field: 'reference', code: 'LENGTH' },
        { field: 'terminalIdentifier', code: 'LENGTH' },
        { field: 'culture', code: 'ENUM' },
        { field: 'captureHoursDelay', code: 'RANGE' },
        { field: 'merchantShopperReference', code: 'LENGTH' },
        { field: 'shopperContact', code: 'TYPE' },
        { field: 'recurringProcessingModel', code: 'ENUM' },
        { field: 'abandonUrl', code: 'FORMAT' },
        { field: 'items[0].amount', code: 'TYPE' },
        { field: 'surprise', code: 'UNKNOWN_FIELD' },
      ]),
    );
  });

  it('requires the five required fields', async () => {
    const r = await call(ctx, 'POST', CREATE, {});
    expect(fieldsOf(r.body)).toEqual(
      expect.arrayContaining(['amount', 'currency', 'returnUrl', 'reference', 'terminalIdentifier'].map((field) => ({ field, code: 'REQUIRED' }))),
    );
  });

  it('allows amount 0 only with recurringProcessingModel', async () => {
    const bad = await call(ctx, 'POST', CREATE, session(ctx, { amount: 0 }));
    expect(fieldsOf(bad.body)).toEqual([{ field: 'amount', code: 'RANGE' }]);
    const ok = await call(ctx, 'POST', CREATE, session(ctx, { amount: 0, recurringProcessingModel: 'Subscription' }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('answers a lone invalid returnUrl with INVALID_RETURN_URL', async () => {
    const r = await call(ctx, 'POST', CREATE, session(ctx, { returnUrl: 'not a url' }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_RETURN_URL');
  });

  it("refuses another merchant's terminal with TERMINAL_NOT_FOUND", async () => {
    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    const r = await call(ctx, 'POST', CREATE, session(ctx, { terminalIdentifier: other.terminalIdentifier }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('TERMINAL_NOT_FOUND');
  });

  it("reports another merchant's session as 404, and an unknown one too (§Authentication)", async () => {
    const other = await createMerchant(ctx.tdb.db, 'Other shop 2');
    const r = await call(ctx, 'POST', CREATE, session(ctx));
    const ref = r.body.checkoutReference as string;
    const theirs = await call(ctx, 'GET', status(ref), undefined, { apiKey: other.apiKey });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('NOT_FOUND');
    expect((await call(ctx, 'GET', status('cs_nothing'))).status).toBe(404);
  });

  it('needs the HostedCheckout capability (§Authentication)', async () => {
    const key = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks']);
    const r = await call(ctx, 'POST', CREATE, session(ctx), { apiKey: key.apiKey });
    expect(r.status).toBe(403);
    expect((await call(ctx, 'GET', status('cs_x'), undefined, { apiKey: key.apiKey })).status).toBe(403);
    expect((await call(ctx, 'POST', CREATE, session(ctx), { apiKey: null })).status).toBe(401);
  });

  it('refuses a browser Origin the merchant has not listed (§Authentication)', async () => {
    await updateAllowedOrigins(asOperator(ctx), ctx.merchant.merchantId, ['https://shop.example']);
    try {
      const bad = await call(ctx, 'POST', CREATE, session(ctx), { headers: { origin: 'https://evil.example' } });
      expect(bad.status).toBe(403);
      expect(bad.body.code).toBe('ORIGIN_NOT_ALLOWED');
      const ok = await call(ctx, 'POST', CREATE, session(ctx), { headers: { origin: 'https://shop.example' } });
      expect(ok.status).toBe(200);
    } finally {
      await updateAllowedOrigins(asOperator(ctx), ctx.merchant.merchantId, []);
    }
  });

  it('answers 415 for a non-JSON body', async () => {
    const r = await call(ctx, 'POST', CREATE, 'amount=1', { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(415);
  });

  it('replays a create with the same Idempotency-Key and refuses another body (§Idempotent creates)', async () => {
    const headers = { 'idempotency-key': 'checkout-key-1' };
    const a = await call(ctx, 'POST', CREATE, session(ctx), { headers });
    const b = await call(ctx, 'POST', CREATE, session(ctx), { headers });
    expect(a.status).toBe(200);
    expect(b.body.checkoutReference).toBe(a.body.checkoutReference);
    const c = await call(ctx, 'POST', CREATE, session(ctx, { amount: 100 }), { headers });
    expect(c.status).toBe(409);
    expect(c.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
