import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { simulatorAcquirer } from '../../src/payments/simulator.js';
import { pay } from '../../src/payments/service.js';
import { createLink, createSession, linkDetails, payByLink, Shopper } from './fixtures.js';

// D6: every successful sale increments salesCount exactly once, also under concurrent shoppers, and
// never past maxSalesCount. The payment locks the link row, so the 51st shopper finds it Used.

describe('many shoppers on one link at once (D6)', () => {
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
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.body).toContain('data-status="Used"');

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

  it('a checkout session paid by 20 shoppers at once is paid exactly once (D10)', async () => {
    const ref = await createSession(ctx);
    const card = { number: '4242424242424242', expiryMonth: 12, expiryYear: 2039, cvc: '123' };
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => pay({ db: ctx.tdb.db, clock: ctx.clock, acquirer: simulatorAcquirer }, { kind: 'session', reference: ref }, { card, answers: [] })),
    );
    expect(outcomes.filter((o) => o.kind === 'Authorised')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'NotPayable')).toHaveLength(19);
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE checkout_reference = $1', [ref]);
    expect(rows[0]?.n).toBe(1);
  });
});
