import { expect } from 'vitest';
import { createMerchant, createPartner, linkPartner, type CreatedMerchant } from '../../src/accounts/service.js';
import { call, type TestContext } from '../helpers/app.js';
import { FUTURE_EXPIRY, Shopper } from '../checkout/fixtures.js';

// A small world of tenants for the security and fuzz tests: two merchants and a partner linked to
// the first, each owning one of everything a route can name by path or body (§Hardening).

export interface Owned {
  apiKey: string;
  terminalIdentifier: string;
  /** A PayByLink and a TokenizeByLink. */
  linkReference: string;
  tokenizeLinkReference: string;
  /** A session nobody paid, and one paid with 4242 (captured at once). */
  checkoutReference: string;
  paidCheckoutReference: string;
  payfacReference: string;
  /** A token saved by a paid TokenizeByLink (CardOnFile). */
  tokenValue: string;
  webhookId: string;
  deliveryId: string;
}

export interface World {
  a: Owned;
  b: Owned;
  /** The partner linked to merchant a; its own webhook and a delivery of an event of a. */
  partner: { partnerId: string; apiKey: string; webhookId: string; deliveryId: string };
}

async function ok(ctx: TestContext, method: 'GET' | 'POST', url: string, body: unknown, apiKey: string): Promise<Record<string, unknown>> {
  const r = await call(ctx, method, url, body, { apiKey });
  expect(r.status, `${method} ${url}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body;
}

async function paid(ctx: TestContext, path: string): Promise<void> {
  const shopper = new Shopper(ctx);
  await shopper.get(path);
  const res = await shopper.post(path, { cardNumber: '4242424242424242', expiryDate: FUTURE_EXPIRY, cvc: '123' });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
}

async function deliveryOf(ctx: TestContext, webhookId: string): Promise<string> {
  const { rows } = await ctx.tdb.db.pool.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at LIMIT 1', [
    webhookId,
  ]);
  const id = rows[0]?.id;
  if (id === undefined) throw new Error(`no delivery for ${webhookId}`);
  return id;
}

/** Everything one merchant owns, made through the API and the shopper pages. */
export async function ownedBy(ctx: TestContext, m: CreatedMerchant): Promise<Owned> {
  const key = m.apiKey;
  const t = m.terminalIdentifier;
  const webhookId = (await ok(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/paylinks', description: 'world' }, key)).webhookId as string;
  const linkReference = (
    await ok(
      ctx,
      'POST',
      '/api/v1/paymentlinks/create',
      {
        type: 'PayByLink',
        terminalIdentifier: t,
        amount: 3000,
        currency: 'EUR',
        items: [{ name: 'Mug', quantity: 1, unitPrice: 3000, amountWithoutDiscount: 3000, amount: 3000 }],
      },
      key,
    )
  ).paymentLinkReference as string;
  const tokenizeLinkReference = (
    await ok(
      ctx,
      'POST',
      '/api/v1/paymentlinks/create',
      {
        type: 'TokenizeByLink',
        terminalIdentifier: t,
        amount: 0,
        currency: 'ISK',
        items: [],
        recurringProcessingModel: 'CardOnFile',
        culture: 'en',
      },
      key,
    )
  ).paymentLinkReference as string;
  const session = { amount: 12345, currency: 'EUR', returnUrl: 'https://shop.example/return', reference: 'order-17', terminalIdentifier: t, culture: 'en' };
  const checkoutReference = (await ok(ctx, 'POST', '/api/v1/hostedcheckout', session, key)).checkoutReference as string;
  const paidCheckoutReference = (await ok(ctx, 'POST', '/api/v1/hostedcheckout', session, key)).checkoutReference as string;
  await paid(ctx, `/checkout/${paidCheckoutReference}`);
  await paid(ctx, `/pay/${tokenizeLinkReference}`);
  const { rows: pay } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM payments WHERE checkout_reference = $1', [
    paidCheckoutReference,
  ]);
  const { rows: tok } = await ctx.tdb.db.pool.query<{ token: string }>(
    "SELECT message->'additionalData'->>'token' AS token FROM webhook_events WHERE event_type = 'Tokenization' AND message->>'merchantReference' = $1",
    [tokenizeLinkReference],
  );
  const payfacReference = pay[0]?.payfac_reference;
  const tokenValue = tok[0]?.token;
  if (payfacReference === undefined || tokenValue === undefined) throw new Error('world: payment or token missing');
  return {
    apiKey: key,
    terminalIdentifier: t,
    linkReference,
    tokenizeLinkReference,
    checkoutReference,
    paidCheckoutReference,
    payfacReference,
    tokenValue,
    webhookId,
    deliveryId: await deliveryOf(ctx, webhookId),
  };
}

/** Merchant a is ctx.merchant; b is a stranger; the partner is linked to a only. */
export async function buildWorld(ctx: TestContext): Promise<World> {
  const partner = await createPartner(ctx.tdb.db, 'World partner');
  await linkPartner(ctx.tdb.db, partner.partnerId, ctx.merchant.merchantId);
  const partnerWebhook = (await ok(ctx, 'POST', '/api/v1/webhooks', { url: 'https://partner.example.com/hook' }, partner.apiKey)).webhookId as string;
  const a = await ownedBy(ctx, ctx.merchant);
  const b = await ownedBy(ctx, await createMerchant(ctx.tdb.db, 'Stranger'));
  return { a, b, partner: { ...partner, webhookId: partnerWebhook, deliveryId: await deliveryOf(ctx, partnerWebhook) } };
}
