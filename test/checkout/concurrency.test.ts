import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { simulatorAcquirer } from '../../src/payments/simulator.js';
import { pay } from '../../src/checkout/shopper.js';
import { createLink, createSession, linkDetails, payByLink, Shopper } from './fixtures.js';

// §Link status: every successful sale increments salesCount exactly once, also under concurrent shoppers, and
// never past maxSalesCount. The payment locks the link row, so the 51st shopper finds it Used.

describe('many shoppers on one link at once (§Link status)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('200 simultaneous form posts on a link with exactSalesCount 50 make exactly 50 sales', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { exactSalesCount: 50 }));
    const shopper = new Shopper(ctx);
    await shopper.get(`/pay/${ref}`);
    const form = { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' };
    const results = await Promise.all(Array.from({ length: 200 }, () => shopper.post(`/pay/${ref}`, form)));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 303)).toHaveLength(50);
    expect(codes.filter((c) => c === 409)).toHaveLength(150);
    // Refused once the link is used, or while its last places were held by payments in flight.
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.body).toMatch(/data-status="Used"|greiða fyrir það sem eftir er einmitt núna/);

    const link = await linkDetails(ctx, ref);
    expect(link).toMatchObject({ salesCount: 50, maxSalesCount: 50, status: 'Used' });
    const subs = link.submissions as { completed: boolean; payfacReference: string }[];
    expect(subs).toHaveLength(50);
    expect(new Set(subs.map((s) => s.payfacReference)).size).toBe(50);
    const { rows } = await ctx.tdb.db.pool.query<{ event_type: string; n: number }>(
      "SELECT event_type, count(*)::int AS n FROM webhook_events WHERE message->>'merchantReference' = $1 GROUP BY event_type ORDER BY event_type",
      [ref],
    );
    expect(rows).toEqual([
      { event_type: 'Authorization', n: 50 },
      { event_type: 'Capture', n: 50 },
    ]);
  });

  it('payments, 20 updates and a disable racing on one capped link: no oversell, no lost update, an outcome of some serial order (§Link status, §Updating a link, §Disabling a link; §Hardening)', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { exactSalesCount: 5, description: 'initial', themeKey: 'initial' }));
    const shopper = new Shopper(ctx);
    await shopper.get(`/pay/${ref}`);
    const form = { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' };
    const payments = Array.from({ length: 40 }, () => shopper.post(`/pay/${ref}`, form));
    // Each update changes one field and leaves the others (§Updating a link): a lost update would bring back an
    // old value of another field, or of salesCount, which payments change at the same time.
    const updates = Array.from({ length: 20 }, (_, i) =>
      call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: ref, ...(i % 2 === 0 ? { description: `d${i}` } : { themeKey: `t${i}` }) }).then(
        (r) => ({ i, r }),
      ),
    );
    const disable = call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: ref });
    const [paid, updated, disabled] = await Promise.all([Promise.all(payments), Promise.all(updates), disable]);
    expect(disabled.status).toBe(200);

    const sold = paid.filter((r) => r.statusCode === 303).length;
    const refused = paid.filter((r) => r.statusCode === 409);
    expect(sold + refused.length).toBe(40);
    expect(sold).toBeLessThanOrEqual(5); // no oversell
    // Serial order: a shopper told "Used" means the fifth sale came first; fewer sales means the
    // disable came before the fifth, and then nobody can have been told "Used".
    // A shopper told the places are held (no status) means five were held, and each held payment is recorded.
    const held = (body: string): boolean => body.includes('greiða fyrir það sem eftir er einmitt núna');
    const seen = new Set(refused.map((r) => (held(r.body) ? 'Held' : /data-status="(\w+)"/.exec(r.body)?.[1])));
    if (sold < 5) expect([...seen]).toEqual(['Disabled']);
    for (const status of seen) expect(['Used', 'Disabled', 'Held']).toContain(status);

    // Updates: each either applied (200) or came after the disable (409 INVALID_STATE, §Updating a link).
    for (const { r } of updated) expect([200, 409]).toContain(r.status);
    const applied = updated.filter((u) => u.r.status === 200).map((u) => u.i);
    const link = await linkDetails(ctx, ref);
    expect(link.status).toBe('Disabled');
    expect(link.salesCount).toBe(sold); // no lost increment
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE payment_link_reference = $1 AND success', [ref]);
    expect(rows[0]?.n).toBe(sold);
    const lastOf = (even: boolean) => applied.filter((i) => (i % 2 === 0) === even);
    // The final value of each field is one that an applied update wrote (or the initial one if none did).
    const descriptions = lastOf(true).map((i) => `d${i}`);
    const themes = lastOf(false).map((i) => `t${i}`);
    expect(descriptions.length > 0 ? descriptions : ['initial']).toContain(link.description);
    expect(themes.length > 0 ? themes : ['initial']).toContain(link.themeKey);
  });

  it('a checkout session paid by 20 shoppers at once is paid exactly once (§Hosted checkout)', async () => {
    const ref = await createSession(ctx);
    const card = { cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' };
    const shopper = { answers: {}, acceptedTerms: false, customValues: {}, quantities: null };
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () =>
        pay(
          { db: ctx.tdb.db, clock: ctx.clock, acquirer: simulatorAcquirer, sealer: ctx.sealer, receiptsPerHour: ctx.config.receiptsPerHour },
          { kind: 'session', reference: ref },
          { card, shopper, from: { address: '192.0.2.1' } },
        ),
      ),
    );
    expect(outcomes.filter((o) => o.kind === 'Authorised')).toHaveLength(1);
    // The others: the session is paid, or its one place was held by the payment in flight.
    expect(outcomes.filter((o) => o.kind === 'NotPayable' || (o.kind === 'PlacesHeld' && o.what === 'places'))).toHaveLength(19);
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE checkout_reference = $1', [ref]);
    expect(rows[0]?.n).toBe(1);
  });
});
