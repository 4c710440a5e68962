import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { refusedPort } from '../webhooks/helpers.js';
import { createLink, payByLink } from './fixtures.js';

// Adjustable quantities on the payment page (docs/rules.md, §Adjustable quantities) in a real
// Chromium on a 390 px wide screen, in both languages, with JavaScript and without. Without it the
// shopper presses "Update total" and the page comes back with the lines and the total; with it they
// follow as the quantity is typed. Either way the payment charges the total on the Pay button.
// Screenshots go to /tmp/shots-qty, to look at.

const SHOTS = process.env.PAYLINKS_SHOTS ?? '/tmp/shots-qty';
const WIDTH = 390;

const WORDS = {
  en: {
    quantity: 'Quantity of Lopapeysa',
    mittens: 'Quantity of Vettlingar',
    update: 'Update total',
    pay: /^Pay/,
    payAfter: 'Pay ISK\u00a02,780',
    updated: 'The total is updated: ISK\u00a02,780.',
    paid: 'Payment successful',
    paidText: 'You paid ISK\u00a02,780',
    card: { number: 'Card number', expiry: 'Expiry date', cvc: 'CVC' },
    outOfRange: 'Choose a number in the range shown.',
  },
  is: {
    quantity: 'Magn af Lopapeysa',
    mittens: 'Magn af Vettlingar',
    update: 'Uppfæra samtölu',
    pay: /^Greiða/,
    payAfter: 'Greiða 2.780\u00a0kr.',
    updated: 'Samtalan hefur verið uppfærð: 2.780\u00a0kr.',
    paid: 'Greiðsla tókst',
    paidText: 'Þú greiddir 2.780\u00a0kr.',
    card: { number: 'Kortanúmer', expiry: 'Gildistími', cvc: 'Öryggisnúmer (CVC)' },
    outOfRange: 'Veldu tölu á bilinu sem sýnt er.',
  },
} as const;

async function submit(page: Page, name: RegExp | string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name, exact: typeof name === 'string' }).click()]);
}

async function fitsTheWidth(page: Page): Promise<boolean> {
  return (await page.evaluate<number>('document.documentElement.scrollWidth')) <= WIDTH;
}

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? '').trim();
}

describe('adjustable quantities in Chromium at 390 px', () => {
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

  async function newPage(lang: 'is' | 'en', javaScriptEnabled: boolean): Promise<{ page: Page; close: () => Promise<void> }> {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: WIDTH, height: 844 }, locale: lang === 'is' ? 'is-IS' : 'en-GB' });
    const page = await context.newPage();
    page.on('console', (m) => {
      // The out-of-range quantity is answered 400, and a Pay with a changed total 409, on purpose; the browser reports such pages so.
      if (m.type() === 'error' && !/status of (400|409)/.test(m.text())) consoleErrors.push(`${m.location().url}: ${m.text()}`);
    });
    return { page, close: () => context.close() };
  }

  for (const lang of ['is', 'en'] as const) {
    for (const js of [false, true]) {
      const w = WORDS[lang];
      const tag = `${lang}-${js ? 'js' : 'nojs'}`;
      it(`${lang}, JavaScript ${js ? 'on' : 'off'}: change a quantity, Update total, the total follows, pay that total`, async () => {
        const ref = await createLink(
          ctx,
          payByLink(ctx, {
            culture: lang,
            amount: 129000,
            items: [
              { name: 'Lopapeysa', quantity: 1, unitPrice: 99000, amountWithoutDiscount: 99000, amount: 89000, adjustableQuantity: { minimum: 1, maximum: 3 } },
              {
                name: 'Vettlingar',
                quantity: 2,
                unitPrice: 20000,
                amountWithoutDiscount: 40000,
                amount: 40000,
                adjustableQuantity: { minimum: 0, maximum: 6 },
              },
            ],
          }),
        );
        const { page, close } = await newPage(lang, js);
        await page.goto(`${base}/pay/${ref}`);
        const input = page.getByLabel(w.quantity);
        expect(await input.getAttribute('type')).toBe('number');
        expect(await input.getAttribute('min')).toBe('1');
        expect(await input.getAttribute('max')).toBe('3');
        expect(await fitsTheWidth(page)).toBe(true);
        await page.screenshot({ path: join(SHOTS, `quantities-390-${tag}.png`), fullPage: true });
        const spaced = (t: string): string => t.replace(/\s/g, ' ');
        const payText = async (): Promise<string> => spaced((await page.getByRole('button', { name: w.pay }).textContent()) ?? '');

        if (js) {
          // The total follows as the quantity is typed, without a post: no "Update total" to press.
          expect(await page.getByRole('button', { name: w.update }).isVisible()).toBe(false);
          const shownAt = page.url();
          await input.fill('4');
          expect(await text(page, '[data-total]')).toBe('–');
          expect(await payText()).toMatch(/–$/);
          // Said beside the input as it is typed, as the server says it.
          expect(await text(page, '#qty-0-error')).toBe(w.outOfRange);
          expect(await page.getByLabel(w.quantity).getAttribute('aria-invalid')).toBe('true');
          expect(await text(page, 'tr[data-line="0"] [data-amount]')).toBe('–');
          await page.getByLabel(w.quantity).fill('2');
          expect(await page.locator('#qty-0-error').count()).toBe(0);
          expect(await page.getByLabel(w.quantity).getAttribute('aria-invalid')).toBeNull();
          await page.getByLabel(w.mittens).fill('5');
          expect(page.url()).toBe(shownAt);
          expect(await page.locator('[data-total-updated]').count()).toBe(0);
        } else {
          // Out of range: the browser lets Update total through (it checks nothing), the server says why beside the input.
          await input.fill('4');
          await submit(page, w.update);
          expect(await text(page, '#qty-0-error')).toBe(w.outOfRange);
          expect(await page.getByLabel(w.quantity).getAttribute('aria-invalid')).toBe('true');

          await page.getByLabel(w.quantity).fill('2');
          await page.getByLabel(w.mittens).fill('5');
          await submit(page, w.update);
          expect(spaced(await text(page, '[data-total-updated]'))).toBe(spaced(w.updated));
        }
        // 2 × 890 + 5 × 200 = 2,780, on the lines, the total and the button.
        expect(spaced(w.payAfter)).toContain(spaced(await text(page, '[data-total]')));
        expect(await payText()).toBe(spaced(w.payAfter));
        expect(spaced(await text(page, 'tr[data-line="1"] [data-amount]'))).toBe(spaced(lang === 'en' ? 'ISK\u00a01,000' : '1.000\u00a0kr.'));
        expect(await text(page, 'tr[data-line="0"] [data-quantity]')).toBe('2');
        expect(await page.getByLabel(w.quantity).inputValue()).toBe('2');
        expect(await fitsTheWidth(page)).toBe(true);
        await page.screenshot({ path: join(SHOTS, `quantities-updated-390-${tag}.png`), fullPage: true });

        await page.getByLabel(w.card.number).fill('4242424242424242');
        await page.getByLabel(w.card.expiry).fill('12/34');
        await page.getByLabel(w.card.cvc).fill('123');
        await submit(page, w.pay);
        expect(await text(page, 'h1')).toBe(w.paid);
        expect(await page.locator('main').textContent()).toContain(w.paidText);
        const { rows } = await ctx.tdb.db.pool.query<{ amount: string }>('SELECT amount FROM payments WHERE payment_link_reference = $1', [ref]);
        expect(rows.map((r) => Number(r.amount))).toEqual([278000]);
        await page.screenshot({ path: join(SHOTS, `quantities-paid-390-${tag}.png`), fullPage: true });
        await close();
      });
    }
  }

  it('with JavaScript and a 25 % code: the discount, the total and the button follow the quantity, and that total is charged', async () => {
    const made = await call(ctx, 'POST', '/api/v1/promotioncodes', { code: 'QUARTER', percentOff: 25 });
    expect(made.status).toBe(200);
    const ref = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        amount: 100000,
        allowPromotionCodes: true,
        items: [
          { name: 'Lopapeysa', quantity: 1, unitPrice: 100000, amountWithoutDiscount: 100000, amount: 100000, adjustableQuantity: { minimum: 1, maximum: 5 } },
        ],
      }),
    );
    const { page, close } = await newPage('en', true);
    await page.goto(`${base}/pay/${ref}`);
    await page.getByLabel('Quantity of Lopapeysa').fill('3');
    await page.getByLabel(/promotion code/i).fill('QUARTER');
    // Applying the code posts its own form: the quantity the script wrote into it comes back.
    await submit(page, 'Apply');
    expect(await page.getByLabel('Quantity of Lopapeysa').inputValue()).toBe('3');
    expect(await text(page, '[data-new-total]')).toBe('ISK\u00a02,250');
    await page.getByLabel('Quantity of Lopapeysa').fill('2');
    // 2 × 1,000 = 2,000; 25 % off: 500 off, 1,500 to pay.
    expect(await text(page, '[data-total]')).toBe('ISK\u00a02,000');
    expect(await text(page, '[data-discount-amount]')).toBe('\u2212ISK\u00a0500');
    expect(await text(page, '[data-new-total]')).toBe('ISK\u00a01,500');
    expect(((await page.getByRole('button', { name: /^Pay/ }).textContent()) ?? '').trim()).toBe('Pay ISK\u00a01,500');
    await page.screenshot({ path: join(SHOTS, 'quantities-code-390-en-js.png'), fullPage: true });
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Expiry date').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await submit(page, /^Pay/);
    expect(await text(page, 'h1')).toBe('Payment successful');
    const { rows } = await ctx.tdb.db.pool.query<{ amount: string }>('SELECT amount FROM payments WHERE payment_link_reference = $1', [ref]);
    expect(rows.map((r) => Number(r.amount))).toEqual([150000]);
    await close();
  });

  it('without JavaScript, Pay with a changed quantity charges nothing and keeps what was typed but the card number and CVC', async () => {
    const ref = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        amount: 100000,
        items: [
          { name: 'Lopapeysa', quantity: 1, unitPrice: 100000, amountWithoutDiscount: 100000, amount: 100000, adjustableQuantity: { minimum: 1, maximum: 5 } },
        ],
        shopperInfos: [{ field: 'FullName', requirementType: 'Required' }],
      }),
    );
    const { page, close } = await newPage('en', false);
    await page.goto(`${base}/pay/${ref}`);
    await page.getByLabel('Quantity of Lopapeysa').fill('2');
    await page.getByLabel(/Full name/).fill('Anna Jónsdóttir');
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Expiry date').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await submit(page, /^Pay/);
    expect(await text(page, '[role="alert"]')).toContain('ISK\u00a02,000');
    expect(await page.getByLabel('Quantity of Lopapeysa').inputValue()).toBe('2');
    expect(await page.getByLabel(/Full name/).inputValue()).toBe('Anna Jónsdóttir');
    expect(await page.getByLabel('Expiry date').inputValue()).toBe('12/34');
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    expect(await page.getByLabel('CVC').inputValue()).toBe('');
    expect(((await page.getByRole('button', { name: /^Pay/ }).textContent()) ?? '').trim()).toBe('Pay ISK\u00a02,000');
    const { rows } = await ctx.tdb.db.pool.query('SELECT 1 FROM payments WHERE payment_link_reference = $1', [ref]);
    expect(rows).toEqual([]);
    await close();
  });

  it('logged no errors in the browser console', () => {
    expect(consoleErrors).toEqual([]);
  });
});
