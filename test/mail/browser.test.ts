import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { TEST_DB } from '../helpers/db.js';
import { createLink, payByLink, Shopper } from '../checkout/fixtures.js';
import { portalUser } from '../portal/helpers.js';

// The receipt as the shopper reads it: the HTML written with a payment, opened in a real Chromium
// (Debian's) 390 px wide with scripts off, as a phone's mail reader shows it, in both languages. It
// fits the width, and the facts are there. Screenshots go to /tmp/shots-mail/, to look at.

const WIDTH = 390;
const SHOTS = process.env.PAYLINKS_SHOTS ?? '/tmp/shots-mail';

describe.skipIf(TEST_DB !== 'postgres')('the receipt e-mail in Chromium at 390 px', () => {
  let ctx: TestContext;
  let browser: Browser;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    browser = await launchChromium();
    await mkdir(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  for (const lang of ['is', 'en'] as const) {
    it(`in ${lang}`, async () => {
      const ref = await createLink(
        ctx,
        payByLink(ctx, {
          culture: lang,
          amount: 58900,
          description: 'Lopapeysa og vettlingar',
          items: [
            { name: 'Lopapeysa, handprjónuð úr íslenskri ull', quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 },
            { name: 'Vettlingar', quantity: 2, unitPrice: 5000, amountWithoutDiscount: 10000, amount: 10000 },
          ],
          shopperInfo: [{ field: 'EmailAddress', requirementType: 'Required' }],
        }),
      );
      const paid = await new Shopper(ctx).payWith(`/pay/${ref}`, '4242424242424242', { 'shopper-EmailAddress': 'kaupandi@example.is' });
      expect(paid.statusCode).toBe(303);
      const { rows } = await ctx.tdb.db.pool.query<{ html_body: string; payfac_reference: string }>(
        `SELECT m.html_body, m.payfac_reference FROM mail_outbox m JOIN payments p ON p.payfac_reference = m.payfac_reference
          WHERE p.payment_link_reference = $1 AND m.kind = 'receipt'`,
        [ref],
      );
      const mail = rows[0]!;
      const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: WIDTH, height: 800 } });
      const page = await context.newPage();
      await page.setContent(mail.html_body);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTH);
      const text = (await page.textContent('body')) ?? '';
      expect(text).toContain(lang === 'is' ? 'Takk fyrir greiðsluna' : 'Thank you for your payment');
      expect(text).toContain('Vettlingar');
      expect(text).toContain('•••• 4242');
      expect(text).toContain(mail.payfac_reference);
      await page.screenshot({ path: join(SHOTS, `receipt-390-${lang}.png`), fullPage: true });
      await context.close();
    });
  }
  it('the portal’s Sent e-mails and an e-mail’s page fit 390 px, in both languages', async () => {
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const owner = await portalUser(ctx, 'owner');
    for (const lang of ['is', 'en'] as const) {
      await owner.browser.get('/portal/account');
      await owner.browser.post('/portal/account/language', { language: lang });
      const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: WIDTH, height: 844 } });
      await context.addCookies([...owner.browser.cookies].map(([name, value]) => ({ name, value, url: address })));
      const page = await context.newPage();
      const list = await page.goto(`${address}/portal/mail`);
      expect(list?.status()).toBe(200);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTH);
      await page.screenshot({ path: join(SHOTS, `portal-mail-390-${lang}.png`), fullPage: true });
      const href = await page.locator('a[href^="/portal/mail/mail_"]').first().getAttribute('href');
      await page.goto(`${address}${href}`);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTH);
      await page.screenshot({ path: join(SHOTS, `portal-mail-detail-390-${lang}.png`), fullPage: true });
      await context.close();
    }
  });
});
