import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { TEST_DB } from '../helpers/db.js';
import { eventually, refusedPort, register, startReceiver, testWorker, type Receiver } from '../webhooks/helpers.js';
import { createLink, createSession, linkDetails, payByLink, sessionStatus } from './fixtures.js';

// The shopper's pages in a real Chromium (Debian's), with JavaScript turned off: the app listens on
// 127.0.0.1, the shop's return page is a local HTTP server, the merchant's webhook receiver a local
// HTTPS server fed by the real delivery worker. Runs on both database projects: one Chromium per
// file, about ten page flows, a few seconds each.

/** Screenshots the tests take, to look at (not compared): outside the repository. */
const SHOTS = join(tmpdir(), 'paylinks-screenshots');
const SIGNED = ['checkoutReference', 'payfacReference', 'merchantReference', 'amount', 'currency', 'reason', 'success'] as const;

/** interface §5.2, computed here independently of the service's own signer. */
function expectedSignature(hexKey: string, body: Record<string, unknown>): string {
  const key = Buffer.from(hexKey.length % 2 === 1 ? `${hexKey}0` : hexKey, 'hex');
  const payload = SIGNED.map((f) => (body[f] === null ? '' : String(body[f]))).join(':');
  return createHmac('sha256', key).update(payload, 'utf8').digest('base64');
}

interface Shop {
  url: string;
  visits: string[];
  close(): Promise<void>;
}

async function startShop(): Promise<Shop> {
  const visits: string[] = [];
  const server: Server = createServer((req, res) => {
    visits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Shop</title><h1>Thank you from the shop</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    visits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// playwright-core has no test matchers: these read the page once it has loaded (no script runs on
// these pages, so what is loaded is final).
async function h1(page: Page): Promise<string> {
  return ((await page.locator('h1').textContent()) ?? '').trim();
}

async function textOf(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? '').replace(/\u00a0/g, ' ').trim();
}

/** Clicks a submit button and waits for the page the form post answers with. */
async function submit(page: Page, name: string | RegExp): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name }).click()]);
}

describe('shopper pages in Chromium, without JavaScript', () => {
  let ctx: TestContext;
  let browser: Browser;
  let receiver: Receiver;
  let shop: Shop;
  let worker: DeliveryWorker;
  let hook: { apiKey: string; hmacKey: string };
  let base: string;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    const port = await refusedPort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_BASE_URL: base });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    [receiver, shop, browser] = await Promise.all([startReceiver(), startShop(), launchChromium()]);
    hook = await register(ctx, `${receiver.url}/hooks`);
    worker = testWorker(ctx);
    await worker.start();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop(5_000);
    await receiver?.close();
    await shop?.close();
    await ctx?.close();
  });

  async function newPage(): Promise<{ page: Page; context: BrowserContext }> {
    const context = await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${m.location().url}: ${m.text()}`);
    });
    return { page, context };
  }

  async function fillCard(page: Page, card: string, labels = { number: 'Card number', expiry: 'Expiry date', cvc: 'CVC' }): Promise<void> {
    await page.getByLabel(labels.number).fill(card);
    await page.getByLabel(labels.expiry).fill('12/34');
    await page.getByLabel(labels.cvc).fill('123');
  }

  it('pays a link with 4242: receipt, back to the shop, salesCount and submission, a signed Authorization webhook', async () => {
    const create = await call(ctx, 'POST', '/api/v1/paymentlinks/create', payByLink(ctx, { culture: 'en', returnUrl: `${shop.url}/thanks?order=7` }));
    const ref = create.body.paymentLinkReference as string;
    expect(create.body.url).toBe(`${base}/pay/${ref}`);
    const { page, context } = await newPage();
    await page.goto(create.body.url as string);
    expect(await h1(page)).toBe('Lopapeysa');
    expect(await page.locator('main').getAttribute('data-status')).toBe('Active');
    // Styles come from the app under the CSP (no violation reported).
    expect(await page.evaluate("getComputedStyle(document.querySelector('button[type=submit]')).borderRadius")).toBe('8px');
    // Every visible input has a visible label.
    const unlabelled = await page.evaluate(
      "[...document.querySelectorAll('input:not([type=hidden]), textarea')].filter((el) => !el.labels.length || !el.labels[0].checkVisibility()).map((el) => el.id)",
    );
    expect(unlabelled).toEqual([]);

    await fillCard(page, '4242 4242 4242 4242');
    await submit(page, /^Pay/);
    expect(await h1(page)).toBe('Payment successful');
    const payfac = (await page.locator('[data-payfac-reference]').textContent())?.trim() as string;
    expect(payfac).toMatch(/^\d{16}$/);
    expect(await page.locator('meta[http-equiv=refresh]').getAttribute('content')).toBe(`5; url=${shop.url}/thanks?order=7`);
    await Promise.all([page.waitForURL(`${shop.url}/thanks?order=7`), page.getByRole('link', { name: 'Continue' }).click()]);
    expect(await h1(page)).toBe('Thank you from the shop');
    await context.close();

    const link = await linkDetails(ctx, ref);
    expect(link).toMatchObject({ salesCount: 1, visitCount: 1 });
    expect(link.submissions).toEqual([{ answers: [], completed: true, amount: 48900, currency: 'ISK', token: null, payfacReference: payfac }]);

    const delivered = await eventually(
      () =>
        receiver.received.find(
          (r) => r.path === '/hooks' && JSON.parse(r.body).payfacReference === payfac && JSON.parse(r.body).additionalData?.eventType === 'Authorization',
        ),
      'the Authorization webhook',
    );
    const body = JSON.parse(delivered.body) as Record<string, unknown>;
    expect(delivered.headers.authorization).toBe(hook.apiKey);
    expect(body).toMatchObject({
      checkoutReference: expect.stringMatching(/^cs_/),
      payfacReference: payfac,
      merchantReference: ref,
      amount: '48900',
      currency: 'ISK',
      reason: null,
      success: 'true',
    });
    expect(body.hmacSignature).toBe(expectedSignature(hook.hmacKey, body));
    expect(body.additionalData).toMatchObject({ cardNumber: '424242******4242', cardSummary: '4242', paymentMethod: 'visa', threeDAuthenticated: 'false' });
  });

  it('shows a refused card with its reason and lets the shopper try again', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const { page, context } = await newPage();
    await page.goto(`${base}/pay/${ref}`);
    await fillCard(page, '4000000000000002');
    await submit(page, /^Pay/);
    expect(await textOf(page, '[role=alert]')).toContain('The payment was refused: the card was declined.');
    expect(await page.content()).not.toContain('4000000000000002');
    await fillCard(page, '4000000000000069');
    await submit(page, /^Pay/);
    expect(await textOf(page, '[role=alert]')).toContain('the card has expired');
    await fillCard(page, '4242424242424242');
    await submit(page, /^Pay/);
    expect(await h1(page)).toBe('Payment successful');
    await context.close();
    expect((await linkDetails(ctx, ref)).salesCount).toBe(1);
  });

  it('takes the 3-D Secure card through its confirm step; 3063 fails with 3D Not Authenticated', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const { page, context } = await newPage();
    await page.goto(`${base}/pay/${ref}`);
    await fillCard(page, '4000000000003063');
    await submit(page, /^Pay/);
    expect(await textOf(page, '[role=alert]')).toContain('the bank did not confirm it was you');
    await fillCard(page, '4000 0000 0000 3220');
    await submit(page, /^Pay/);
    expect(await h1(page)).toBe('Confirm with your bank');
    expect(await page.getByText('ending in 3220').isVisible()).toBe(true);
    await submit(page, 'Confirm');
    expect(await h1(page)).toBe('Payment successful');
    await context.close();
    const { rows } = await ctx.tdb.db.pool.query(
      "SELECT message FROM webhook_events WHERE event_type = 'Authorization' AND message->>'merchantReference' = $1 AND message->>'success' = 'true'",
      [ref],
    );
    expect(rows[0]?.message.additionalData.threeDAuthenticated).toBe('true');
  });

  it('charges a saved 3-D Secure card with the shopper present: RedirectShopper, the step in the browser, back to the shop, then the webhook', async () => {
    // The card is saved in a checkout (through its own 3-D Secure step), then charged as CardOnFile on the web.
    const session = await call(ctx, 'POST', '/api/v1/hostedcheckout', {
      amount: 0,
      currency: 'EUR',
      reference: 'save-3ds',
      returnUrl: `${shop.url}/saved`,
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      culture: 'en',
      recurringProcessingModel: 'CardOnFile',
    });
    const { page, context } = await newPage();
    await page.goto(session.body.url as string);
    await fillCard(page, '4000 0000 0000 3220');
    await submit(page, /^Save|^Pay/);
    await submit(page, 'Confirm');
    const { rows } = await ctx.tdb.db.pool.query<{ token: string }>(
      "SELECT message->'additionalData'->>'token' AS token FROM webhook_events WHERE event_type = 'Tokenization' AND message->>'checkoutReference' = $1",
      [session.body.checkoutReference],
    );
    const token = rows[0]?.token ?? '';
    expect(token).toMatch(/^tok_/);

    const charge = await call(ctx, 'POST', '/api/v1/payment', {
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 4900,
      currency: 'EUR',
      reference: 'order-88',
      returnUrl: `${shop.url}/thanks?order=88`,
      channel: 'Web',
      tokenDetails: { tokenValue: token, recurringProcessingModel: 'CardOnFile' },
    });
    expect(charge.body).toMatchObject({ resultCode: 'RedirectShopper', redirect: { url: expect.stringMatching(new RegExp(`^${base}/charge/cs_`)) } });
    const redirectUrl = (charge.body.redirect as { url: string }).url;
    const checkoutReference = redirectUrl.split('/').pop() ?? '';
    await page.goto(`${redirectUrl}?lang=en`);
    await mkdir(SHOTS, { recursive: true });
    expect(await h1(page)).toBe('Confirm with your bank');
    expect(await page.getByText('ending in 3220').isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'charge-3ds.png'), fullPage: true });
    await submit(page, 'Confirm');
    expect(await h1(page)).toBe('Payment successful');
    await page.screenshot({ path: join(SHOTS, 'charge-3ds-done.png'), fullPage: true });
    await Promise.all([
      page.waitForURL(`${shop.url}/thanks?order=88&checkoutReference=${checkoutReference}`),
      page.getByRole('link', { name: 'Continue' }).click(),
    ]);
    expect(await h1(page)).toBe('Thank you from the shop');
    await context.close();

    const delivered = await eventually(
      () =>
        receiver.received.find(
          (r) =>
            r.path === '/hooks' &&
            JSON.parse(r.body).payfacReference === charge.body.payfacReference &&
            JSON.parse(r.body).additionalData?.eventType === 'Authorization',
        ),
      'the Authorization webhook of the charge',
    );
    const body = JSON.parse(delivered.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      checkoutReference,
      merchantReference: 'order-88',
      amount: '4900',
      success: 'true',
      additionalData: { threeDAuthenticated: 'true' },
    });
    expect(body.hmacSignature).toBe(expectedSignature(hook.hmacKey, body));
  });

  it('asks for a required Ssn: the browser will not send the form without it, nor will the server take it', async () => {
    const ref = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        shopperInfo: [
          { field: 'Ssn', requirementType: 'Required' },
          { field: 'City', requirementType: 'Prefilled', prefilledValue: 'Reykjavík' },
          { field: 'Comments', requirementType: 'Hidden' },
        ],
      }),
    );
    const { page, context } = await newPage();
    await page.goto(`${base}/pay/${ref}`);
    expect(await page.getByLabel('City').inputValue()).toBe('Reykjavík');
    expect(await page.getByLabel('City').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByLabel('Comments').count()).toBe(0);
    const ssn = page.getByLabel('National ID number');
    expect(await ssn.getAttribute('required')).not.toBeNull();
    // The browser's own check holds the form back: clicking Pay leaves the page where it is.
    await fillCard(page, '4242424242424242');
    await page.getByRole('button', { name: /^Pay/ }).click();
    expect(await page.evaluate("document.querySelector('#shopper-Ssn').validity.valueMissing")).toBe(true);
    expect(await h1(page)).toBe('Lopapeysa');
    // Without it (an old browser, a hand-made post), the server refuses the form.
    await page.evaluate("document.querySelector('#shopper-Ssn').removeAttribute('required')");
    await fillCard(page, '4242424242424242');
    await submit(page, /^Pay/);
    expect(await page.getByText('Please fill in this field.').isVisible()).toBe(true);
    await page.getByLabel('National ID number').fill('010130-2989');
    await fillCard(page, '4242424242424242');
    await submit(page, /^Pay/);
    expect(await h1(page)).toBe('Payment successful');
    await context.close();
    const subs = (await linkDetails(ctx, ref)).submissions as { answers: unknown }[];
    expect(subs[0]?.answers).toEqual([
      { field: 'Ssn', value: '010130-2989' },
      { field: 'City', value: 'Reykjavík' },
    ]);
  });

  it('speaks Icelandic for culture is, and English after the language switch', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'is' }));
    const { page, context } = await newPage();
    await page.goto(`${base}/pay/${ref}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('is');
    expect(await page.getByLabel('Kortanúmer').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: /^Greiða 489\skr\.$/ }).isVisible()).toBe(true);
    await Promise.all([page.waitForURL(/lang=en/), page.getByRole('link', { name: 'English' }).click()]);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.getByLabel('Card number').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: /^Pay ISK\s489$/ }).isVisible()).toBe(true);
    await fillCard(page, '4242424242424242');
    await submit(page, /^Pay/);
    expect(await h1(page)).toBe('Payment successful');
    await context.close();
  });

  it('a used link says why and shows no form', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en', exactSalesCount: 1 }));
    const { page, context } = await newPage();
    await page.goto(`${base}/pay/${ref}`);
    await fillCard(page, '4242424242424242');
    await submit(page, /^Pay/);
    expect(await h1(page)).toBe('Payment successful');
    await page.goto(`${base}/pay/${ref}`);
    expect(await textOf(page, '[role=status]')).toContain('used the maximum number of times');
    expect(await page.locator('form').count()).toBe(0);
    expect(await page.getByLabel('Card number').count()).toBe(0);
    await context.close();
    expect(await linkDetails(ctx, ref)).toMatchObject({ status: 'Used', salesCount: 1 });
  });

  it('pays a checkout session: status Completed, and the receipt returns the shopper by itself with checkoutReference added', async () => {
    const checkoutReference = await createSession(ctx, {
      returnUrl: `${shop.url}/done?order=17&lang=is`,
      abandonUrl: `${shop.url}/cart`,
      items: [
        { name: 'Cake', amount: 13345, quantity: 1.5 },
        { name: 'Discount', amount: -1000 },
      ],
    });
    const { page, context } = await newPage();
    await page.goto(`${base}/checkout/${checkoutReference}`);
    expect(await page.getByRole('cell', { name: '-€10.00' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Cancel and return to the shop' }).getAttribute('href')).toBe(`${shop.url}/cart`);
    await fillCard(page, '4242424242424242');
    await submit(page, 'Pay €123.45');
    expect(await h1(page)).toBe('Payment successful');
    // The meta refresh takes the shopper back without a click (5 s).
    await page.waitForURL(`${shop.url}/done?order=17&lang=is&checkoutReference=${checkoutReference}`, { timeout: 15_000 });
    await context.close();
    const status = await sessionStatus(ctx, checkoutReference);
    expect(status).toMatchObject({ status: 'Completed', payfacReference: expect.stringMatching(/^\d{16}$/) });
    expect(shop.visits).toContain(`/done?order=17&lang=is&checkoutReference=${checkoutReference}`);
  });

  it('lines up the expiry and security-code boxes at 390 px in both languages (screenshots in the test output folder)', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'is' }));
    await mkdir(SHOTS, { recursive: true });
    for (const lang of ['is', 'en'] as const) {
      const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 }, locale: lang === 'is' ? 'is-IS' : 'en-GB' });
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(`${m.location().url}: ${m.text()}`);
      });
      await page.goto(`${base}/pay/${ref}?lang=${lang}`);
      const expiry = await page.locator('#expiryDate').boundingBox();
      const cvc = await page.locator('#cvc').boundingBox();
      expect(expiry && cvc, lang).toBeTruthy();
      expect(Math.abs((expiry?.y ?? 0) - (cvc?.y ?? 1)), `${lang}: tops of the two boxes`).toBeLessThan(1);
      expect(Math.abs((expiry?.height ?? 0) - (cvc?.height ?? 1)), `${lang}: heights`).toBeLessThan(1);
      await page
        .locator('fieldset')
        .last()
        .screenshot({ path: `${SHOTS}/card-fields-390-${lang}.png` });
      await context.close();
    }
  });

  it('with JavaScript, catches a mistyped card number before sending, keeping everything typed', async () => {
    const ref = await createLink(ctx, payByLink(ctx, { culture: 'en' }));
    const context = await browser.newContext({ javaScriptEnabled: true, viewport: { width: 390, height: 844 }, locale: 'en-GB' });
    const page = await context.newPage();
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${m.location().url}: ${m.text()}`);
    });
    await page.goto(`${base}/pay/${ref}`);
    await page.getByLabel('Card number').fill('4242 4242 4242 4241');
    await page.getByLabel('Expiry date').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.locator('#cardNumber-error').waitFor();
    expect(await textOf(page, '#cardNumber-error')).toBe('Enter a valid card number.');
    expect(await page.locator('#cardNumber').getAttribute('aria-invalid')).toBe('true');
    expect(posts).toEqual([]);
    expect(await page.getByLabel('Expiry date').inputValue()).toBe('12/34');
    expect(await page.getByLabel('CVC').inputValue()).toBe('123');
    await page.screenshot({ path: `${SHOTS}/card-number-caught-390-en.png`, fullPage: true });
    // Corrected, it goes through.
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await submit(page, /^Pay/);
    expect(await h1(page)).toBe('Payment successful');
    await context.close();
  });

  it('reports no console errors (CSP violations included) on any page', () => {
    // HTTP error statuses (the 400 of a refused form) are logged too; they are answers, not faults. A
    // missing resource of the page itself (the icon, a script) would be a fault.
    expect(consoleErrors.filter((e) => !e.includes('Failed to load resource') || /favicon|\/assets\//.test(e))).toEqual([]);
  });

  // UPDATE_SCREENSHOT=1 npx vitest run --project postgres test/checkout/browser.test.ts → docs/payment-page.png
  it.runIf(process.env.UPDATE_SCREENSHOT === '1' && TEST_DB === 'postgres')('writes the README screenshot', async () => {
    const shopOwner = await createMerchant(ctx.tdb.db, 'Reykjavík Wool Co.');
    const created = await call(
      ctx,
      'POST',
      '/api/v1/paymentlinks/create',
      payByLink(ctx, {
        terminalIdentifier: shopOwner.terminalIdentifier,
        culture: 'en',
        description: 'Icelandic wool sweater',
        currency: 'EUR',
        amount: 11900,
        items: [
          { name: 'Lopapeysa, size M', quantity: 1, unitPrice: 12900, amountWithoutDiscount: 12900, amount: 10900 },
          { name: 'Wool hat', quantity: 2, unitPrice: 500, amountWithoutDiscount: 1000, amount: 1000 },
        ],
        shopperInfo: [
          { field: 'FullName', requirementType: 'Required' },
          { field: 'EmailAddress', requirementType: 'Optional' },
        ],
      }),
      { apiKey: shopOwner.apiKey },
    );
    const ref = created.body.paymentLinkReference as string;
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 640, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${base}/pay/${ref}`);
    await mkdir('docs', { recursive: true });
    await page.screenshot({ path: 'docs/payment-page.png', fullPage: true });
    await context.close();
  });
});
