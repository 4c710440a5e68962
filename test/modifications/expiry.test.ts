import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { merchantWaiting, waitingAuthorisations } from '../../src/payments/authorisations/service.js';
import type { TestContext } from '../helpers/app.js';
import { adjust, capture, ledger, modificationsSuite, paidSession, refund, reverse } from './helpers.js';

// Authorisations expire (docs/api.md, Authorisations expire): a payment with manual capture or a
// pre-authorisation can be captured or adjusted until PAYLINKS_AUTHORISATION_EXPIRY_DAYS after it was
// authorised (7 by default), by the injected clock; after that the API answers 409 AUTHORISATION_EXPIRED.
// The waiting ones are counted per currency for the metrics and the portal.

const DAY = 86_400_000;
const manual = { isManualCapture: true };

describe('an uncaptured authorisation expires (default 7 days)', () => {
  let ctx: TestContext;
  let processor: ModificationProcessor;
  modificationsSuite(
    (c, p) => {
      ctx = c;
      processor = p;
    },
    { resetClock: false },
  );

  it('takes a capture until the last millisecond, and refuses one at the expiry in the one error form', async () => {
    const p = await paidSession(ctx, manual);
    const madeAt = ctx.clock.now().getTime();
    ctx.clock.advance(7 * DAY - 1);
    expect((await capture(ctx, p, 1000)).status).toBe(200);
    ctx.clock.advance(1);
    const r = await capture(ctx, p, 1000);
    expect(r.status).toBe(409);
    expect(r.res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const expiredAt = new Date(madeAt + 7 * DAY).toISOString();
    expect(r.body).toMatchObject({ code: 'AUTHORISATION_EXPIRED', title: 'The authorisation has expired', status: 409 });
    // The body docs/api.md prints under "Authorisations expire".
    expect(Object.keys(r.body).sort()).toEqual(['code', 'detail', 'message', 'responseDateTime', 'responseIdentifier', 'status', 'title', 'type']);
    expect(r.body.detail).toBe(
      `the authorisation expired at ${expiredAt}, 7 days after it was made: what was not captured has been released and can no longer be captured`,
    );
    // The capture asked for in time is still completed; nothing after it was accepted.
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 1000, capture_state: 'Manual' });
    const { rows } = await ctx.tdb.db.pool.query('SELECT count(*)::int AS n FROM modifications WHERE original_payfac_reference = $1', [p.payfacReference]);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('refuses an adjustment after the expiry, a pre-authorisation alike, whatever the amount', async () => {
    const p = await paidSession(ctx, { isPreAuth: true });
    ctx.clock.advance(7 * DAY);
    const r = await adjust(ctx, p, 99_999_999);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'AUTHORISATION_EXPIRED', detail: expect.stringMatching(/can no longer be adjusted$/) });
    // A capture over the limit is refused for the expiry, not for the amount: the expiry is what the merchant must know.
    expect((await capture(ctx, p, 99_999_999)).body).toMatchObject({ code: 'AUTHORISATION_EXPIRED' });
  });

  it('completes a capture accepted before the expiry even when the acquirer gets to it after', async () => {
    const p = await paidSession(ctx, manual);
    ctx.clock.advance(7 * DAY - 1000);
    expect((await capture(ctx, p, 12345)).status).toBe(200);
    ctx.clock.advance(2000);
    await processor.settled();
    expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12345, capture_state: 'Captured' });
  });

  it('takes a reversal after the expiry: nothing captured ends Cancelled, something captured is refunded', async () => {
    const untouched = await paidSession(ctx, manual);
    const partly = await paidSession(ctx, manual);
    expect((await capture(ctx, partly, 5000)).status).toBe(200);
    await processor.settled();
    ctx.clock.advance(8 * DAY);
    // A refund of what was captured is not affected by the expiry.
    expect((await refund(ctx, partly, 1000)).status).toBe(200);
    expect((await reverse(ctx, untouched)).status).toBe(200);
    expect((await reverse(ctx, partly)).status).toBe(200);
    await processor.settled();
    expect(await ledger(ctx, untouched.payfacReference)).toMatchObject({ captured_amount: 0, capture_state: 'Cancelled' });
    expect(await ledger(ctx, partly.payfacReference)).toMatchObject({ captured_amount: 5000, refunded_amount: 5000 });
  });

  it('leaves a payment captured when it was authorised alone: there is nothing left to expire', async () => {
    const p = await paidSession(ctx);
    ctx.clock.advance(30 * DAY);
    expect((await capture(ctx, p, 1)).body).toMatchObject({ errors: [{ field: 'amount', code: 'EXCEEDS_CAPTURABLE' }] });
    expect((await refund(ctx, p, 100)).status).toBe(200);
  });
});

describe('PAYLINKS_AUTHORISATION_EXPIRY_DAYS', () => {
  let ctx: TestContext;
  modificationsSuite(
    (c) => {
      ctx = c;
    },
    { env: { PAYLINKS_AUTHORISATION_EXPIRY_DAYS: '2' }, resetClock: false },
  );

  it('sets the number of days', async () => {
    const p = await paidSession(ctx, manual);
    ctx.clock.advance(2 * DAY - 1);
    expect((await adjust(ctx, p, 20000)).status).toBe(200);
    ctx.clock.advance(1);
    const r = await capture(ctx, p, 100);
    expect(r.body).toMatchObject({ code: 'AUTHORISATION_EXPIRED', detail: expect.stringContaining('2 days after it was made') });
  });
});

describe('the authorisations that wait, per currency', () => {
  let ctx: TestContext;
  let processor: ModificationProcessor;
  modificationsSuite(
    (c, p) => {
      ctx = c;
      processor = p;
    },
    { resetClock: false },
  );

  const svc = () => ({ db: ctx.tdb.db, clock: ctx.clock, config: ctx.config });

  async function scrape(): Promise<PromFamily[]> {
    const r = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(r.statusCode).toBe(200);
    return parsePrometheusTextFormat(r.body);
  }
  function values(families: PromFamily[], name: string): Record<string, number> {
    const f = families.find((x) => x.name === name);
    if (!f) throw new Error(`no metric family ${name}`);
    expect(f.type).toBe('GAUGE');
    return Object.fromEntries(f.metrics.map((m) => [m.labels?.currency ?? '', Number(m.value)]));
  }

  it('counts what is authorised and not captured, and the oldest age, leaving out the expired, the reversed and the captured', async () => {
    let families = await scrape();
    expect(values(families, 'paylinks_authorisations_waiting')).toEqual({});

    const start = ctx.clock.now().getTime();
    // Made 8 days ago: expired, never counted.
    await paidSession(ctx, manual);
    ctx.clock.advance(1 * DAY);
    const oldest = await paidSession(ctx, manual); // EUR 123.45, 7 days old at the end
    ctx.clock.advance(2 * DAY);
    const partly = await paidSession(ctx, { isPreAuth: true, amount: 20000 });
    expect((await capture(ctx, partly, 5000)).status).toBe(200);
    const adjusted = await paidSession(ctx, manual);
    expect((await adjust(ctx, adjusted, 20000)).status).toBe(200);
    const reversed = await paidSession(ctx, manual);
    expect((await reverse(ctx, reversed)).status).toBe(200);
    // Partly captured and then reversed: it stays Manual in the table, but nothing of it waits.
    const partlyReversed = await paidSession(ctx, manual);
    expect((await capture(ctx, partlyReversed, 100)).status).toBe(200);
    await processor.settled();
    expect((await reverse(ctx, partlyReversed)).status).toBe(200);
    await paidSession(ctx); // captured at once
    await paidSession(ctx, { ...manual, currency: 'ISK', amount: 990000 });
    // Another merchant's: counted in the gauges (they are the service's), not in this merchant's figures.
    const other = await createMerchant(ctx.tdb.db, 'Other merchant');
    await paidSession({ ...ctx, merchant: other }, { ...manual, currency: 'ISK', amount: 10000 });
    await processor.settled();
    ctx.clock.set(new Date(start + 8 * DAY - 1000));

    families = await scrape();
    expect(values(families, 'paylinks_authorisations_waiting')).toEqual({ EUR: 3, ISK: 2 });
    // 12345 + (20000 − 5000) + 20000 (as adjusted); ISK 990000 + 10000.
    expect(values(families, 'paylinks_authorisations_waiting_amount')).toEqual({ EUR: 47345, ISK: 1_000_000 });
    expect(values(families, 'paylinks_authorisations_oldest_waiting_seconds')).toEqual({ EUR: 7 * 86_400 - 1, ISK: 5 * 86_400 - 1 });

    // The portal's view of the same merchant: the oldest EUR one expires within a day.
    expect(await merchantWaiting(svc(), ctx.merchant.merchantId)).toEqual([
      { currency: 'EUR', count: 3, amount: 47345, expiringSoon: 1 },
      { currency: 'ISK', count: 1, amount: 990000, expiringSoon: 0 },
    ]);
    const soon = await waitingAuthorisations(svc(), ctx.merchant.merchantId, true, null, 20);
    expect(soon.authorisations.map((a) => [a.payfacReference, a.expiresAt.getTime()])).toEqual([[oldest.payfacReference, start + 8 * DAY]]);

    // Captured in full, it waits no more; once every one has expired, the currency drops out.
    expect((await capture(ctx, oldest, 12345)).status).toBe(200);
    await processor.settled();
    expect(values(await scrape(), 'paylinks_authorisations_waiting')).toEqual({ EUR: 2, ISK: 2 });
    ctx.clock.set(new Date(start + 20 * DAY));
    families = await scrape();
    expect(values(families, 'paylinks_authorisations_waiting')).toEqual({});
    expect(values(families, 'paylinks_authorisations_waiting_amount')).toEqual({});
  });
});
