import type { AddressInfo } from 'node:net';
import { Paylinks, type PaylinksOptions } from '@paylinks/sdk';
import { createTestContext, type TestContext } from '../helpers/app.js';

// The service on a real socket (127.0.0.1, port 0) for the SDK, the examples and the CLI: the same
// buildApp as production, on this run's database kind, with the manual clock of createTestContext.

export interface LiveService {
  ctx: TestContext;
  /** e.g. http://127.0.0.1:41234 (the SDK adds /api/v1). */
  baseUrl: string;
  /** An SDK client with the merchant's key; retries off so that errors show at once. */
  client(options?: Partial<PaylinksOptions>): Paylinks;
  close(): Promise<void>;
}

export async function startLiveService(env: Record<string, string> = {}): Promise<LiveService> {
  const ctx = await createTestContext(env);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ctx.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    ctx,
    baseUrl,
    client: (options = {}) => new Paylinks({ baseUrl, apiKey: ctx.merchant.apiKey, maxRetries: 0, ...options }),
    close: () => ctx.close(),
  };
}

/** A PayByLink create body for the merchant's terminal: one item of the whole amount. */
export function payByLinkParams(ctx: TestContext, amount = 48900, description = 'Kaffi') {
  return {
    type: 'PayByLink' as const,
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    amount,
    currency: 'ISK',
    description,
    items: [{ name: description, quantity: 1, unitPrice: amount, amountWithoutDiscount: amount, amount }],
  };
}
