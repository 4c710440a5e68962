import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { dailySales, type DailySales } from '../../src/payments/service.js';
import { withTransaction } from '../../src/db/database.js';
import { call, type TestContext } from '../helpers/app.js';
import { createSession } from '../checkout/fixtures.js';
import { CARD, adjust, capture, modificationsSuite, paidSession, refund, reverse, tokenFromLink } from '../modifications/helpers.js';
import { portalUser, textOf } from './helpers.js';

// The overview's sums per day and currency are kept in each payment's and refund's transaction
// (migrations/0038_daily_sales.sql). They must be what summing the payments and modifications gives:
// after payments (a page's, a saved card's), refusals, captures, adjustments, refunds and reversals,
// on both sides of midnight (UTC), and whatever the time zone of the connection that writes them.

let ctx: TestContext;
let processor: ModificationProcessor;
modificationsSuite(
  (c, p) => {
    ctx = c;
    processor = p;
  },
  { resetClock: false },
);

/** The overview's figures summed from the payments and modifications themselves, as the overview defines them. */
async function summedFromPayments(merchantId: string, since: string): Promise<DailySales[]> {
  const { rows: payments } = await ctx.tdb.db.pool.query<{ createdAt: Date; currency: string; amount: number; success: boolean }>(
    'SELECT created_at AS "createdAt", currency, amount, success FROM payments WHERE merchant_id = $1',
    [merchantId],
  );
  const { rows: refunds } = await ctx.tdb.db.pool.query<{ completedAt: Date; currency: string; amount: number }>(
    `SELECT completed_at AS "completedAt", currency, amount FROM modifications
      WHERE merchant_id = $1 AND state = 'Succeeded' AND (kind = 'Refund' OR (kind = 'Reversal' AND outcome = 'Refunded'))`,
    [merchantId],
  );
  const byKey = new Map<string, DailySales>();
  const row = (at: Date, currency: string): DailySales => {
    const day = at.toISOString().slice(0, 10);
    const key = `${day}|${currency}`;
    const r = byKey.get(key) ?? { day, currency, sales: 0, payments: 0, refused: 0, refunded: 0 };
    byKey.set(key, r);
    return r;
  };
  for (const p of payments) {
    const r = row(p.createdAt, p.currency);
    if (p.success) r.sales += p.amount;
    if (p.success && p.amount > 0) r.payments += 1;
    if (!p.success) r.refused += 1;
  }
  for (const f of refunds) row(f.completedAt, f.currency).refunded += f.amount;
  return [...byKey.values()].filter((r) => r.day >= since).sort((a, b) => a.day.localeCompare(b.day) || a.currency.localeCompare(b.currency));
}

async function expectExact(days: number): Promise<DailySales[]> {
  const kept = await dailySales({ db: ctx.tdb.db, clock: ctx.clock }, ctx.merchant.merchantId, days);
  expect(kept.rows).toEqual(await summedFromPayments(ctx.merchant.merchantId, kept.since.toISOString().slice(0, 10)));
  return kept.rows;
}

describe('the overview sums per day', () => {
  it('are what the payments and modifications add up to, across midnight', async () => {
    // The evening before: a payment captured at once, one with manual capture, a pre-authorisation, a
    // refusal, a card saved with no amount, and a payment in another currency.
    ctx.clock.set(new Date('2026-06-10T23:40:00Z'));
    const sale = await paidSession(ctx, { amount: 10000 });
    const manual = await paidSession(ctx, { amount: 5000, isManualCapture: true });
    const preAuth = await paidSession(ctx, { amount: 8000, isPreAuth: true });
    await paidSession(ctx, { amount: 700 }, CARD.refused);
    const token = await tokenFromLink(ctx, 'CardOnFile');
    await paidSession(ctx, { amount: 250000, currency: 'ISK' });
    await expectExact(7);

    // Past midnight: a saved card charged through the API, refused once; a partial refund, a capture,
    // an adjustment, a reversal that refunds what was captured and one that only releases.
    ctx.clock.set(new Date('2026-06-11T00:05:00Z'));
    const charged = await call(ctx, 'POST', '/api/v1/payment', {
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 4900,
      currency: 'EUR',
      reference: 'renewal-1',
      returnUrl: 'https://shop.example/return',
      channel: 'Web',
      shopperIp: '203.0.113.7',
      origin: 'https://shop.example',
      tokenDetails: { tokenValue: token, recurringProcessingModel: 'CardOnFile' },
    });
    expect(charged.body.resultCode).toBe('Authorised');
    expect((await refund(ctx, sale, 3000)).status).toBe(200);
    expect((await capture(ctx, manual, 2000)).status).toBe(200);
    expect((await adjust(ctx, preAuth, 6000)).status).toBe(200);
    await processor.settled();
    expect((await reverse(ctx, manual)).status).toBe(200);
    expect((await reverse(ctx, preAuth)).status).toBe(200);
    await processor.settled();
    // A refund accepted before midnight and completed after it counts on the day it completed.
    ctx.clock.set(new Date('2026-06-11T23:59:00Z'));
    expect((await refund(ctx, sale, 1000)).status).toBe(200);
    ctx.clock.set(new Date('2026-06-12T00:00:00Z'));
    await processor.settled();
    await paidSession(ctx, { amount: 1234 });

    const rows = await expectExact(7);
    expect(rows).toEqual([
      { day: '2026-06-10', currency: 'EUR', sales: 23000, payments: 3, refused: 1, refunded: 0 },
      { day: '2026-06-10', currency: 'ISK', sales: 250000, payments: 1, refused: 0, refunded: 0 },
      { day: '2026-06-11', currency: 'EUR', sales: 4900, payments: 1, refused: 0, refunded: 5000 },
      { day: '2026-06-12', currency: 'EUR', sales: 1234, payments: 1, refused: 0, refunded: 1000 },
    ]);
    // The page shows the same: the week's EUR figures.
    const owner = (await portalUser(ctx, 'owner')).browser;
    expect(textOf((await owner.get('/portal')).body)).toMatch(/€291\.34 Sales 5 Payments 1 Refused €60\.00 Refunded/);

    // A week on, the 10th has left the 7 days and is still in the 30.
    ctx.clock.set(new Date('2026-06-17T12:00:00Z'));
    expect((await expectExact(7)).map((r) => r.day)).toEqual(['2026-06-11', '2026-06-12']);
    expect(await expectExact(30)).toHaveLength(4);
  });

  it('count a payment on its day in UTC whatever the time zone of the connection that records it', async () => {
    const session = await createSession(ctx);
    await withTransaction(ctx.tdb.db, async (tx) => {
      await tx.query("SET LOCAL TimeZone = 'Pacific/Kiritimati'");
      await tx.query(
        `INSERT INTO payments (payfac_reference, merchant_id, terminal_identifier, checkout_reference, event_checkout_reference, amount, currency,
           success, card_masked, card_summary, card_expiry, payment_method, three_d_authenticated, capture_state, captured_amount, created_at)
         VALUES ('9000000000000001', $1, $2, $3, $3, 100, 'EUR', true, '424242******4242', '4242', '12/2030', 'visa', false, 'Captured', 100,
                 '2026-06-17T23:30:00Z')`,
        [ctx.merchant.merchantId, ctx.merchant.terminalIdentifier, session],
      );
    });
    ctx.clock.set(new Date('2026-06-18T01:00:00Z'));
    const rows = await expectExact(7);
    expect(rows.find((r) => r.day === '2026-06-17')).toMatchObject({ sales: 100, payments: 1 });
    expect(rows.find((r) => r.day === '2026-06-18')).toBeUndefined();
  });

  it('are what the migration fills in from the payments and modifications already there', async () => {
    const before = await expectExact(30);
    const migration = readFileSync(new URL('../../migrations/0038_daily_sales.sql', import.meta.url), 'utf8');
    const backfill = /INSERT INTO payment_daily_sales \(merchant_id[\s\S]*?;\n/.exec(migration)?.[0];
    expect(backfill).toBeDefined();
    await withTransaction(ctx.tdb.db, async (tx) => {
      await tx.query('DELETE FROM payment_daily_sales');
      await tx.query(backfill ?? '');
    });
    expect(await expectExact(30)).toEqual(before);
  });
});
