import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { call, type TestContext } from '../helpers/app.js';
import { Shopper, createLink, payByLink } from '../checkout/fixtures.js';
import { CARD, modificationsSuite, paidSession, refund, reverse, capture, tokenFromLink } from './helpers.js';

// Shop plugins look their order up by checkoutReference and answer 400 to an event without one, so
// every event of a payment carries one: a session's payment its session's, a link payment the
// reference of the checkout the shopper paid in, a charge of a saved card one made for the charge, a
// capture, refund or reversal the reference of the payment it modifies.

const CS = /^cs_[A-Za-z0-9_-]{22}$/;

interface EventRow {
  event_type: string;
  payfac_reference: string;
  message: { checkoutReference: string | null; additionalData: Record<string, string> };
}

async function events(ctx: TestContext): Promise<EventRow[]> {
  const { rows } = await ctx.tdb.db.pool.query<EventRow>('SELECT event_type, payfac_reference, message FROM webhook_events ORDER BY created_at, id');
  return rows;
}

describe('checkoutReference on every payment event', () => {
  let ctx: TestContext;
  let processor: ModificationProcessor;
  modificationsSuite((c, p) => {
    ctx = c;
    processor = p;
  });

  it('is set on the events of link payments, session payments, token charges, tokenizations, captures, refunds and reversals', async () => {
    // A link payment.
    const link = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    expect((await new Shopper(ctx).payWith(`/pay/${link}`, CARD.ok)).statusCode).toBeLessThan(400);
    // A session paid with manual capture, captured, refunded; another reversed.
    const manual = await paidSession(ctx, { isManualCapture: true });
    expect((await capture(ctx, manual, 12345)).status).toBe(200);
    await processor.settled();
    expect((await refund(ctx, manual, 100, { refundReason: 'Customer request' })).status).toBe(200);
    const reversed = await paidSession(ctx);
    expect((await reverse(ctx, reversed)).status).toBe(200);
    // A card saved on a TokenizeByLink, charged by the merchant, the charge refunded, the card disabled.
    const token = await tokenFromLink(ctx, 'Subscription');
    const charge = await call(ctx, 'POST', '/api/v1/payment', {
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 4900,
      currency: 'EUR',
      reference: 'renewal-1',
      returnUrl: 'https://shop.example/return',
      channel: 'Web',
      tokenDetails: { tokenValue: token, recurringProcessingModel: 'Subscription' },
    });
    expect(charge.status, JSON.stringify(charge.body)).toBe(200);
    const chargeRef = charge.body.payfacReference as string;
    expect((await refund(ctx, chargeRef, 4900)).status).toBe(200);
    expect((await call(ctx, 'POST', '/api/v1/payment/disable-token', { tokenValue: token })).status).toBe(200);
    await processor.settled();

    const all = await events(ctx);
    const types = new Set(all.map((e) => e.event_type));
    for (const t of ['Authorization', 'Capture', 'Refund', 'Tokenization', 'TokenDisabled']) expect(types, t).toContain(t);
    expect(all.filter((e) => e.message.checkoutReference === null).map((e) => `${e.event_type} ${e.payfac_reference}`)).toEqual([]);
    for (const e of all) expect(e.message.checkoutReference, e.event_type).toMatch(CS);

    const refOf = (payfacReference: string) =>
      all.find((e) => e.payfac_reference === payfacReference && e.event_type === 'Authorization')?.message.checkoutReference;
    // The session's own reference for its payment, and for the capture and refund of it.
    expect(refOf(manual.payfacReference)).toBe(manual.checkoutReference);
    const modificationsOf = (original: string) => all.filter((e) => e.message.additionalData.originalPayfacReference === original);
    expect(
      modificationsOf(manual.payfacReference)
        .map((e) => [e.event_type, e.message.checkoutReference])
        .sort(),
    ).toEqual([
      ['Capture', manual.checkoutReference],
      ['Refund', manual.checkoutReference],
    ]);
    expect(modificationsOf(reversed.payfacReference).map((e) => e.message.checkoutReference)).toEqual([reversed.checkoutReference]);
    // The token charge's own reference, on its Authorization, its Capture and its refund's Refund.
    const chargeCheckout = refOf(chargeRef);
    expect(chargeCheckout).toMatch(CS);
    expect(all.filter((e) => e.payfac_reference === chargeRef).map((e) => e.message.checkoutReference)).toEqual([chargeCheckout, chargeCheckout]);
    expect(modificationsOf(chargeRef).map((e) => e.message.checkoutReference)).toEqual([chargeCheckout]);
    // The link payment's reference differs from the card-saving visit's, and each is used once.
    const linkRefs = all.filter((e) => e.message.additionalData.token === token || e.event_type === 'TokenDisabled').map((e) => e.message.checkoutReference);
    expect(new Set(linkRefs).size).toBe(1);
    expect(linkRefs[0]).not.toBe(chargeCheckout);
  });

  it('is given to the payments made before it existed, by the migration, without changing deliveries already made', async () => {
    const { pool } = ctx.tdb.db;
    await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/x' });
    const link = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    await new Shopper(ctx).payWith(`/pay/${link}`, CARD.ok);
    const session = await paidSession(ctx);
    const before = await pool.query<{ id: string; body: string }>('SELECT id, body FROM webhook_deliveries ORDER BY id');
    const { rows: counted } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
    // Back to the schema before the migration, with these payments in it, and migrate again.
    await pool.query('ALTER TABLE payments DROP COLUMN event_checkout_reference');
    await pool.query("DELETE FROM schema_migrations WHERE name = '0011_event_checkout_reference'");
    expect(await migrate(ctx.tdb.db)).toEqual(['0011_event_checkout_reference']);

    const { rows } = await pool.query<{ checkout_reference: string | null; event_checkout_reference: string }>(
      'SELECT checkout_reference, event_checkout_reference FROM payments',
    );
    expect(rows).toHaveLength(counted[0]?.n ?? -1);
    for (const r of rows) {
      expect(r.event_checkout_reference).toMatch(CS);
      if (r.checkout_reference !== null) expect(r.event_checkout_reference).toBe(r.checkout_reference);
    }
    expect(rows.some((r) => r.checkout_reference === session.checkoutReference)).toBe(true);
    const own = rows.filter((r) => r.checkout_reference === null).map((r) => r.event_checkout_reference);
    expect(new Set(own).size).toBe(own.length);
    expect((await pool.query('SELECT id, body FROM webhook_deliveries ORDER BY id')).rows).toEqual(before.rows);
  });
});
