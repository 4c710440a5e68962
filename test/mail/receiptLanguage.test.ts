import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, FUTURE_EXPIRY, payByLink, Shopper } from '../checkout/fixtures.js';

// A shopper who switched the payment page to the other language gets the receipt in the language
// they read the page in, not in the link's: also when the payment finishes on the 3-D Secure page.

describe('the receipt in the language of the page the shopper paid on', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  const receiptOf = async (ref: string): Promise<{ lang: string; subject: string } | undefined> =>
    (
      await ctx.tdb.db.pool.query<{ lang: string; subject: string }>(
        `SELECT m.lang, m.subject FROM mail_outbox m JOIN payments p ON p.payfac_reference = m.payfac_reference
          WHERE p.payment_link_reference = $1 AND m.kind = 'receipt'`,
        [ref],
      )
    ).rows[0];

  const icelandicLink = (): Promise<string> =>
    createLink(ctx, payByLink(ctx, { culture: 'is', shopperInfo: [{ field: 'EmailAddress', requirementType: 'Optional' }] }));

  it('an Icelandic link paid on its page switched to English: the receipt is in English', async () => {
    const ref = await icelandicLink();
    const s = new Shopper(ctx);
    // The page in English carries its language in the form, as the browser then sends it.
    expect((await s.get(`/pay/${ref}?lang=en`)).body).toContain('name="lang" value="en"');
    const paid = await s.post(`/pay/${ref}`, {
      cardNumber: '4242424242424242',
      expiryDate: FUTURE_EXPIRY,
      cvc: '123',
      'shopper-EmailAddress': 'ann@example.com',
      lang: 'en',
    });
    expect(paid.statusCode, paid.body.slice(0, 300)).toBe(303);
    expect(await receiptOf(ref)).toEqual({ lang: 'en', subject: 'Receipt for your payment to Test merchant' });
  });

  it('the same link not switched, its form without a language: the receipt is in the link’s, Icelandic', async () => {
    const ref = await icelandicLink();
    const paid = await new Shopper(ctx).payWith(`/pay/${ref}`, '4242424242424242', { 'shopper-EmailAddress': 'jon@example.is' });
    expect(paid.statusCode).toBe(303);
    expect(await receiptOf(ref)).toEqual({ lang: 'is', subject: 'Kvittun fyrir greiðslu til Test merchant' });
  });

  it('switched to English and paid through a 3-D Secure step: the receipt is in English', async () => {
    const ref = await icelandicLink();
    const s = new Shopper(ctx);
    const step = await s.payWith(`/pay/${ref}?lang=en`, '4000000000003220', { 'shopper-EmailAddress': 'ann@example.com', lang: 'en' });
    expect(step.statusCode).toBe(200);
    expect(step.body).toContain('name="lang" value="en"');
    const challenge = /name="challenge" value="([^"]+)"/.exec(step.body)?.[1] as string;
    const done = await s.post(`/pay/${ref}/3ds`, { challenge, action: 'confirm', lang: 'en' });
    expect(done.statusCode).toBe(303);
    expect(await receiptOf(ref)).toMatchObject({ lang: 'en' });
  });
});
