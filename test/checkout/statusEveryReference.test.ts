import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { Shopper, createLink, createSession } from './fixtures.js';
import { CARD, deliveries, registerWebhook, tokenFromSession } from '../modifications/helpers.js';

// GET/POST /api/v1/hostedcheckout/status/{checkoutReference} answers for every checkoutReference a
// payment's events carry, in the shape it answers for a session: a link payment's checkout and a
// saved-card charge's too (before, 404 for both).

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
  await registerWebhook(ctx);
});
afterAll(async () => {
  await ctx?.close();
});

const status = (reference: string, method: 'GET' | 'POST' = 'GET', apiKey?: string) =>
  call(ctx, method, `/api/v1/hostedcheckout/status/${reference}`, method === 'POST' ? {} : undefined, apiKey ? { apiKey } : {});

/** The checkoutReference of a payment's Authorization event, as a client reads it from the webhook. */
async function eventCheckoutReference(payfacReference: string): Promise<string> {
  const [auth] = await deliveries(ctx, 'Authorization', payfacReference);
  expect(auth?.checkoutReference).toMatch(/^cs_/);
  return auth?.checkoutReference as string;
}

async function payLink(card: string): Promise<string> {
  const ref = await createLink(ctx, {
    type: 'PayByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    amount: 48900,
    currency: 'ISK',
    items: [{ name: 'Bók', quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
    culture: 'en',
  });
  await new Shopper(ctx).payWith(`/pay/${ref}`, card);
  const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM payments WHERE payment_link_reference = $1', [ref]);
  expect(rows).toHaveLength(1);
  return rows[0]?.payfac_reference as string;
}

const charge = (token: string, model = 'CardOnFile', extra: Record<string, unknown> = {}) =>
  call(ctx, 'POST', '/api/v1/payment', {
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    amount: 4900,
    currency: 'EUR',
    reference: 'status-of-a-charge',
    returnUrl: 'https://shop.example/return',
    channel: 'Web',
    tokenDetails: { tokenValue: token, recurringProcessingModel: model },
    ...extra,
  });

describe('the status of every checkout reference the events carry', () => {
  it("a link payment's checkout: Completed with its payment, by GET and by POST", async () => {
    const payfacReference = await payLink(CARD.ok);
    const reference = await eventCheckoutReference(payfacReference);
    for (const method of ['GET', 'POST'] as const) {
      const r = await status(reference, method);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ status: 'Completed', payfacReference });
    }
  });

  it("a refused link payment's checkout: Expired, with no payfacReference (it will not be paid)", async () => {
    const payfacReference = await payLink(CARD.refused);
    const r = await status(await eventCheckoutReference(payfacReference));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'Expired', payfacReference: null });
  });

  it("a saved-card charge's checkout: Completed with its payment", async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const paid = await charge(token, 'Subscription');
    expect(paid.body).toMatchObject({ resultCode: 'Authorised' });
    const payfacReference = paid.body.payfacReference as string;
    const r = await status(await eventCheckoutReference(payfacReference));
    expect(r.body).toMatchObject({ status: 'Completed', payfacReference });
  });

  it('a charge whose 3-D Secure step waits is New, and Expired once the step ran out', async () => {
    // A card saved with the 3-D Secure test card asks again when the shopper is present.
    const session = await createSession(ctx, { recurringProcessingModel: 'CardOnFile' });
    const s = new Shopper(ctx);
    const step = await s.payWith(`/checkout/${session}`, '4000000000003220');
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] ?? '';
    expect((await s.post(`/checkout/${session}/3ds`, { challenge, action: 'confirm' })).statusCode).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ token: string }>(
      "SELECT message->'additionalData'->>'token' AS token FROM webhook_events WHERE event_type = 'Tokenization' AND message->>'checkoutReference' = $1",
      [session],
    );
    const r = await charge(rows[0]?.token ?? '');
    expect(r.body.resultCode).toBe('RedirectShopper');
    const reference = new URL((r.body.redirect as { url: string }).url).pathname.split('/').pop() ?? '';
    expect((await status(reference)).body).toMatchObject({ status: 'New', payfacReference: null });
    ctx.clock.advance(15 * 60_000 + 1);
    expect((await status(reference)).body).toMatchObject({ status: 'Expired', payfacReference: null });
    ctx.clock.set(new Date());
  });

  it("another merchant's reference, and one that was never made, are not found", async () => {
    const payfacReference = await payLink(CARD.ok);
    const reference = await eventCheckoutReference(payfacReference);
    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    const r = await status(reference, 'GET', other.apiKey);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await status('cs_neverMadeNeverMade0000')).status).toBe(404);
  });
});
