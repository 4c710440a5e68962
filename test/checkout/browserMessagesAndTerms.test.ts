import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { refusedPort } from '../webhooks/helpers.js';
import { createLink, payByLink } from './fixtures.js';

// A link's terms, completion message and inactive message in a real Chromium (Debian's), without
// JavaScript, on a 390 px wide screen in both languages: the browser's own check holds the form back
// until the box is ticked, the server refuses it without, the receipt shows the merchant's words and
// stays, and a disabled link shows its own. Screenshots go to the test output folder, to look at.

const SHOTS = join(tmpdir(), 'paylinks-screenshots');
const WIDTH = 390;

const WORDS = {
  en: {
    pay: /^Pay/,
    read: 'Read the terms of Test merchant',
    accept: 'I have read and accept the terms.',
    refused: 'Accept the terms to pay.',
    paid: 'Payment successful',
    card: { number: 'Card number', expiry: 'Expiry date', cvc: 'CVC' },
    message: 'Thank you!\nYour jumper is posted within two days.',
    inactive: 'The spring sale is over.\nSee you in the autumn.',
  },
  is: {
    pay: /^Greiða/,
    read: 'Lesa skilmála Test merchant',
    accept: 'Ég hef lesið skilmálana og samþykki þá.',
    refused: 'Samþykktu skilmálana til að greiða.',
    paid: 'Greiðsla tókst',
    card: { number: 'Kortanúmer', expiry: 'Gildistími', cvc: 'Öryggisnúmer (CVC)' },
    message: 'Takk fyrir!\nPeysan er send innan tveggja daga.',
    inactive: 'Vorútsölunni er lokið.\nSjáumst í haust.',
  },
} as const;

async function submit(page: Page, name: RegExp): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name }).click()]);
}

/** Nothing on the page is wider than the screen (no sideways scrolling at 390 px). */
async function fitsTheWidth(page: Page): Promise<boolean> {
  return (await page.evaluate<number>('document.documentElement.scrollWidth')) <= WIDTH;
}

describe('a link’s terms and messages in Chromium at 390 px', () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  const consoleErrors: string[] = [];

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

  async function newPage(lang: 'is' | 'en'): Promise<{ page: Page; close: () => Promise<void> }> {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: WIDTH, height: 844 }, locale: lang === 'is' ? 'is-IS' : 'en-GB' });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${m.location().url}: ${m.text()}`);
    });
    return { page, close: () => context.close() };
  }

  for (const lang of ['is', 'en'] as const) {
    const w = WORDS[lang];

    it(`${lang}: the terms box holds the payment back until ticked; the receipt shows the message and stays`, async () => {
      const ref = await createLink(
        ctx,
        payByLink(ctx, { culture: lang, termsUrl: 'https://shop.example/terms', completionMessage: w.message, returnUrl: 'https://shop.example/thanks' }),
      );
      const { page, close } = await newPage(lang);
      await page.goto(`${base}/pay/${ref}`);
      const link = page.getByRole('link', { name: w.read });
      expect(await link.getAttribute('href')).toBe('https://shop.example/terms');
      expect(await link.getAttribute('target')).toBe('_blank');
      const box = page.getByLabel(w.accept);
      expect(await box.isChecked()).toBe(false);
      // The box sits to the left of its label, on the label's first line, and the page fits the screen.
      const boxAt = await box.boundingBox();
      const labelAt = await page.locator('label[for="acceptTerms"]').boundingBox();
      expect(boxAt && labelAt).toBeTruthy();
      expect((boxAt?.x ?? 0) + (boxAt?.width ?? 0)).toBeLessThanOrEqual(labelAt?.x ?? 0);
      expect(Math.abs((boxAt?.y ?? 0) - (labelAt?.y ?? 100))).toBeLessThan(12);
      expect(await fitsTheWidth(page)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `terms-390-${lang}.png`), fullPage: true });

      // The browser's own check: Pay with the box unticked stays on the page.
      await page.getByLabel(w.card.number).fill('4242424242424242');
      await page.getByLabel(w.card.expiry).fill('12/34');
      await page.getByLabel(w.card.cvc).fill('123');
      await page.getByRole('button', { name: w.pay }).click();
      expect(await page.evaluate("document.querySelector('#acceptTerms').validity.valueMissing")).toBe(true);
      // Without it (an old browser, a hand-made post), the server refuses and says why beside the box.
      await page.evaluate("document.querySelector('#acceptTerms').removeAttribute('required')");
      await submit(page, w.pay);
      expect(((await page.locator('#acceptTerms-error').textContent()) ?? '').trim()).toBe(w.refused);
      expect(await page.locator('#acceptTerms').getAttribute('aria-invalid')).toBe('true');
      expect(await fitsTheWidth(page)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `terms-refused-390-${lang}.png`), fullPage: true });

      await page.getByLabel(w.card.number).fill('4242424242424242');
      await page.getByLabel(w.card.cvc).fill('123');
      await page.getByLabel(w.accept).check();
      await submit(page, w.pay);
      expect(((await page.locator('h1').textContent()) ?? '').trim()).toBe(w.paid);
      // The message as written, its line break kept (white-space: pre-line).
      expect(await page.locator('[data-completion-message]').innerText()).toBe(w.message);
      expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
      expect(await fitsTheWidth(page)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `completion-message-390-${lang}.png`), fullPage: true });
      await close();
    });

    it(`${lang}: a disabled link shows the merchant's own message`, async () => {
      const ref = await createLink(ctx, payByLink(ctx, { culture: lang, inactiveMessage: w.inactive }));
      expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: ref })).status).toBe(200);
      const { page, close } = await newPage(lang);
      await page.goto(`${base}/pay/${ref}`);
      expect(await page.locator('[data-inactive-message]').innerText()).toBe(w.inactive);
      expect(await page.locator('form').count()).toBe(0);
      expect(await fitsTheWidth(page)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `inactive-message-390-${lang}.png`), fullPage: true });
      await close();
    });
  }

  it('reports no console errors (CSP violations included) on any page', () => {
    // The 400 of a refused form is logged as a failed resource; it is an answer, not a fault.
    expect(consoleErrors.filter((e) => !e.includes('Failed to load resource') || /favicon|\/assets\//.test(e))).toEqual([]);
  });
});
