import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { simulatorAcquirer } from '../../src/payments/simulator.js';
import { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { Shopper, createLink, createSession } from '../checkout/fixtures.js';

// Paid payments, the processor and the webhook bodies for the modification and token-payment tests.

export const CARD = {
  ok: '4242424242424242',
  refused: '4000000000000002',
  laterRefused: '4000000000005126',
  adjustRefused: '4000000000007106',
} as const;

/**
 * A processor the test drives: not started, so nothing completes until the test calls settled()
 * (that is how "in progress" modifications are held still). Listening is off for the same reason.
 */
export function testProcessor(ctx: TestContext): ModificationProcessor {
  return new ModificationProcessor({ db: ctx.tdb.db, clock: ctx.clock, acquirer: simulatorAcquirer, sealer: ctx.sealer, listen: false });
}

/** A webhook of the merchant, so every event gets a delivery whose body can be read. */
export async function registerWebhook(ctx: TestContext, apiKey = ctx.merchant.apiKey): Promise<void> {
  const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/paylinks', description: 'modification tests' }, { apiKey });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/**
 * The setup of a modifications test file (or of one describe in it): a test app (with `env` over the
 * test defaults) with a webhook registered and a processor the test drives (handed to `use` once made),
 * closed after the file; the clock is set to now before each test unless `resetClock` is false, for
 * tests that move it on across a describe.
 */
export function modificationsSuite(
  use: (ctx: TestContext, processor: ModificationProcessor) => void,
  options: { env?: Record<string, string>; resetClock?: boolean } = {},
): void {
  let ctx: TestContext | undefined;
  let processor: ModificationProcessor | undefined;
  beforeAll(async () => {
    ctx = await createTestContext(options.env);
    processor = testProcessor(ctx);
    await registerWebhook(ctx);
    use(ctx, processor);
  });
  afterAll(async () => {
    await processor?.stop();
    await ctx?.close();
  });
  if (options.resetClock === false) return;
  beforeEach(() => {
    ctx?.clock.set(new Date());
  });
}

export interface Paid {
  checkoutReference: string;
  payfacReference: string;
}

/** A hosted checkout session (EUR 123.45 by default) paid on its page with `card`. */
export async function paidSession(ctx: TestContext, overrides: Record<string, unknown> = {}, card: string = CARD.ok): Promise<Paid> {
  const checkoutReference = await createSession(ctx, overrides);
  const res = await new Shopper(ctx).payWith(`/checkout/${checkoutReference}`, card);
  // A refusal names itself in the page's alerts, far past the page's head: those, not the first characters.
  const alerts = [...res.body.matchAll(/role="alert"[^>]*>([\s\S]*?)<\/(?:div|p)>/g)].map((m) => m[1]?.replace(/<[^>]+>/g, ' ').trim());
  expect(res.statusCode, alerts.length > 0 ? alerts.join(' | ') : res.body.slice(0, 500)).toBeLessThan(400);
  const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM payments WHERE checkout_reference = $1', [
    checkoutReference,
  ]);
  const payfacReference = rows[0]?.payfac_reference;
  if (payfacReference === undefined) throw new Error('no payment recorded');
  return { checkoutReference, payfacReference };
}

/** A TokenizeByLink paid with `card`: returns the saved token. */
export async function tokenFromLink(ctx: TestContext, model: string, card: string = CARD.ok): Promise<string> {
  const ref = await createLink(ctx, {
    type: 'TokenizeByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    amount: 0,
    currency: 'ISK',
    items: [],
    recurringProcessingModel: model,
    culture: 'en',
  });
  const res = await new Shopper(ctx).payWith(`/pay/${ref}`, card);
  expect(res.statusCode, res.body.slice(0, 500)).toBeLessThan(400);
  return tokenOf(ctx, ref);
}

/** A session with recurringProcessingModel paid with `card`: returns the saved token. */
export async function tokenFromSession(ctx: TestContext, model: string, card: string = CARD.ok): Promise<string> {
  const { checkoutReference } = await paidSession(ctx, { recurringProcessingModel: model }, card);
  return tokenOf(ctx, checkoutReference);
}

async function tokenOf(ctx: TestContext, reference: string): Promise<string> {
  const { rows } = await ctx.tdb.db.pool.query<{ token: string }>(
    `SELECT message->'additionalData'->>'token' AS token FROM webhook_events
      WHERE event_type = 'Tokenization' AND (message->>'checkoutReference' = $1 OR message->>'merchantReference' = $1)`,
    [reference],
  );
  const token = rows[0]?.token;
  if (token === undefined) throw new Error('no Tokenization event');
  return token;
}

export interface Ledger {
  amount: number;
  captured_amount: number;
  refunded_amount: number;
  capture_state: string;
}

export async function ledger(ctx: TestContext, payfacReference: string): Promise<Ledger> {
  const { rows } = await ctx.tdb.db.pool.query<Ledger>(
    'SELECT amount, captured_amount, refunded_amount, capture_state FROM payments WHERE payfac_reference = $1',
    [payfacReference],
  );
  const row = rows[0];
  if (!row) throw new Error('payment not found');
  return row;
}

export interface DeliveryBody {
  checkoutReference: string | null;
  payfacReference: string;
  merchantReference: string | null;
  amount: string;
  currency: string;
  reason: string | null;
  success: string;
  hmacSignature: string;
  additionalData: Record<string, string>;
}

/** The delivery bodies (exact bytes parsed) of one event type, for events of this payfacReference or whose original it is. */
export async function deliveries(ctx: TestContext, eventType: string, payfacReference: string): Promise<DeliveryBody[]> {
  const { rows } = await ctx.tdb.db.pool.query<{ body: string }>(
    `SELECT d.body FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.event_type = $1 AND (d.payfac_reference = $2 OR e.message->'additionalData'->>'originalPayfacReference' = $2)
      ORDER BY e.created_at, (SELECT m.seq FROM modifications m WHERE m.payfac_reference = d.payfac_reference) NULLS FIRST, d.id`,
    [eventType, payfacReference],
  );
  return rows.map((r) => JSON.parse(r.body) as DeliveryBody);
}

export async function capture(ctx: TestContext, p: Paid | string, amount: number | string, extra: Record<string, unknown> = {}, apiKey?: string) {
  const payfacReference = typeof p === 'string' ? p : p.payfacReference;
  return call(
    ctx,
    'POST',
    '/api/v1/modification/capture',
    { reference: 'order-17', payfacReference, amount, currency: 'EUR', ...extra },
    apiKey ? { apiKey } : {},
  );
}

export async function refund(ctx: TestContext, p: Paid | string, amount: number | string, extra: Record<string, unknown> = {}, apiKey?: string) {
  const payfacReference = typeof p === 'string' ? p : p.payfacReference;
  return call(
    ctx,
    'POST',
    '/api/v1/modification/refund',
    { reference: 'order-17', payfacReference, amount, currency: 'EUR', refundReason: 'CUSTOMER REQUEST', ...extra },
    apiKey ? { apiKey } : {},
  );
}

export async function reverse(ctx: TestContext, p: Paid | string, apiKey?: string) {
  const payfacReference = typeof p === 'string' ? p : p.payfacReference;
  return call(ctx, 'POST', '/api/v1/modification/reverse', { reference: 'order-17', payfacReference }, apiKey ? { apiKey } : {});
}

export async function adjust(ctx: TestContext, p: Paid | string, amount: number | string, extra: Record<string, unknown> = {}, apiKey?: string) {
  const payfacReference = typeof p === 'string' ? p : p.payfacReference;
  return call(
    ctx,
    'POST',
    '/api/v1/modification/adjust',
    { reference: 'order-17', payfacReference, amount, currency: 'EUR', ...extra },
    apiKey ? { apiKey } : {},
  );
}
