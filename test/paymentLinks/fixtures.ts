import { expect } from 'vitest';
import { call, type TestContext } from '../helpers/app.js';
import { Shopper } from '../checkout/fixtures.js';

// Shared bodies and probes for the payment links tests. Sales and saved cards go through the real
// payment page, as a shopper makes them.

export function payByLink(ctx: TestContext, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'PayByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    amount: 3000,
    currency: 'EUR',
    items: [
      { name: 'Mug', quantity: 2, unitPrice: 1000, amountWithoutDiscount: 2000, amount: 2000 },
      { name: 'Tea', quantity: 1, unitPrice: 1500, amountWithoutDiscount: 1500, amount: 1000 },
    ],
    ...overrides,
  };
}

export function tokenizeByLink(ctx: TestContext, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'TokenizeByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    amount: 0,
    currency: 'ISK',
    items: [],
    recurringProcessingModel: 'CardOnFile',
    ...overrides,
  };
}

/** Creates a link and returns its reference (fails the test when create does not answer 200). */
export async function createLink(ctx: TestContext, body: Record<string, unknown>, apiKey?: string): Promise<string> {
  const r = await call(ctx, 'POST', '/api/v1/paymentlinks/create', body, apiKey ? { apiKey } : {});
  expect(r.body, JSON.stringify(r.body)).toMatchObject({ paymentLinkReference: expect.any(String) });
  expect(r.status).toBe(200);
  return r.body.paymentLinkReference as string;
}

export async function details(ctx: TestContext, reference: string, apiKey?: string): Promise<Record<string, unknown>> {
  const r = await call(ctx, 'GET', `/api/v1/paymentlinks/${reference}`, undefined, apiKey ? { apiKey } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.paymentLink as Record<string, unknown>;
}

export async function countRows(ctx: TestContext, table: 'payment_links' | 'idempotency_keys'): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? 0;
}

/** The whole stored row, to show that a rejected request changed nothing. */
export async function storedRow(ctx: TestContext, reference: string): Promise<unknown> {
  const { rows } = await ctx.tdb.db.pool.query('SELECT to_jsonb(p) AS row FROM payment_links p WHERE reference = $1', [reference]);
  return rows[0]?.row;
}

/** Sells a link `count` times through its payment page, as shoppers do (card 4242 4242 4242 4242). */
export async function sell(ctx: TestContext, reference: string, count = 1, answers: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await new Shopper(ctx).payWith(`/pay/${reference}`, '4242424242424242', answers);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  }
}

/** Saves a card on a TokenizeByLink through its page, which completes the link. */
export async function saveCard(ctx: TestContext, reference: string): Promise<void> {
  await sell(ctx, reference, 1);
}

export function fieldsOf(body: Record<string, unknown>): { field: string; code: string }[] {
  const errors = (body.errors ?? []) as { field: string; code: string }[];
  return errors.map((e) => ({ field: e.field, code: e.code }));
}
