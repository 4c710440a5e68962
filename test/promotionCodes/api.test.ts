import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createMerchant } from '../../src/accounts/service.js';
import { createLink, eventsOf, linkDetails, payByLink, Shopper, FUTURE_EXPIRY } from '../checkout/fixtures.js';

// Promotion codes (docs/api.md, Promotion codes): the API, a link that takes codes, what a payment with
// a code charges and records, the refusals, and the cap under shoppers racing for its last redemptions.

const CARD = { cardNumber: '4242424242424242', expiryDate: FUTURE_EXPIRY, cvc: '123' };

describe('promotion codes', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  async function createCode(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await call(ctx, 'POST', '/api/v1/promotioncodes', body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.promotionCode as Record<string, unknown>;
  }

  it('create, read, list and update; every bad field at once; a name unique per merchant whatever its case', async () => {
    const made = await createCode({ code: 'Vor25', percentOff: 25, maxRedemptions: 10 });
    expect(made).toMatchObject({
      code: 'Vor25',
      percentOff: 25,
      amountOff: null,
      currency: null,
      expiresAt: null,
      maxRedemptions: 10,
      redemptionCount: 0,
      active: true,
    });
    expect(made.promotionCodeId).toMatch(/^promo_/);
    const id = made.promotionCodeId as string;

    const read = await call(ctx, 'GET', `/api/v1/promotioncodes/${id}`);
    expect(read.body.promotionCode).toEqual(made);
    const list = await call(ctx, 'GET', '/api/v1/promotioncodes');
    expect(list.status).toBe(200);
    expect((list.body.data as { promotionCodeId: string }[]).map((c) => c.promotionCodeId)).toContain(id);

    const dup = await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'VOR25', amountOff: 500, currency: 'EUR' });
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([expect.objectContaining({ field: 'code', code: 'DUPLICATE' })]);

    const bad = await call(ctx, 'POST', '/api/v1/promotioncodes', {
      code: 'no spaces',
      percentOff: 10,
      amountOff: 150,
      currency: 'ISK',
      expiresAt: '2000-01-01T00:00:00Z',
    });
    expect(bad.status).toBe(400);
    const fields = (bad.body.errors as { field: string; code: string }[]).map((e) => `${e.field}:${e.code}`).sort();
    expect(fields).toEqual(['amountOff:NOT_ALLOWED', 'amountOff:NOT_MULTIPLE_OF_100', 'code:FORMAT', 'expiresAt:RANGE'].sort());
    const none = await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'X1', currency: 'EUR' });
    expect((none.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(['currency', 'percentOff']);

    const expiresAt = new Date(ctx.clock.now().getTime() + 86_400_000).toISOString();
    const upd = await call(ctx, 'POST', `/api/v1/promotioncodes/${id}/update`, { active: false, expiresAt, maxRedemptions: null });
    expect(upd.status, JSON.stringify(upd.body)).toBe(200);
    expect(upd.body.promotionCode).toMatchObject({ active: false, expiresAt, maxRedemptions: null, code: 'Vor25', percentOff: 25 });
    const notMine = await call(ctx, 'POST', `/api/v1/promotioncodes/${id}/update`, { percentOff: 50 });
    expect(notMine.status).toBe(400);

    // Another merchant neither reads nor changes it, and may use the same name.
    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    expect((await call(ctx, 'GET', `/api/v1/promotioncodes/${id}`, undefined, { apiKey: other.apiKey })).status).toBe(404);
    expect((await call(ctx, 'POST', `/api/v1/promotioncodes/${id}/update`, { active: true }, { apiKey: other.apiKey })).status).toBe(404);
    const theirs = await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'vor25', percentOff: 5 }, { apiKey: other.apiKey });
    expect(theirs.status).toBe(200);
  });

  it('a retry with the same Idempotency-Key answers the first answer again, the code made once', async () => {
    const headers = { 'idempotency-key': 'code-retry-1' };
    const body = { code: 'RETRY10', percentOff: 10, maxRedemptions: 5 };
    const first = await call(ctx, 'POST', '/api/v1/promotioncodes', body, { headers });
    expect(first.status).toBe(200);
    expect(first.body.promotionCode).toMatchObject({ code: 'RETRY10', percentOff: 10 });
    const again = await call(ctx, 'POST', '/api/v1/promotioncodes', body, { headers });
    expect(again.status).toBe(200);
    expect(again.body.promotionCode).toEqual(first.body.promotionCode);
  });

  it('a retry under a key kept by an earlier release, which kept the bare code, answers in today’s shape', async () => {
    const headers = { 'idempotency-key': 'code-retry-old' };
    const body = { code: 'OLDSHAPE', amountOff: 500, currency: 'ISK' };
    const first = await call(ctx, 'POST', '/api/v1/promotioncodes', body, { headers });
    expect(first.status).toBe(200);
    // As releases before kept it: the code itself, not the route's { promotionCode }, and not sealed.
    const kept = await ctx.tdb.db.pool.query('UPDATE idempotency_keys SET response_body = $2 WHERE idempotency_key = $1', [
      'code-retry-old',
      JSON.stringify(first.body.promotionCode),
    ]);
    expect(kept.rowCount).toBe(1);
    const again = await call(ctx, 'POST', '/api/v1/promotioncodes', body, { headers });
    expect(again.status).toBe(200);
    expect(again.body.promotionCode).toEqual(first.body.promotionCode);
  });

  it('allowPromotionCodes: absent reads as before; true only for PayByLink', async () => {
    const plain = await linkDetails(ctx, await createLink(ctx, payByLink(ctx)));
    expect(plain).not.toHaveProperty('allowPromotionCodes');
    const ref = await createLink(ctx, payByLink(ctx, { allowPromotionCodes: true }));
    expect((await linkDetails(ctx, ref)).allowPromotionCodes).toBe(true);
    const off = await call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: ref, allowPromotionCodes: false });
    expect(off.status).toBe(200);
    expect(await linkDetails(ctx, ref)).not.toHaveProperty('allowPromotionCodes');
    const tokenize = await call(ctx, 'POST', '/api/v1/paymentlinks/create', {
      type: 'TokenizeByLink',
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 0,
      currency: 'ISK',
      recurringProcessingModel: 'CardOnFile',
      allowPromotionCodes: true,
    });
    expect(tokenize.status).toBe(400);
    expect(tokenize.body.errors).toEqual([expect.objectContaining({ field: 'allowPromotionCodes', code: 'NOT_ALLOWED' })]);
  });

  it('Apply shows the new total with the code kept; the payment charges it, records the code and the discount, and counts it', async () => {
    const code = await createCode({ code: 'HAUST10', percentOff: 10 });
    const ref = await createLink(ctx, payByLink(ctx, { allowPromotionCodes: true, culture: 'en' }));
    const shopper = new Shopper(ctx);
    const page = await shopper.get(`/pay/${ref}`);
    expect(page.body).toContain('name="promotionCode"');

    const applied = await shopper.post(`/pay/${ref}`, { action: 'applyCode', promotionCode: ' haust10 ', lang: 'en' });
    expect(applied.statusCode).toBe(200);
    // 10 % off 489 kr. is 440.10 kr., rounded half up to whole krónur: 440 kr. (44000 in minor units).
    expect(applied.body).toMatch(/data-new-total>ISK\s440<\/dd>/);
    // The box shows the code as the merchant wrote it.
    expect(applied.body).toContain('value="HAUST10"');
    expect(applied.body).toMatch(/>Pay ISK\s440<\/button>/);

    const paid = await shopper.post(`/pay/${ref}`, { ...CARD, promotionCode: 'haust10', lang: 'en' });
    expect(paid.statusCode, paid.body).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ amount: number; promotion_code: string; discount_amount: number; payfac_reference: string }>(
      'SELECT amount, promotion_code, discount_amount, payfac_reference FROM payments WHERE payment_link_reference = $1',
      [ref],
    );
    expect(rows).toEqual([expect.objectContaining({ amount: 44000, promotion_code: 'HAUST10', discount_amount: 4900 })]);
    // The receipt says what the code took off, beside what was paid.
    const receipt = await shopper.get(String(paid.headers.location).replace(/^https?:\/\/[^/]+/, ''));
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toMatch(/<dt>Discount \(HAUST10\)<\/dt><dd data-discount>−ISK\s49<\/dd>/);
    expect(receipt.body).toMatch(/ISK\s440/);
    const events = await eventsOf(ctx, rows[0]?.payfac_reference as string);
    expect(events.map((e) => e.event_type).sort()).toEqual(['Authorization', 'Capture']);
    // The events carry what was paid (their amounts are in the provider's string form).
    for (const e of events) expect(String(e.message.amount)).toBe('44000');
    const link = await linkDetails(ctx, ref);
    expect((link.submissions as { amount: number }[])[0]?.amount).toBe(44000);
    const after = await call(ctx, 'GET', `/api/v1/promotioncodes/${code.promotionCodeId as string}`);
    expect((after.body.promotionCode as { redemptionCount: number }).redemptionCount).toBe(1);
  });

  it('a code that is unknown, inactive, expired, at its cap or of another currency is refused, and nothing is charged', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { allowPromotionCodes: true, culture: 'en' }));
    const plainRef = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    await createCode({ code: 'OFF', percentOff: 10, active: false });
    const soon = await createCode({ code: 'SOON', percentOff: 10, expiresAt: new Date(ctx.clock.now().getTime() + 60_000).toISOString() });
    await createCode({ code: 'EURO5', amountOff: 500, currency: 'EUR' });
    const once = await createCode({ code: 'ONCE', amountOff: 1000, currency: 'ISK', maxRedemptions: 1 });
    expect(soon.expiresAt).not.toBeNull();
    const shopper = new Shopper(ctx);
    await shopper.get(`/pay/${ref}`);
    const apply = (promotionCode: string, lang = 'en') => shopper.post(`/pay/${ref}`, { action: 'applyCode', promotionCode, lang });
    // Unknown, turned off and another currency's read alike (test/checkout/codeGuessing.test.ts shows why).
    for (const typed of ['NOPE', 'off', 'euro5']) {
      const r = await apply(typed);
      expect(r.statusCode).toBe(400);
      expect(r.body).toContain('This code is not valid.');
    }
    expect((await apply('euro5', 'is')).body).toContain('Þessi kóði er ekki gildur.');

    // ONCE is used once, then refused on the page and on a payment that still carries it.
    expect((await shopper.post(`/pay/${ref}`, { ...CARD, promotionCode: 'ONCE' })).statusCode).toBe(303);
    expect((await apply('once')).body).toContain('This code has been used as many times as it may be.');
    const refused = await shopper.post(`/pay/${ref}`, { ...CARD, promotionCode: 'ONCE', lang: 'en' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('This code has been used as many times as it may be.');
    expect((await call(ctx, 'GET', `/api/v1/promotioncodes/${once.promotionCodeId as string}`)).body.promotionCode).toMatchObject({ redemptionCount: 1 });

    ctx.clock.advance(120_000);
    expect((await apply('SOON')).body).toContain('This code has expired.');
    const plainShopper = new Shopper(ctx);
    await plainShopper.get(`/pay/${plainRef}`);
    const notTaken = await plainShopper.post(`/pay/${plainRef}`, { ...CARD, promotionCode: 'EURO5' });
    expect(notTaken.statusCode).toBe(400);
    const { rows } = await ctx.tdb.db.pool.query<{ amount: number; promotion_code: string | null }>(
      'SELECT amount, promotion_code FROM payments WHERE payment_link_reference = ANY($1::text[]) ORDER BY created_at',
      [[ref, plainRef]],
    );
    expect(rows).toEqual([{ amount: 47900, promotion_code: 'ONCE' }]);
  });

  it('40 shoppers racing for a code capped at 5: exactly 5 pay with the discount, the others are refused and charged nothing', async () => {
    const code = await createCode({ code: 'RACE5', percentOff: 50, maxRedemptions: 5 });
    const refs = await Promise.all(Array.from({ length: 40 }, () => createLink(ctx, payByLink(ctx, { allowPromotionCodes: true, culture: 'en' }))));
    const shoppers = await Promise.all(
      refs.map(async (ref, i) => {
        // Each from an address of its own: one address's refused codes are limited (codeGuessing.test.ts).
        const s = new Shopper(ctx, `192.0.2.${i + 1}`);
        await s.get(`/pay/${ref}`);
        return { s, ref };
      }),
    );
    const results = await Promise.all(shoppers.map(({ s, ref }) => s.post(`/pay/${ref}`, { ...CARD, promotionCode: 'race5', lang: 'en' })));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((c) => c === 303)).toHaveLength(5);
    // Refused by the page's look at the code (400), past it by the payment's own on the locked code
    // (409), or while the last uses were held by payments in flight (409, nothing held for them).
    expect(statuses.filter((c) => c === 409 || c === 400)).toHaveLength(35);
    for (const r of results.filter((x) => x.statusCode !== 303)) {
      expect(r.body).toMatch(
        /This code has been used as many times as it may be\.|the last uses of this promotion code are being used by other shoppers right now/,
      );
    }

    const { rows } = await ctx.tdb.db.pool.query<{ amount: number; promotion_code: string; discount_amount: number; success: boolean }>(
      'SELECT amount, promotion_code, discount_amount, success FROM payments WHERE payment_link_reference = ANY($1::text[])',
      [refs],
    );
    expect(rows).toHaveLength(5);
    for (const p of rows) expect(p).toEqual({ amount: 24500, promotion_code: 'RACE5', discount_amount: 24400, success: true });
    const after = await call(ctx, 'GET', `/api/v1/promotioncodes/${code.promotionCodeId as string}`);
    expect(after.body.promotionCode).toMatchObject({ redemptionCount: 5, maxRedemptions: 5 });
  });

  it('a 3-D Secure step keeps the code and the payment after it charges the discounted amount', async () => {
    await createCode({ code: 'SECURE', amountOff: 900, currency: 'ISK' });
    const ref = await createLink(ctx, payByLink(ctx, { allowPromotionCodes: true, culture: 'en' }));
    const shopper = new Shopper(ctx);
    await shopper.get(`/pay/${ref}`);
    const step = await shopper.post(`/pay/${ref}`, { ...CARD, cardNumber: '4000000000003220', promotionCode: 'SECURE' });
    expect(step.statusCode).toBe(200);
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] as string;
    const done = await shopper.post(`/pay/${ref}/3ds`, { challenge, action: 'confirm' });
    expect(done.statusCode).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query('SELECT amount, promotion_code, discount_amount FROM payments WHERE payment_link_reference = $1', [ref]);
    expect(rows).toEqual([{ amount: 48000, promotion_code: 'SECURE', discount_amount: 900 }]);
  });
});
