import { describe, expect, it } from 'vitest';
import {
  parseRetryAfter,
  Paylinks,
  PaylinksApiError,
  PaylinksConflictError,
  PaylinksNetworkError,
  PaylinksRateLimitError,
  PaylinksServerError,
  type PaylinksOptions,
} from '@paylinks/sdk';
import { rejection } from '../helpers/rejection.js';

// The SDK's retry policy (docs/style.md, The SDK) on a scripted fetch: which failures are retried, how long it
// waits, that the count is bounded, and that a retried create keeps its Idempotency-Key (§Idempotent creates).

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

type Step = { status: number; body?: unknown; headers?: Record<string, string> } | { error: Error };

function problem(status: number, code: string): Step {
  return {
    status,
    body: {
      type: 'about:blank',
      title: code,
      status,
      code,
      detail: `${code} detail`,
      message: `${code} detail`,
      responseDateTime: '2026-11-21T13:57:00.123456Z',
      responseIdentifier: '0b6f1c0e-6a55-4f53-9d3e-2b1e4f3a9c10',
    },
  };
}

const OK: Step = { status: 200, body: { paymentLinkReference: 'pl_1', url: 'https://x/pay/pl_1', responseDateTime: 't', responseIdentifier: 'r' } };
const refused = (): Step => ({
  error: Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }),
});
const reset = (): Step => ({
  error: Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }),
});

function scripted(steps: Step[], options: Partial<PaylinksOptions> = {}) {
  const seen: Seen[] = [];
  const waits: number[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const h = init?.headers as Record<string, string>;
    seen.push({ method: init?.method ?? 'GET', url: String(input), headers: h, body: init?.body as string | undefined });
    const step = steps.shift();
    if (!step) throw new Error('no more scripted responses');
    if ('error' in step) throw step.error;
    return new Response(step.body === undefined ? '' : JSON.stringify(step.body), {
      status: step.status,
      headers: { 'content-type': 'application/json', ...step.headers },
    });
  }) as typeof globalThis.fetch;
  const client = new Paylinks({
    baseUrl: 'https://pay.example',
    apiKey: 'pk_test',
    fetch,
    random: () => 0.5,
    sleep: async (ms) => void waits.push(ms),
    ...options,
  });
  return { client, seen, waits };
}

const linkParams = {
  type: 'PayByLink' as const,
  terminalIdentifier: 'T00000000001',
  amount: 100,
  currency: 'EUR',
  items: [{ name: 'a', quantity: 1, unitPrice: 100, amountWithoutDiscount: 100, amount: 100 }],
};

describe('requests', () => {
  it('sends X-API-Key, JSON, and the /api/v1 prefix once', async () => {
    for (const baseUrl of ['https://pay.example', 'https://pay.example/', 'https://pay.example/api/v1', 'https://pay.example/api/v1/']) {
      const { client, seen } = scripted([{ status: 200, body: { data: [], totalCount: 0 } }], { baseUrl });
      await client.paymentLinks.list({ page: 2, pageSize: 50 });
      expect(seen[0]?.url).toBe('https://pay.example/api/v1/paymentlinks?Page=2&PageSize=50');
      expect(seen[0]?.headers['x-api-key']).toBe('pk_test');
    }
    const { client, seen } = scripted([OK]);
    await client.paymentLinks.get('a/b c');
    expect(seen[0]?.url).toBe('https://pay.example/api/v1/paymentlinks/a%2Fb%20c');
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('puts a fresh Idempotency-Key on every create, or the caller’s own', async () => {
    const { client, seen } = scripted([OK, OK, OK, OK, OK, OK]);
    await client.paymentLinks.create(linkParams);
    await client.paymentLinks.create(linkParams);
    await client.hostedCheckout.create(
      { amount: 1, currency: 'EUR', returnUrl: 'https://s/r', reference: 'o', terminalIdentifier: 'T00000000001' },
      { idempotencyKey: 'mine' },
    );
    await client.webhooks.register({ url: 'https://s/h' });
    await client.payments.chargeToken({
      terminalIdentifier: 'T00000000001',
      amount: 1,
      currency: 'EUR',
      reference: 'o',
      returnUrl: 'https://s/r',
      channel: 'Web',
      tokenDetails: { tokenValue: 't', recurringProcessingModel: 'Subscription' },
    });
    await client.modifications.refund({ reference: 'o', payfacReference: 'pf', amount: 1, currency: 'EUR' });
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[4]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[5]).toBeUndefined(); // the service takes none on modifications
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('mine');
    expect(keys[3]).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual(linkParams);
  });
});

describe('retries', () => {
  it('retries a create after 5xx and network errors with the same Idempotency-Key and body', async () => {
    const { client, seen, waits } = scripted([problem(500, 'INTERNAL'), reset(), OK], { maxRetries: 2 });
    const r = await client.paymentLinks.create(linkParams);
    expect(r.paymentLinkReference).toBe('pl_1');
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    // Equal jitter on a doubling step: 500 ms then 1000 ms, each half fixed and half random (0.5 here).
    expect(waits).toEqual([375, 750]);
  });

  it('stops after the bounded count and throws the last error', async () => {
    const { client, seen, waits } = scripted([problem(502, 'HTTP_502'), problem(503, 'UNAVAILABLE'), problem(500, 'INTERNAL')], { maxRetries: 2 });
    const err = await rejection(client.paymentLinks.list());
    expect(err).toBeInstanceOf(PaylinksServerError);
    expect(err).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(seen).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it('caps the backoff step', async () => {
    const { client, waits } = scripted(
      Array.from({ length: 7 }, () => problem(500, 'INTERNAL')),
      { maxRetries: 6, retryBaseDelayMs: 1000, retryMaxDelayMs: 4000 },
    );
    await rejection(client.paymentLinks.list());
    expect(waits).toEqual([750, 1500, 3000, 3000, 3000, 3000]);
  });

  it('waits what Retry-After says on 429 and 503', async () => {
    const { client, waits } = scripted([
      { ...problem(429, 'RATE_LIMITED'), headers: { 'retry-after': '3' } } as Step,
      { ...problem(503, 'UNAVAILABLE'), headers: { 'retry-after': '2' } } as Step,
      OK,
    ]);
    await client.paymentLinks.create(linkParams);
    expect(waits).toEqual([3000, 2000]);
  });

  it('does not wait out a Retry-After beyond maxRetryAfterMs', async () => {
    const { client, seen } = scripted([{ ...problem(429, 'RATE_LIMITED'), headers: { 'retry-after': '3600' } } as Step]);
    const err = await rejection(client.paymentLinks.list());
    expect(err).toBeInstanceOf(PaylinksRateLimitError);
    expect((err as PaylinksRateLimitError).retryAfterMs).toBe(3_600_000);
    expect(seen).toHaveLength(1);
  });

  it('never retries IDEMPOTENCY_KEY_REUSED, INVALID_STATE or another 4xx', async () => {
    for (const step of [
      problem(409, 'IDEMPOTENCY_KEY_REUSED'),
      problem(409, 'INVALID_STATE'),
      problem(400, 'VALIDATION_FAILED'),
      problem(401, 'UNAUTHENTICATED'),
      problem(404, 'NOT_FOUND'),
    ]) {
      const { client, seen } = scripted([step, OK]);
      const err = await rejection(client.paymentLinks.create(linkParams));
      expect(err).toBeInstanceOf(PaylinksApiError);
      expect(seen).toHaveLength(1);
    }
  });

  it('retries a 409 whose code says the first request is still in progress', async () => {
    const { client, seen } = scripted([problem(409, 'IDEMPOTENCY_KEY_IN_PROGRESS'), OK]);
    await client.paymentLinks.create(linkParams, { idempotencyKey: 'k1' });
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['k1', 'k1']);
  });

  it('retries an operation the service does not deduplicate only when it certainly did not act', async () => {
    const capture = { reference: 'o', payfacReference: 'pf', amount: 1, currency: 'EUR' };
    // A 500 or a reset connection may hide a capture that happened: not retried.
    for (const step of [problem(500, 'INTERNAL'), reset()]) {
      const { client, seen } = scripted([step, OK]);
      await rejection(client.modifications.capture(capture));
      expect(seen).toHaveLength(1);
    }
    // Refused before connecting, rate limited, unavailable: retried.
    const { client, seen } = scripted([refused(), problem(429, 'RATE_LIMITED'), OK], { maxRetries: 3 });
    await client.modifications.capture(capture);
    expect(seen).toHaveLength(3);
  });

  it('retries nothing with maxRetries 0', async () => {
    const { client, seen } = scripted([problem(503, 'UNAVAILABLE'), OK], { maxRetries: 0 });
    await rejection(client.paymentLinks.list());
    expect(seen).toHaveLength(1);
  });

  it('gives up a silent service after the timeout, as a network error', async () => {
    const fetch = ((_input: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)))) as typeof globalThis.fetch;
    const client = new Paylinks({ baseUrl: 'https://pay.example', apiKey: 'k', fetch, timeoutMs: 20, maxRetries: 1, sleep: async () => undefined });
    const err = await rejection(client.paymentLinks.list());
    expect(err).toBeInstanceOf(PaylinksNetworkError);
    expect((err as PaylinksNetworkError).timedOut).toBe(true);
  });

  it('lets the caller abort without a retry', async () => {
    const ac = new AbortController();
    const fetch = ((_input: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)))) as typeof globalThis.fetch;
    let waits = 0;
    const client = new Paylinks({ baseUrl: 'https://pay.example', apiKey: 'k', fetch, sleep: async () => void waits++ });
    const p = rejection(client.paymentLinks.list({}, { signal: ac.signal }));
    ac.abort(new Error('user gave up'));
    expect(((await p) as Error).message).toBe('user gave up');
    expect(waits).toBe(0);
  });
});

describe('errors', () => {
  it('keeps a body that is not §Errors (a proxy page) readable', async () => {
    const fetch = (async () => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } })) as typeof globalThis.fetch;
    const client = new Paylinks({ baseUrl: 'https://pay.example', apiKey: 'k', fetch, maxRetries: 0 });
    const err = await rejection(client.paymentLinks.list());
    expect(err).toBeInstanceOf(PaylinksServerError);
    expect(err).toMatchObject({ status: 502, code: 'HTTP_502', responseIdentifier: null, body: '<html>Bad gateway</html>' });
  });

  it('classifies 409 as a conflict and keeps the field errors grouped', async () => {
    const body = {
      ...(problem(400, 'VALIDATION_FAILED') as { body: Record<string, unknown> }).body,
      errors: [
        { field: 'items[0].amount', code: 'A', message: 'a' },
        { field: 'items[0].amount', code: 'B', message: 'b' },
        { field: 'currency', code: 'C', message: 'c' },
      ],
    };
    const { client } = scripted([{ status: 400, body }, problem(409, 'INVALID_STATE')]);
    const v = (await rejection(client.paymentLinks.list())) as PaylinksApiError;
    expect(v.fieldErrors['items[0].amount']?.map((e) => e.code)).toEqual(['A', 'B']);
    expect(v.fieldErrors.currency).toHaveLength(1);
    expect(v.responseIdentifier).toBe('0b6f1c0e-6a55-4f53-9d3e-2b1e4f3a9c10');
    expect(await rejection(client.paymentLinks.list())).toBeInstanceOf(PaylinksConflictError);
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 13:57:10 GMT', Date.parse('2026-11-21T13:57:00Z'))).toBe(10_000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
  });
});
