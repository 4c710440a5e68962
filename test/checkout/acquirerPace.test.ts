import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/database.js';
import { HOLD_MS, holdPlace, sweepHolds } from '../../src/checkout/holds.js';
import { simulatorAt } from '../../src/payments/simulator.js';
import type { Acquirer } from '../../src/payments/acquirer.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { watchedAcquirer } from '../helpers/acquirerGuard.js';
import { createLink, createSession, linkDetails, payByLink, Shopper, FUTURE_EXPIRY } from './fixtures.js';
import { capture, ledger, paidSession, refund, tokenFromSession } from '../modifications/helpers.js';
import { ModificationProcessor } from '../../src/payments/modifications/processor.js';

// Payments at a real acquirer's pace: the simulator answers after 100 ms, and no acquirer call of a
// shopper's page is made while a transaction is open (the watched acquirer records any that is). A
// link's cap and a promotion code's cap hold by the places payments hold while the acquirer answers
// (src/checkout/holds.ts): many shoppers pay one link at once, never past the cap, and nobody is
// charged who is refused. A failed call gives its place back; a place held by a payment that never
// finished frees itself when it expires.

const LATENCY_MS = 100;
const CARD = { cardNumber: '4242424242424242', expiryDate: FUTURE_EXPIRY, cvc: '123' };

let ctx: TestContext;
let calls: { all: string[]; inside: string[] };
/** When set, the next authorisations throw, as a call that times out does. */
let failing = 0;

beforeAll(async () => {
  const paced = simulatorAt(LATENCY_MS);
  const flaky: Acquirer = {
    ...paced,
    authorise: (r) => (failing > 0 ? (failing--, Promise.reject(new Error('the acquirer did not answer'))) : paced.authorise(r)),
  };
  const watched = watchedAcquirer(flaky);
  calls = watched.calls;
  ctx = await createTestContext({}, { acquirer: watched.acquirer });
});
afterAll(async () => {
  await ctx?.close();
});

async function liveHolds(): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_holds');
  return rows[0]?.n ?? 0;
}

async function paymentsOf(ref: string): Promise<{ success: boolean }[]> {
  const { rows } = await ctx.tdb.db.pool.query<{ success: boolean }>('SELECT success FROM payments WHERE payment_link_reference = $1', [ref]);
  return rows;
}

describe('payments at a real pace', () => {
  it('200 shoppers at once on a link capped at 50: exactly 50 sales, every other shopper refused and charged nothing, nothing left held', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { exactSalesCount: 50, culture: 'en' }));
    const before = calls.all.length;
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const s = new Shopper(ctx, `198.51.100.${(i % 250) + 1}`);
        await s.get(`/pay/${ref}`);
        return s.post(`/pay/${ref}`, CARD);
      }),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 303)).toHaveLength(50);
    expect(codes.filter((c) => c === 409)).toHaveLength(150);
    for (const r of results.filter((x) => x.statusCode === 409)) {
      expect(r.body).toMatch(/data-status="Used"|what is left is being paid for by other shoppers right now/);
    }
    // Only the held places were taken to the acquirer: no refused shopper was charged, or even asked for.
    expect(calls.all.length - before).toBe(50);
    expect(await paymentsOf(ref)).toHaveLength(50);
    expect(await linkDetails(ctx, ref)).toMatchObject({ salesCount: 50, status: 'Used' });
    expect(await liveHolds()).toBe(0);
    expect(calls.inside).toEqual([]);
  });

  it('40 shoppers at once with a code capped at 5: exactly 5 redemptions, each payment discounted, the rest charged nothing', async () => {
    const made = await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'PACE5', percentOff: 10, maxRedemptions: 5 });
    expect(made.status).toBe(200);
    const ref = await createLink(ctx, payByLink(ctx, { allowPromotionCodes: true, culture: 'en' }));
    const results = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const s = new Shopper(ctx, `203.0.113.${i + 1}`);
        await s.get(`/pay/${ref}`);
        return s.post(`/pay/${ref}`, { ...CARD, promotionCode: 'PACE5' });
      }),
    );
    expect(results.filter((r) => r.statusCode === 303)).toHaveLength(5);
    const { rows } = await ctx.tdb.db.pool.query<{ amount: number; promotion_code: string }>(
      'SELECT amount, promotion_code FROM payments WHERE payment_link_reference = $1',
      [ref],
    );
    expect(rows).toHaveLength(5);
    for (const p of rows) expect(p).toEqual({ amount: 44000, promotion_code: 'PACE5' });
    const codeId = (made.body.promotionCode as { promotionCodeId: string }).promotionCodeId;
    const after = await call(ctx, 'GET', `/api/v1/promotioncodes/${codeId}`);
    expect(after.body.promotionCode).toMatchObject({ redemptionCount: 5 });
    expect(await liveHolds()).toBe(0);
    expect(calls.inside).toEqual([]);
  });

  it('a session, a 3-D Secure step and a refusal: each acquirer call is made with no transaction open', async () => {
    const before = calls.all.length;
    const session = await createSession(ctx);
    const s = new Shopper(ctx);
    expect((await s.payWith(`/checkout/${session}`, '4242424242424242')).statusCode).toBe(303);

    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const step = await s.payWith(`/pay/${ref}`, '4000000000003220');
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] ?? '';
    expect((await s.post(`/pay/${ref}/3ds`, { challenge, action: 'confirm' })).statusCode).toBe(303);
    expect((await s.payWith(`/pay/${ref}`, '4000000000000002')).body).toContain('the card was declined');

    expect(calls.all.slice(before)).toEqual(['authorise', 'authorise', 'completeChallenge', 'authorise']);
    expect(calls.inside).toEqual([]);
    expect(await liveHolds()).toBe(0);
  });

  it('a call that fails gives its place back at once: the last place of a link is paid by the next shopper', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { exactSalesCount: 1, culture: 'en' }));
    const s = new Shopper(ctx);
    failing = 1;
    const failed = await s.payWith(`/pay/${ref}`, '4242424242424242');
    expect(failed.statusCode).toBe(500);
    expect(await liveHolds()).toBe(0);
    expect(await paymentsOf(ref)).toEqual([]);
    expect((await s.payWith(`/pay/${ref}`, '4242424242424242')).statusCode).toBe(303);
    expect(await linkDetails(ctx, ref)).toMatchObject({ salesCount: 1, status: 'Used' });
  });

  it('a place held by a payment that never finished frees itself when the hold expires, and the sweep removes it', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { exactSalesCount: 1, culture: 'en' }));
    // A process took the last place and died before the acquirer answered.
    const now = ctx.clock.now();
    const hold = await withTransaction(ctx.tdb.db, (tx) => holdPlace(tx, { kind: 'link', reference: ref, placesLeft: 1 }, null, null, now));
    expect(hold).toMatch(/^hold_/);
    const s = new Shopper(ctx);
    const refused = await s.payWith(`/pay/${ref}`, '4242424242424242');
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('what is left is being paid for by other shoppers right now');
    expect(await paymentsOf(ref)).toEqual([]);

    ctx.clock.advance(HOLD_MS + 1_000);
    expect((await s.payWith(`/pay/${ref}`, '4242424242424242')).statusCode).toBe(303);
    expect(await liveHolds()).toBe(1);
    expect(await sweepHolds({ db: ctx.tdb.db, clock: ctx.clock })).toBe(1);
    expect(await liveHolds()).toBe(0);
    expect(await linkDetails(ctx, ref)).toMatchObject({ salesCount: 1 });
  });
});

describe('charges of a saved card at a real pace', () => {
  it('a charge asks the acquirer with no transaction open; two racing with one Idempotency-Key are one charge and one answer', async () => {
    const token = await tokenFromSession(ctx, 'Subscription');
    const body = {
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 4900,
      currency: 'EUR',
      reference: 'renewal-1',
      returnUrl: 'https://shop.example/return',
      channel: 'Web',
      shopperIp: '203.0.113.7',
      origin: 'https://shop.example',
      tokenDetails: { tokenValue: token, recurringProcessingModel: 'Subscription' },
    };
    const insideBefore = calls.inside.length;
    const [a, b] = await Promise.all([0, 1].map(() => call(ctx, 'POST', '/api/v1/payment', body, { headers: { 'idempotency-key': 'renewal-1-try' } })));
    expect(a?.status).toBe(200);
    expect(b?.status).toBe(200);
    expect(a?.body.payfacReference).toBe(b?.body.payfacReference);
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM payments WHERE merchant_reference = 'renewal-1'");
    expect(rows[0]?.n).toBe(1);
    expect(calls.inside.slice(insideBefore)).toEqual([]);
  });
});

describe('modifications at a real pace', () => {
  it('a capture and a refund are completed with the acquirer asked outside any transaction, the ledger and events as before', async () => {
    const watched = watchedAcquirer(simulatorAt(LATENCY_MS));
    const processor = new ModificationProcessor({ db: ctx.tdb.db, clock: ctx.clock, acquirer: watched.acquirer, sealer: ctx.sealer, listen: false });
    try {
      const p = await paidSession(ctx, { isManualCapture: true });
      expect((await capture(ctx, p, 12345)).status).toBe(200);
      await processor.settled();
      expect((await refund(ctx, p, 2345)).status).toBe(200);
      await processor.settled();
      expect(await ledger(ctx, p.payfacReference)).toMatchObject({ captured_amount: 12345, refunded_amount: 2345, capture_state: 'Captured' });
      expect(watched.calls).toEqual({ all: ['modify', 'modify'], inside: [] });
      const { rows } = await ctx.tdb.db.pool.query<{ state: string; claimed: boolean }>(
        'SELECT state, claim_token IS NOT NULL AS claimed FROM modifications WHERE original_payfac_reference = $1 ORDER BY seq',
        [p.payfacReference],
      );
      expect(rows).toEqual([
        { state: 'Succeeded', claimed: false },
        { state: 'Succeeded', claimed: false },
      ]);
    } finally {
      await processor.stop();
    }
  });
});

describe('the watch on acquirer calls', () => {
  it('records a call made inside a transaction (so the tests above would fail if one were)', async () => {
    const watched = watchedAcquirer(simulatorAt(0));
    const capture = (): Promise<unknown> =>
      watched.acquirer.modify({
        kind: 'Capture',
        reference: 'r',
        originalReference: 'o',
        card: { masked: '', last4: '', expiry: '', paymentMethod: 'card' },
        amount: 1,
        currency: 'EUR',
      });
    await withTransaction(ctx.tdb.db, async () => {
      await capture();
    });
    await capture();
    expect(watched.calls).toEqual({ all: ['modify', 'modify'], inside: ['modify'] });
  });
});
