import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, linkDetails, payByLink, Shopper } from '../checkout/fixtures.js';
import { portalUser, textOf } from '../portal/helpers.js';

// How many receipts a link's pages send (docs/mail.md, "How many receipts"): to the addresses typed
// from one network address, and of one link in all, within the hour; and a link whose owner turned
// receipts off sends none. The payments themselves are made as always.

describe('receipts sent from a link’s page', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ PAYLINKS_RECEIPTS_PER_HOUR_PER_ADDRESS: '3', PAYLINKS_RECEIPTS_PER_HOUR_PER_LINK: '5' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  const emailLink = (extra: Record<string, unknown> = {}): Promise<string> =>
    createLink(ctx, payByLink(ctx, { culture: 'en', shopperInfo: [{ field: 'EmailAddress', requirementType: 'Required' }], ...extra }));

  const payFrom = async (ref: string, address: string, email: string): Promise<number> => {
    const s = new Shopper(ctx, address);
    return (await s.payWith(`/pay/${ref}`, '4242424242424242', { 'shopper-EmailAddress': email })).statusCode;
  };

  const receiptsOf = async (ref: string): Promise<string[]> =>
    (
      await ctx.tdb.db.pool.query<{ recipient: string }>(
        `SELECT m.recipient FROM mail_outbox m JOIN payments p ON p.payfac_reference = m.payfac_reference
          WHERE p.payment_link_reference = $1 AND m.kind = 'receipt'`,
        [ref],
      )
    ).rows.map((r) => r.recipient);

  const paymentsOf = async (ref: string): Promise<number> =>
    (await ctx.tdb.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE payment_link_reference = $1 AND success', [ref])).rows[0]?.n ??
    0;

  it('sends at most so many an hour to addresses typed from one network address, and so many of one link; every payment is made', async () => {
    const ref = await emailLink();
    for (let i = 0; i < 5; i++) expect(await payFrom(ref, '203.0.113.9', `victim${i}@example.com`)).toBe(303);
    // (The test's clock stands still: the receipts are compared as sets.)
    expect((await receiptsOf(ref)).sort()).toEqual(['victim0@example.com', 'victim1@example.com', 'victim2@example.com']);
    // Others paying the same link get theirs, until the link's own limit.
    for (const [i, address] of ['198.51.100.1', '198.51.100.2', '198.51.100.3'].entries())
      expect(await payFrom(ref, address, `shopper${i}@example.com`)).toBe(303);
    expect((await receiptsOf(ref)).sort()).toEqual([
      'shopper0@example.com',
      'shopper1@example.com',
      'victim0@example.com',
      'victim1@example.com',
      'victim2@example.com',
    ]);
    expect(await paymentsOf(ref)).toBe(8);
    // Another link of the merchant has limits of its own, but the network address's hour is used up.
    const other = await emailLink();
    expect(await payFrom(other, '203.0.113.9', 'victim9@example.com')).toBe(303);
    expect(await payFrom(other, '192.0.2.77', 'anna@example.com')).toBe(303);
    expect(await receiptsOf(other)).toEqual(['anna@example.com']);
    // An hour later, receipts are sent again.
    ctx.clock.advance(3_600_000);
    expect(await payFrom(ref, '203.0.113.9', 'later@example.com')).toBe(303);
    expect(await receiptsOf(ref)).toContain('later@example.com');
  });

  it('sends none for a link whose receipts are turned off, by the API or on the portal', async () => {
    const ref = await emailLink({ emailReceipts: false });
    expect((await linkDetails(ctx, ref)).emailReceipts).toBe(false);
    expect(await payFrom(ref, '192.0.2.10', 'anna@example.com')).toBe(303);
    expect(await receiptsOf(ref)).toEqual([]);
    // On again by the API: the read answer is as of a link that never had it off.
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/update', { paymentLinkReference: ref, emailReceipts: true })).status).toBe(200);
    expect('emailReceipts' in (await linkDetails(ctx, ref))).toBe(false);
    expect(await payFrom(ref, '192.0.2.11', 'bjorn@example.com')).toBe(303);
    expect(await receiptsOf(ref)).toEqual(['bjorn@example.com']);

    // An owner turns them off on the link's edit form (the box is on for a new link).
    const { browser } = await portalUser(ctx, 'owner');
    expect((await browser.get('/portal/links/new')).body).toMatch(/name="emailReceipts"[^>]*checked/);
    const edit = await browser.get(`/portal/links/${ref}/edit`);
    expect(edit.body).toMatch(/name="emailReceipts"[^>]*checked/);
    const form = { description: 'Lopapeysa', culture: 'en', returnUrl: 'https://shop.example/thanks?order=7', emailReceiptsShown: '1' };
    // A post without the box's marker (not the form's) leaves it as it is; the form with the box unticked turns it off.
    expect(
      (await browser.post(`/portal/links/${ref}/edit`, { description: 'Lopapeysa', culture: 'en', returnUrl: 'https://shop.example/thanks?order=7' }))
        .statusCode,
    ).toBe(303);
    expect('emailReceipts' in (await linkDetails(ctx, ref))).toBe(false);
    await browser.get(`/portal/links/${ref}/edit`);
    expect((await browser.post(`/portal/links/${ref}/edit`, form)).statusCode).toBe(303);
    expect((await linkDetails(ctx, ref)).emailReceipts).toBe(false);
    expect(textOf((await browser.get(`/portal/links/${ref}`)).body)).toContain('Receipts by e-mail Not sent');
    expect(await payFrom(ref, '192.0.2.12', 'cecilia@example.com')).toBe(303);
    expect(await receiptsOf(ref)).toEqual(['bjorn@example.com']);
  });

  it('sends no more receipts for payments made at once than for the same payments one by one', async () => {
    const refs = await Promise.all(Array.from({ length: 6 }, () => emailLink()));
    const statuses = await Promise.all(refs.map((ref, i) => payFrom(ref, '203.0.113.200', `at-once${i}@example.com`)));
    expect(statuses).toEqual(Array(6).fill(303));
    const sent = (await Promise.all(refs.map(receiptsOf))).flat();
    expect(sent).toHaveLength(3);
  });
});
