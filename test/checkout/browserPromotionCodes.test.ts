import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { refusedPort } from '../webhooks/helpers.js';
import { createLink, payByLink } from './fixtures.js';

// A promotion code on the payment page in a real Chromium without JavaScript, 390 px wide, in both
// languages: Apply posts and the page comes back with the discount, the new total and the code kept; a
// bad code says why beside the box; paying charges the new total. Screenshots: /tmp/shots-promo/.

const SHOTS = '/tmp/shots-promo';
const WIDTH = 390;

const WORDS = {
  en: {
    apply: 'Apply',
    remove: 'Remove code',
    full: /^Pay ISK\s489$/,
    discount: 'Discount (HAUST10)',
    label: 'Promotion code',
    unknown: 'This code is not valid.',
    pay: /^Pay ISK\s440$/,
    paid: 'Payment successful',
    card: { number: 'Card number', expiry: 'Expiry date', cvc: 'CVC' },
  },
  is: {
    apply: 'Nota',
    remove: 'Fjarlægja kóða',
    full: /^Greiða 489\skr\.$/,
    discount: 'Afsláttur (HAUST10)',
    label: 'Afsláttarkóði',
    unknown: 'Þessi kóði er ekki gildur.',
    pay: /^Greiða 440\skr\.$/,
    paid: 'Greiðsla tókst',
    card: { number: 'Kortanúmer', expiry: 'Gildistími', cvc: 'Öryggisnúmer (CVC)' },
  },
} as const;

async function submit(page: Page, name: string | RegExp): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name }).click()]);
}

async function fitsTheWidth(page: Page): Promise<boolean> {
  return (await page.evaluate<number>('document.documentElement.scrollWidth')) <= WIDTH;
}

describe('a promotion code on the payment page in Chromium at 390 px', () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    const port = await refusedPort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_BASE_URL: base });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    await mkdir(SHOTS, { recursive: true });
    const made = await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'HAUST10', percentOff: 10 });
    expect(made.status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  for (const lang of ['is', 'en'] as const) {
    const w = WORDS[lang];

    it(`${lang}: a bad code says why; Apply shows the new total with the code kept; paying charges it`, async () => {
      const ref = await createLink(ctx, payByLink(ctx, { culture: lang, allowPromotionCodes: true }));
      const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: WIDTH, height: 844 } });
      const page = await context.newPage();
      await page.goto(`${base}/pay/${ref}`);
      expect(await fitsTheWidth(page)).toBe(true);

      await page.getByLabel(w.label).fill('NOPE');
      await submit(page, w.apply);
      expect(((await page.locator('#promotionCode-error').textContent()) ?? '').trim()).toBe(w.unknown);
      await page.screenshot({ path: join(SHOTS, `promo-refused-390-${lang}.png`), fullPage: true });

      await page.getByLabel(w.label).fill('haust10');
      await submit(page, w.apply);
      expect(await page.getByLabel(w.label).inputValue()).toBe('HAUST10');
      expect(((await page.locator('[data-new-total]').textContent()) ?? '').replace(/\s/g, ' ')).toMatch(/440/);
      expect(await fitsTheWidth(page)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `promo-applied-390-${lang}.png`), fullPage: true });

      // Remove takes the code off: the full total again and an empty box; then the code goes back on.
      await submit(page, w.remove);
      expect(await page.getByLabel(w.label).inputValue()).toBe('');
      expect(await page.locator('[data-new-total]').count()).toBe(0);
      expect(await page.getByRole('button', { name: w.full }).count()).toBe(1);
      await page.getByLabel(w.label).fill('haust10');
      await submit(page, w.apply);

      await page.getByLabel(w.card.number).fill('4242424242424242');
      await page.getByLabel(w.card.expiry).fill('12/34');
      await page.getByLabel(w.card.cvc).fill('123');
      await submit(page, w.pay);
      expect(((await page.locator('h1').textContent()) ?? '').trim()).toBe(w.paid);
      expect(await page.getByText(w.discount).count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, `promo-paid-390-${lang}.png`), fullPage: true });
      const { rows } = await ctx.tdb.db.pool.query('SELECT amount, promotion_code, discount_amount FROM payments WHERE payment_link_reference = $1', [ref]);
      expect(rows).toEqual([{ amount: 44000, promotion_code: 'HAUST10', discount_amount: 4900 }]);
      await context.close();
    });
  }

  it('en: the 3-D Secure step asks to confirm the amount after the code, and that is what is charged', async () => {
    const w = WORDS.en;
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en', allowPromotionCodes: true }));
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: WIDTH, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/pay/${ref}`);
    await page.getByLabel(w.label).fill('haust10');
    await submit(page, w.apply);
    await page.getByLabel(w.card.number).fill('4000000000003220');
    await page.getByLabel(w.card.expiry).fill('12/34');
    await page.getByLabel(w.card.cvc).fill('123');
    await submit(page, w.pay);
    const text = ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');
    expect(text).toContain('confirm the payment of ISK 440 with the card ending in 3220');
    expect(text).not.toContain('489');
    expect(await fitsTheWidth(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'promo-3ds-390-en.png'), fullPage: true });
    await submit(page, /^Confirm/);
    expect(((await page.locator('h1').textContent()) ?? '').trim()).toBe(w.paid);
    const { rows } = await ctx.tdb.db.pool.query('SELECT amount FROM payments WHERE payment_link_reference = $1', [ref]);
    expect(rows).toEqual([{ amount: 44000 }]);
    await context.close();
  });
});
