import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { THROTTLE } from '../../src/users/service.js';
import { PortalBrowser } from '../portal/helpers.js';

// The sign-in throttle counts by request.ip (src/users/throttle.ts). X-Forwarded-For may change that
// address only when the request comes from a proxy listed in PAYLINKS_TRUST_PROXY: otherwise any
// client could send a new one with each guess and never be counted (docs/production.md).

const LIMIT = THROTTLE.perAccountAndAddress.failures;

/** A wrong password for this account, from this socket address, with this X-Forwarded-For (if any). */
async function wrongPassword(ctx: TestContext, email: string, from: string, forwardedFor?: string): Promise<number> {
  const browser = new PortalBrowser(ctx, from);
  if (forwardedFor !== undefined) browser.headers = { 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': 'https' };
  return (await browser.signIn(email, 'not the password')).statusCode;
}

describe('without PAYLINKS_TRUST_PROXY', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx.close());

  it('ignores X-Forwarded-For: a guesser sending a new one each time is still one address', async () => {
    const email = 'untrusted.header@example.com';
    for (let i = 0; i < LIMIT; i++) expect(await wrongPassword(ctx, email, '127.0.0.1', `203.0.113.${i + 1}`)).toBe(401);
    expect(await wrongPassword(ctx, email, '127.0.0.1', '203.0.113.200')).toBe(429);
    expect(await wrongPassword(ctx, email, '127.0.0.1')).toBe(429);
    // Another socket address is another client.
    expect(await wrongPassword(ctx, email, '198.51.100.7')).toBe(401);
  });
});

describe('with PAYLINKS_TRUST_PROXY=127.0.0.1,10.0.0.0/8', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ PAYLINKS_TRUST_PROXY: '127.0.0.1,10.0.0.0/8' });
  });
  afterAll(() => ctx.close());

  it('counts each forwarded client apart when the request comes from a listed proxy', async () => {
    const email = 'behind.proxy@example.com';
    for (let i = 0; i < LIMIT; i++) expect(await wrongPassword(ctx, email, '127.0.0.1', '203.0.113.1')).toBe(401);
    expect(await wrongPassword(ctx, email, '127.0.0.1', '203.0.113.1')).toBe(429);
    // The same client through another listed proxy (a range) is still locked ...
    expect(await wrongPassword(ctx, email, '10.1.2.3', '203.0.113.1')).toBe(429);
    // ... and another client through the same proxy is not: the proxy is not one address for all.
    expect(await wrongPassword(ctx, email, '127.0.0.1', '203.0.113.2')).toBe(401);
    // The nearest untrusted address counts: what a client writes ahead of the proxy's own entry does not.
    expect(await wrongPassword(ctx, email, '127.0.0.1', '192.0.2.99, 203.0.113.1')).toBe(429);
  });

  it('ignores X-Forwarded-For from an address not listed', async () => {
    const email = 'unlisted.proxy@example.com';
    for (let i = 0; i < LIMIT; i++) expect(await wrongPassword(ctx, email, '198.51.100.7', `203.0.113.${i + 1}`)).toBe(401);
    expect(await wrongPassword(ctx, email, '198.51.100.7', '203.0.113.100')).toBe(429);
    // The forwarded addresses it named were never counted as themselves.
    expect(await wrongPassword(ctx, email, '127.0.0.1', '203.0.113.1')).toBe(401);
  });
});
