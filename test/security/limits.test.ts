import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/accounts/service.js';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { createLink, payByLink } from '../checkout/fixtures.js';

// Issue 7, property 5: size limits answered in §Errors's form (431 for headers, 413 for bodies, on a real
// socket, where Node's parser enforces them), rate limiting per API key (429 RATE_LIMITED with
// Retry-After, §Status codes), and security headers on every page.

/** Sends raw bytes to the server and returns the whole answer as text. */
function raw(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d.toString('utf8')));
    socket.on('error', (err) => (out ? resolve(out) : reject(err)));
    socket.on('close', () => resolve(out));
    socket.write(request);
  });
}

function problemOf(answer: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head = '', body = '{}'] = answer.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), headers: head, body: JSON.parse(body) as Record<string, unknown> };
}

describe('limits and headers (§Hardening)', () => {
  let ctx: TestContext;
  let port: number;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn', PAYLINKS_RATE_LIMIT_PER_SECOND: '2', PAYLINKS_RATE_LIMIT_BURST: '5' });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('answers headers over 16 KiB with 431 in §Errors form', async () => {
    const answer = problemOf(await raw(port, `GET /api/v1/paymentlinks HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.headers).toMatch(/content-type: application\/problem\+json/i);
    expect(answer.body).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE', message: expect.any(String), responseIdentifier: expect.any(String) });
  });

  it('answers a request that is not HTTP with 400 in §Errors form', async () => {
    const answer = problemOf(await raw(port, 'NONSENSE\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('answers a body over 1 MiB with 413 in §Errors form, on the API and on a page', async () => {
    const big = JSON.stringify({ description: 'x'.repeat(1024 * 1024 + 10) });
    const api = await fetch(`http://127.0.0.1:${port}/api/v1/paymentlinks/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ctx.merchant.apiKey },
      body: big,
    });
    expect(api.status).toBe(413);
    expect(await api.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const page = await fetch(`http://127.0.0.1:${port}/pay/pl_x`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `a=${'x'.repeat(20_000)}`,
    });
    expect(page.status).toBe(413);
  });

  it('limits each API key to its burst, then its rate, with 429 RATE_LIMITED and Retry-After (§Status codes)', async () => {
    const other = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks']);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: other.apiKey })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const limited = await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: other.apiKey });
    expect(limited.status).toBe(429);
    expect(limited.res.headers['retry-after']).toBe('1');
    expect(limited.res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    // A limited request does nothing: not even a create.
    const create = await call(ctx, 'POST', '/api/v1/paymentlinks/create', payByLink(ctx), { apiKey: other.apiKey });
    expect(create.status).toBe(429);
    // Another key is not affected; time refills the bucket (the manual clock: 1 s is 2 requests).
    expect((await call(ctx, 'GET', '/api/v1/paymentlinks')).status).toBe(200);
    ctx.clock.advance(1_000);
    const after = [];
    for (let i = 0; i < 3; i++) after.push((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: other.apiKey })).status);
    expect(after).toEqual([200, 200, 429]);
  });

  it('sends security headers on the shopper pages and the API reference', async () => {
    ctx.clock.advance(10_000);
    const ref = await createLink(ctx, payByLink(ctx));
    for (const path of [`/pay/${ref}`, '/pay/nowhere', '/docs']) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      expect(res.headers.get('content-security-policy'), path).toMatch(/default-src 'none'/);
      expect(res.headers.get('content-security-policy'), path).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('referrer-policy'), path).toBe('same-origin');
      await res.arrayBuffer();
    }
  });
});
