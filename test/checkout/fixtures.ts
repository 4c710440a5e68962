import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { call, type TestContext } from '../helpers/app.js';

// Links, sessions and form posts for the checkout tests.

export const FUTURE_EXPIRY = '12/39';

export function payByLink(ctx: TestContext, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'PayByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    amount: 48900,
    currency: 'ISK',
    description: 'Lopapeysa',
    returnUrl: 'https://shop.example/thanks?order=7',
    items: [{ name: 'Lopapeysa', quantity: 1, unitPrice: 49400, amountWithoutDiscount: 49400, amount: 48900 }],
    ...overrides,
  };
}

export async function createLink(ctx: TestContext, body: Record<string, unknown>): Promise<string> {
  const r = await call(ctx, 'POST', '/api/v1/paymentlinks/create', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.paymentLinkReference as string;
}

export async function linkDetails(ctx: TestContext, reference: string): Promise<Record<string, unknown>> {
  const r = await call(ctx, 'GET', `/api/v1/paymentlinks/${reference}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.paymentLink as Record<string, unknown>;
}

export function sessionBody(ctx: TestContext, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 12345,
    currency: 'EUR',
    returnUrl: 'https://shop.example/return?order=17',
    reference: 'order-17',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    culture: 'en',
    ...overrides,
  };
}

export async function createSession(ctx: TestContext, overrides: Record<string, unknown> = {}): Promise<string> {
  const r = await call(ctx, 'POST', '/api/v1/hostedcheckout', sessionBody(ctx, overrides));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.checkoutReference as string;
}

export async function sessionStatus(ctx: TestContext, reference: string): Promise<Record<string, unknown>> {
  return (await call(ctx, 'GET', `/api/v1/hostedcheckout/status/${reference}`)).body;
}

/** A browser in miniature: keeps the CSRF cookie and reads the form's token from each page. */
export class Shopper {
  cookie = '';
  csrf = '';

  /** A shopper on the test app; `address` is the network address the requests come from (the inject default when not given). */
  constructor(
    private readonly ctx: TestContext,
    private readonly address?: string,
  ) {}

  private remember(res: LightMyRequestResponse): void {
    const set = res.headers['set-cookie'];
    const first = Array.isArray(set) ? set[0] : set;
    if (first) this.cookie = first.split(';')[0] ?? '';
    const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (m?.[1]) this.csrf = m[1];
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const res = await this.ctx.app.inject({
      method: 'GET',
      url,
      headers: this.cookie ? { cookie: this.cookie } : {},
      ...(this.address !== undefined ? { remoteAddress: this.address } : {}),
    });
    this.remember(res);
    return res;
  }

  async post(url: string, fields: Record<string, string>, opts: { csrf?: string } = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams({ _csrf: opts.csrf ?? this.csrf, ...fields }).toString();
    const res = await this.ctx.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      payload: body,
      ...(this.address !== undefined ? { remoteAddress: this.address } : {}),
    });
    this.remember(res);
    return res;
  }

  async payWith(path: string, cardNumber: string, extra: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    await this.get(path);
    return this.post(path, { cardNumber, expiryDate: FUTURE_EXPIRY, cvc: '123', ...extra });
  }
}

export async function eventsOf(ctx: TestContext, payfacOrMerchantRef: string): Promise<{ event_type: string; message: Record<string, unknown> }[]> {
  const { rows } = await ctx.tdb.db.pool.query<{ event_type: string; message: Record<string, unknown> }>(
    `SELECT event_type, message FROM webhook_events
      WHERE payfac_reference = $1 OR message->>'merchantReference' = $1 OR message->>'checkoutReference' = $1
      ORDER BY created_at, id`,
    [payfacOrMerchantRef],
  );
  return rows;
}
