import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createMerchant } from '../../src/accounts/service.js';
import { CODE_THROTTLE } from '../../src/checkout/codeThrottle.js';
import { createLink, payByLink, Shopper, FUTURE_EXPIRY } from './fixtures.js';

// Guessing a merchant's promotion codes on its pay pages (docs/api.md, "Promotion codes"): a code that
// does not apply reads the same whatever the reason that would tell a guesser it exists, and refused
// codes are limited per link and network address, per address, per link and per merchant; past a
// limit no code is looked at (the right one neither) until its window ends, while paying without a
// code goes on.

const CARD = { cardNumber: '4242424242424242', expiryDate: FUTURE_EXPIRY, cvc: '123' };

describe('guessing promotion codes on a pay page', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    for (const body of [
      { code: 'GOOD', percentOff: 10 },
      { code: 'OFF', percentOff: 10, active: false },
      { code: 'EURO5', amountOff: 500, currency: 'EUR' },
    ]) {
      expect((await call(ctx, 'POST', '/api/v1/promotioncodes', body)).status).toBe(200);
    }
    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    expect((await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'THEIRS', percentOff: 50 }, { apiKey: other.apiKey })).status).toBe(200);
  });
  afterAll(async () => {
    await ctx.close();
  });

  const codeLink = () => createLink(ctx, payByLink(ctx, { allowPromotionCodes: true, culture: 'en' }));
  const apply = (s: Shopper, ref: string, promotionCode: string) => s.post(`/pay/${ref}`, { action: 'applyCode', promotionCode, lang: 'en' });
  const codeError = (body: string) => /<p class="error" id="promotionCode-error"[^>]*>([^<]*)<\/p>/.exec(body)?.[1];

  it("answers an unknown code, another merchant's, another currency's and a turned-off one alike", async () => {
    const ref = await codeLink();
    const shopper = new Shopper(ctx, '192.0.2.1');
    await shopper.get(`/pay/${ref}`);
    const answers = [];
    for (const typed of ['NOPE', 'THEIRS', 'EURO5', 'OFF']) {
      const r = await apply(shopper, ref, typed);
      answers.push({ status: r.statusCode, error: codeError(r.body) });
    }
    expect(answers).toEqual(Array(4).fill({ status: 400, error: 'This code is not valid.' }));
  });

  it('takes ten refused codes from one address on a link, then none, the right one neither, until the window ends', async () => {
    const ref = await codeLink();
    const guesser = new Shopper(ctx, '203.0.113.7');
    await guesser.get(`/pay/${ref}`);
    for (let i = 0; i < CODE_THROTTLE.perLinkAndAddress.failures; i++) expect((await apply(guesser, ref, `GUESS${i}`)).statusCode).toBe(400);

    const locked = await apply(guesser, ref, 'GOOD');
    expect(locked.statusCode).toBe(429);
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(CODE_THROTTLE.perLinkAndAddress.windowMs / 1000);
    expect(codeError(locked.body)).toMatch(/^Too many codes that do not apply have been tried here\. Try again in \d+ min, or pay without a code\.$/);
    expect(locked.body).not.toContain('data-discount');

    // The payment's form carrying the right code is not paid (nor is the code looked at) ...
    const payWithCode = await guesser.post(`/pay/${ref}`, { ...CARD, promotionCode: 'GOOD', lang: 'en' });
    expect(payWithCode.statusCode).toBe(429);
    const paid = () =>
      ctx.tdb.db.pool.query<{ amount: number; promotion_code: string | null }>(
        'SELECT amount, promotion_code FROM payments WHERE payment_link_reference = $1',
        [ref],
      );
    expect((await paid()).rows).toEqual([]);
    // ... another shopper on the same link is not held back, and paying without a code goes on.
    const other = new Shopper(ctx, '198.51.100.9');
    await other.get(`/pay/${ref}`);
    const applied = await apply(other, ref, 'good');
    expect(applied.statusCode).toBe(200);
    expect(applied.body).toContain('data-discount');
    expect((await guesser.post(`/pay/${ref}`, { ...CARD, lang: 'en' })).statusCode).toBe(303);
    expect((await paid()).rows).toEqual([{ amount: 48900, promotion_code: null }]);

    ctx.clock.advance(retryAfter * 1000);
    expect((await apply(guesser, ref, 'GOOD')).statusCode).toBe(200);
  });

  it("counts an address's refused codes over all the links, and a link's over all the addresses", async () => {
    // One address, moving from link to link below the per-link limit, meets the per-address one.
    const perLink = CODE_THROTTLE.perLinkAndAddress.failures - 1;
    const links = Math.ceil(CODE_THROTTLE.perAddress.failures / perLink);
    let left = CODE_THROTTLE.perAddress.failures;
    for (let l = 0; l < links; l++) {
      const ref = await codeLink();
      const mover = new Shopper(ctx, '203.0.113.50');
      await mover.get(`/pay/${ref}`);
      for (let i = 0; i < Math.min(perLink, left); i++) expect((await apply(mover, ref, `MOVE${l}x${i}`)).statusCode).toBe(400);
      left -= Math.min(perLink, left);
    }
    const fresh = await codeLink();
    const mover = new Shopper(ctx, '203.0.113.50');
    await mover.get(`/pay/${fresh}`);
    expect((await apply(mover, fresh, 'GOOD')).statusCode).toBe(429);

    // Many addresses, one refused code each, on one link, meet the per-link limit: the link then takes
    // no code from anyone until its window ends, and another link of the merchant still does.
    const ref = await codeLink();
    const first = new Shopper(ctx, '10.1.0.0');
    await first.get(`/pay/${ref}`);
    for (let i = 0; i < CODE_THROTTLE.perLink.failures; i++) {
      const s = new Shopper(ctx, `10.1.${Math.floor(i / 250)}.${i % 250}`);
      s.cookie = first.cookie;
      s.csrf = first.csrf;
      expect((await apply(s, ref, `SPREAD${i}`)).statusCode).toBe(400);
    }
    const newcomer = new Shopper(ctx, '198.51.100.200');
    await newcomer.get(`/pay/${ref}`);
    expect((await apply(newcomer, ref, 'GOOD')).statusCode).toBe(429);
    const elsewhere = await codeLink();
    await newcomer.get(`/pay/${elsewhere}`);
    expect((await apply(newcomer, elsewhere, 'GOOD')).statusCode).toBe(200);
  });

  it('takes no more codes from a burst sent at once than from the same codes sent one by one', async () => {
    const ref = await codeLink();
    const guesser = new Shopper(ctx, '203.0.113.99');
    await guesser.get(`/pay/${ref}`);
    // One form token, fifty posts at once: each is counted before its code is looked at.
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => apply(guesser, ref, `BURST${i}`)));
    const statuses = answers.map((r) => r.statusCode);
    // Every one answered as a refused or a throttled code: none failed on the others' counting.
    expect(answers.filter((r) => r.statusCode !== 400 && r.statusCode !== 429).map((r) => `${r.statusCode} ${r.body.slice(0, 200)}`)).toEqual([]);
    expect(statuses.filter((s) => s === 400)).toHaveLength(CODE_THROTTLE.perLinkAndAddress.failures);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50 - CODE_THROTTLE.perLinkAndAddress.failures);
    // The refused ones counted toward nothing else: the merchant's other links still take codes from others.
    const other = new Shopper(ctx, '198.51.100.201');
    await other.get(`/pay/${ref}`);
    expect((await apply(other, ref, 'GOOD')).statusCode).toBe(200);
  });

  it('counts an IPv6 guesser by its /64: moving within it is no escape', async () => {
    const ref = await codeLink();
    for (let i = 0; i < CODE_THROTTLE.perLinkAndAddress.failures; i++) {
      const s = new Shopper(ctx, `2001:db8:aa:bb::${(i + 1).toString(16)}`);
      await s.get(`/pay/${ref}`);
      expect((await apply(s, ref, `SIX${i}`)).statusCode).toBe(400);
    }
    const moved = new Shopper(ctx, '2001:db8:aa:bb:ffff:1:2:3');
    await moved.get(`/pay/${ref}`);
    expect((await apply(moved, ref, 'GOOD')).statusCode).toBe(429);
    const elsewhere = new Shopper(ctx, '2001:db8:aa:bc::1');
    await elsewhere.get(`/pay/${ref}`);
    expect((await apply(elsewhere, ref, 'GOOD')).statusCode).toBe(200);
  });
});
