import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { refusedPort } from '../webhooks/helpers.js';
import { createLink, linkDetails, payByLink } from './fixtures.js';

// A link's custom fields in a real Chromium (Debian's), without JavaScript, on a 390 px wide screen
// in both languages: the browser's own check holds the form back while a required field is empty,
// the server refuses it without and says why beside the input, keeping the other answers, and the
// answers given go through with the payment. Screenshots go to /tmp/shots-cfields, to look at.

const SHOTS = '/tmp/shots-cfields';
const WIDTH = 390;

const FIELDS = [
  { key: 'size', type: 'Dropdown', label: 'Stærð á bol', labelEn: 'T-shirt size', required: true, options: ['S', 'M', 'L', 'XL'] },
  { key: 'plate', type: 'Text', label: 'Bílnúmer fyrir bílastæðið', labelEn: 'Licence plate for the car park', required: false, maxLength: 8 },
  { key: 'guests', type: 'Number', label: 'Fjöldi gesta', labelEn: 'Number of guests', required: true },
];

const WORDS = {
  en: {
    pay: /^Pay/,
    legend: 'Additional information',
    size: 'T-shirt size',
    plate: 'Licence plate for the car park',
    guests: 'Number of guests',
    refused: 'Please choose one of the options.',
    notNumber: 'Enter a whole number, e.g. 12.',
    paid: 'Payment successful',
    card: { number: 'Card number', expiry: 'Expiry date', cvc: 'CVC' },
  },
  is: {
    pay: /^Greiða/,
    legend: 'Viðbótarupplýsingar',
    size: 'Stærð á bol',
    plate: 'Bílnúmer fyrir bílastæðið',
    guests: 'Fjöldi gesta',
    refused: 'Vinsamlegast veldu einn af valkostunum.',
    notNumber: 'Sláðu inn heila tölu, t.d. 12.',
    paid: 'Greiðsla tókst',
    card: { number: 'Kortanúmer', expiry: 'Gildistími', cvc: 'Öryggisnúmer (CVC)' },
  },
} as const;

async function submit(page: Page, name: RegExp): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name }).click()]);
}

async function fitsTheWidth(page: Page): Promise<boolean> {
  return (await page.evaluate<number>('document.documentElement.scrollWidth')) <= WIDTH;
}

describe('a link’s custom fields in Chromium at 390 px', () => {
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
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  for (const lang of ['is', 'en'] as const) {
    const w = WORDS[lang];

    it(`${lang}: a required field left empty is refused beside its input, the other answers kept; the answers go through`, async () => {
      const ref = await createLink(ctx, payByLink(ctx, { culture: lang, customFields: FIELDS }));
      const context = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: WIDTH, height: 844 },
        locale: lang === 'is' ? 'is-IS' : 'en-GB',
      });
      const page = await context.newPage();
      await page.goto(`${base}/pay/${ref}`);
      expect(((await page.locator('fieldset.custom-fields legend').textContent()) ?? '').trim()).toBe(w.legend);
      expect(await fitsTheWidth(page)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `custom-fields-390-${lang}.png`), fullPage: true });

      await page.getByLabel(w.plate).fill('AB123');
      await page.getByLabel(w.guests).fill('4');
      await page.getByLabel(w.card.number).fill('4242424242424242');
      await page.getByLabel(w.card.expiry).fill('12/34');
      await page.getByLabel(w.card.cvc).fill('123');
      // The browser's own check: Pay with the required size not chosen stays on the page.
      await page.getByRole('button', { name: w.pay }).click();
      expect(await page.evaluate("document.querySelector('#custom-size').validity.valueMissing")).toBe(true);
      // Without it (an old browser, a hand-made post), the server refuses and says why beside the input.
      await page.evaluate("document.querySelector('#custom-size').removeAttribute('required')");
      await submit(page, w.pay);
      expect(((await page.locator('#custom-size-error').textContent()) ?? '').trim()).toBe(w.refused);
      expect(await page.locator('#custom-size').getAttribute('aria-invalid')).toBe('true');
      // The error sits right under its input.
      const inputAt = await page.locator('#custom-size').boundingBox();
      const errorAt = await page.locator('#custom-size-error').boundingBox();
      expect((errorAt?.y ?? 0) - ((inputAt?.y ?? 0) + (inputAt?.height ?? 0))).toBeLessThan(12);
      expect(await page.getByLabel(w.plate).inputValue()).toBe('AB123');
      expect(await page.getByLabel(w.guests).inputValue()).toBe('4');
      expect(await fitsTheWidth(page)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `custom-fields-refused-390-${lang}.png`), fullPage: true });

      // A number that is not whole is refused too (the browser does not check it).
      await page.getByLabel(w.size).selectOption('XL');
      await page.getByLabel(w.guests).fill('4,5');
      await page.getByLabel(w.card.number).fill('4242424242424242');
      await page.getByLabel(w.card.cvc).fill('123');
      await submit(page, w.pay);
      expect(((await page.locator('#custom-guests-error').textContent()) ?? '').trim()).toBe(w.notNumber);
      expect(await page.getByLabel(w.size).inputValue()).toBe('XL');

      await page.getByLabel(w.guests).fill('12');
      await page.getByLabel(w.card.number).fill('4242424242424242');
      await page.getByLabel(w.card.cvc).fill('123');
      await submit(page, w.pay);
      expect(((await page.locator('h1').textContent()) ?? '').trim()).toBe(w.paid);
      await context.close();

      const submissions = (await linkDetails(ctx, ref)).submissions as { completed: boolean; customFieldAnswers: unknown }[];
      expect(submissions).toEqual([
        expect.objectContaining({
          completed: true,
          customFieldAnswers: [
            { key: 'size', value: 'XL' },
            { key: 'plate', value: 'AB123' },
            { key: 'guests', value: '12' },
          ],
        }),
      ]);
    });
  }
});
