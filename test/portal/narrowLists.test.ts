import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/audit/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { createPromotionCode } from '../../src/promotionCodes/service.js';
import { runSandboxSettlement, setFee } from '../../src/settlements/service.js';
import { asOperator, call, createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { createLink, createSession, payByLink } from '../checkout/fixtures.js';
import { capture, paidSession, testProcessor } from '../modifications/helpers.js';
import { refusedPort } from '../webhooks/helpers.js';
import { PASSWORD, portalUser, type PortalBrowser } from './helpers.js';

// The portal's lists and its navigation on a phone (375 px) in Chromium, in English and Icelandic:
// nothing reaches past the screen's right edge. A list's rows are stacked as cards, each value under
// its column's label (src/portal/views/table.tsx's Td, the stylesheet's `table.stack`), so the link
// that opens a payment or a link is on the screen, not at the end of a table scrolled sideways; the
// navigation wraps onto more lines instead of running off the screen as a strip. At 1280 px the lists
// are tables as before. The portal's other lists drawn by DataTable (webhooks and their deliveries,
// the audit log, users, promotion codes, checkout sessions, settlements, authorisations, API keys,
// themes) are stacked the same way. With PAYLINKS_TEST_SCREENSHOTS=1 a screenshot of each page at
// both widths is written to paylinks-portal-screenshots in the temporary folder (narrow-*.png), to
// look at.

const SHOTS = process.env.PAYLINKS_TEST_SCREENSHOTS === '1' ? join(tmpdir(), 'paylinks-portal-screenshots') : null;
const NARROW = 375;

/** Where the screenshot of the page at `path` goes (narrow-payments-375-en.png, narrow-webhooks-wh_…-deliveries-375-en.png). */
const shotPath = (folder: string, path: string, width: number, lang: string): string =>
  join(folder, `narrow-${path.split('/').slice(2).join('-') || 'overview'}-${width}-${lang}.png`);

/** What reaches past the screen on the page as it is, as lines naming it (none: nothing does). */
function outside(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const out: string[] = [];
    const name = (el: Element): string =>
      `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).replace(/ /g, '.')}` : ''} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
    /** Drawn: has a box, and is not inside a box clipped to a pixel (a heading for screen readers only). */
    const drawn = (el: Element): boolean => {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return false;
      for (let a: Element | null = el; a; a = a.parentElement) {
        const b = a.getBoundingClientRect();
        if (getComputedStyle(a).overflow === 'hidden' && b.width <= 1 && b.height <= 1) return false;
      }
      return true;
    };
    const within = (el: Element, what: string): void => {
      const r = el.getBoundingClientRect();
      if (r.left < 0 || r.right > width + 0.5) out.push(`${what} ${name(el)}: ${Math.round(r.left)}..${Math.round(r.right)}`);
    };
    if (document.documentElement.scrollWidth > width) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide`);
    for (const cell of Array.from(document.querySelectorAll('main td, main th'))) if (drawn(cell)) within(cell, 'cell');
    // A stacked row's value fits its cell (an identifier is not cut off at the card's edge).
    for (const cell of Array.from(document.querySelectorAll('main table.stack td'))) {
      if (drawn(cell) && cell.scrollWidth > cell.clientWidth) out.push(`cell ${name(cell)}: ${cell.scrollWidth} px of content in ${cell.clientWidth}`);
    }
    // A stacked value's label fits the room beside the value (a long one wraps, not over the value):
    // the label, written as the cell's ::before is, in a box of the ::before's width.
    for (const cell of Array.from(document.querySelectorAll('main table.stack td[data-label]'))) {
      if (!drawn(cell)) continue;
      const before = getComputedStyle(cell, '::before');
      const probe = document.createElement('span');
      probe.textContent = cell.getAttribute('data-label');
      for (const p of ['font', 'letter-spacing', 'white-space', 'overflow-wrap', 'width']) probe.style.setProperty(p, before.getPropertyValue(p));
      probe.style.setProperty('display', 'block');
      probe.style.setProperty('position', 'absolute');
      probe.style.setProperty('visibility', 'hidden');
      document.body.append(probe);
      if (probe.scrollWidth > probe.clientWidth)
        out.push(`the label "${probe.textContent}" of ${name(cell)}: ${probe.scrollWidth} px wide in ${probe.clientWidth}`);
      probe.remove();
    }
    for (const item of Array.from(document.querySelectorAll('nav.sidenav a'))) within(item, 'menu item');
    for (const item of Array.from(document.querySelectorAll('header.topbar a, header.topbar button, header.topbar select')))
      if (drawn(item)) within(item, 'header item');
    return out;
  });
}

/** A list of the portal's, and the address of a link its rows have that must be on the screen (null: none to look for). */
interface List {
  path: string;
  opens: string | null;
}

/**
 * Rows for the portal's other lists, made through the API, the portal's forms and the services as their
 * own tests make them, with long values where a merchant's may be long: a webhook (its deliveries follow
 * from the payments), another user and an invitation, a theme, promotion codes, an open checkout
 * session, a settlement, an authorisation waiting for capture, audit entries.
 */
async function seedOtherLists(ctx: TestContext, processor: ModificationProcessor, owner: PortalBrowser): Promise<List[]> {
  const hook = await call(ctx, 'POST', '/api/v1/webhooks', {
    url: 'https://hooks.verslun-og-vefur.example.is/paylinks/webhooks/receive',
    description: 'Pantanir vefverslunarinnar til bókhaldskerfisins',
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(200);
  const webhookId = String(hook.body.webhookId);

  await owner.get('/portal/users');
  expect((await owner.post('/portal/users', { email: 'sigridur.jonsdottir@verslun-og-vefur.example.is', role: 'staff' })).statusCode).toBe(200);
  await portalUser(ctx, 'developer', { email: 'forritari@narrow.example' });
  await owner.get('/portal/themes/new');
  const theme = await owner.postMultipart('/portal/themes', { name: 'Vetrarútsala', accentColor: '#1f5eff', backgroundColor: '#ffffff', buttonShape: 'pill' });
  expect(theme.statusCode).toBe(303);

  const deps = { ...asOperator(ctx), sealer: ctx.sealer };
  await createPromotionCode(deps, ctx.merchant.merchantId, { code: 'SUMAR', amountOff: 150000, currency: 'ISK', maxRedemptions: 100 }, undefined);
  const expiresAt = new Date(ctx.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const code = await createPromotionCode(deps, ctx.merchant.merchantId, { code: 'VETRARUTSALA2026', percentOff: 15, expiresAt }, undefined);

  await setFee(asOperator(ctx), ctx.merchant.merchantId, { currency: 'ISK', percent: '2', fixedAmount: 1000 });
  const settled = await paidSession(ctx, { reference: 'order-2026-000120-webshop', currency: 'ISK', amount: 500000, isManualCapture: true });
  expect((await capture(ctx, settled, 500000, { currency: 'ISK' })).status).toBe(200);
  await processor.settled();
  const [batch] = await runSandboxSettlement(asOperator(ctx), ctx.merchant.merchantId);
  const settlementId = batch?.settlementId ?? '';
  const waiting = await paidSession(ctx, { reference: 'order-2026-000121-webshop', currency: 'ISK', amount: 250000, isManualCapture: true });
  const open = await createSession(ctx, { reference: 'order-2026-000122-sott-i-verslun', currency: 'ISK', amount: 990000 });

  await recordAudit(
    ctx.tdb.db.pool,
    { clock: ctx.clock, actor: { kind: 'user', userId: 'usr_x', email: 'gudmundur.sigurdsson@verslun-og-vefur.example.is' } },
    { merchantId: ctx.merchant.merchantId, action: 'payment.refund', target: settled.payfacReference, details: { amount: 48900, currency: 'ISK' } },
  );

  return [
    { path: '/portal/webhooks', opens: `/portal/webhooks/${webhookId}` },
    { path: `/portal/webhooks/${webhookId}`, opens: null },
    { path: `/portal/webhooks/${webhookId}/deliveries`, opens: null },
    { path: '/portal/audit', opens: null },
    { path: '/portal/users', opens: null },
    { path: '/portal/promotion-codes', opens: `/portal/promotion-codes/${code.promotionCodeId}` },
    { path: '/portal/sessions', opens: `/portal/sessions/${open}` },
    { path: '/portal/settlements', opens: `/portal/settlements/${settlementId}` },
    { path: `/portal/settlements/${settlementId}`, opens: `/portal/payments/${settled.payfacReference}` },
    { path: '/portal/payments/authorisations', opens: `/portal/payments/${waiting.payfacReference}` },
    { path: '/portal/developers', opens: null },
    { path: '/portal/themes', opens: null },
  ];
}

/** Serious and critical accessibility violations on the page as it is, as "rule: target" lines. */
async function axeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${v.help}`));
}

describe('the portal’s lists and navigation at 375 px', () => {
  let ctx: TestContext;
  let processor: ModificationProcessor | undefined;
  let browser: Browser;
  let base: string;
  let email = '';
  let payfacReference = '';
  let linkReference = '';
  /** The other lists drawn by DataTable, each with a link of its rows to find on the screen. */
  let otherLists: List[] = [];

  beforeAll(async () => {
    const port = await refusedPort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_BASE_URL: base, LOG_LEVEL: 'warn' });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    const owner = await portalUser(ctx, 'owner', { email: 'owner@narrow.example' });
    email = owner.email;
    processor = testProcessor(ctx);
    otherLists = await seedOtherLists(ctx, processor, owner.browser);
    // The payments below are the newest (the overview shows the newest five).
    ctx.clock.advance(60_000);
    await paidSession(ctx, { reference: 'order-2026-000123-webshop', amount: 1490000, currency: 'ISK' });
    payfacReference = (await paidSession(ctx, { reference: 'order-18' })).payfacReference;
    await createLink(ctx, payByLink(ctx, { description: 'Lopapeysa, handprjónuð úr íslenskri ull, stærð M' }));
    linkReference = await createLink(ctx, payByLink(ctx));
    // A link's page: its items (a discount column, long names) are stacked as the lists are.
    const items = await createLink(
      ctx,
      payByLink(ctx, {
        amount: 129000,
        items: [
          { name: 'Lopapeysa handprjónuð úr íslenskri ull', quantity: 1, unitPrice: 99000, amountWithoutDiscount: 99000, amount: 89000 },
          { name: 'Vettlingar', quantity: 2, unitPrice: 20000, amountWithoutDiscount: 40000, amount: 40000 },
        ],
      }),
    );
    otherLists.push({ path: `/portal/links/${items}`, opens: null });
    if (SHOTS) await mkdir(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await processor?.stop();
    await browser?.close();
    await ctx?.close();
  });

  /** The owner signed in, in a window `width` wide, in `lang`. */
  async function signedIn(width: number, lang: 'en' | 'is'): Promise<{ page: Page; context: BrowserContext }> {
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: /^(Sign in|Skrá inn)$/ }).click()]);
    if ((await page.evaluate('document.documentElement.lang')) !== lang) {
      await Promise.all([page.waitForNavigation(), page.locator('form.lang button').click()]);
    }
    expect(await page.evaluate('document.documentElement.lang')).toBe(lang);
    return { page, context };
  }

  /** Where the link of this address is on the page: its left and right edges, and its width. */
  async function linkBox(page: Page, href: string): Promise<{ left: number; right: number; width: number }> {
    const box = await page.locator(`main a[href="${href}"]`).first().boundingBox();
    expect(box, href).not.toBeNull();
    return { left: box?.x ?? -1, right: (box?.x ?? 0) + (box?.width ?? 0), width: box?.width ?? 0 };
  }

  for (const lang of ['en', 'is'] as const) {
    it(
      `nothing reaches past the right edge of a 375 px screen, and the links that open a payment or a link are on it (${lang})`,
      { timeout: 60_000 },
      async () => {
        const { page, context } = await signedIn(NARROW, lang);
        for (const path of ['/portal/payments', '/portal/links', '/portal']) {
          const res = await page.goto(`${base}${path}`);
          expect(res?.status(), path).toBe(200);
          expect(await outside(page), `${path} at ${NARROW} px (${lang})`).toEqual([]);
          expect(await axeViolations(page), `${path} at ${NARROW} px (${lang})`).toEqual([]);
          if (path !== '/portal/links') {
            const ref = await linkBox(page, `/portal/payments/${payfacReference}`);
            expect(ref.width, path).toBeGreaterThan(0);
            expect(ref.left, path).toBeGreaterThanOrEqual(0);
            expect(ref.right, path).toBeLessThanOrEqual(NARROW);
          } else {
            const link = await linkBox(page, `/portal/links/${linkReference}`);
            expect(link.width).toBeGreaterThan(0);
            expect(link.left).toBeGreaterThanOrEqual(0);
            expect(link.right).toBeLessThanOrEqual(NARROW);
          }
          // Each value of a stacked row is shown under its column's label (the header row is for screen readers).
          const labels = await page.evaluate(() =>
            Array.from(document.querySelectorAll('main table.stack tbody tr:first-child td')).map((td) => [
              td.getAttribute('data-label'),
              getComputedStyle(td, '::before').content,
            ]),
          );
          expect(labels.length, path).toBeGreaterThan(3);
          for (const [label, shown] of labels) expect(shown).toBe(`"${label}"`);
          if (SHOTS) await page.screenshot({ path: shotPath(SHOTS, path, NARROW, lang), fullPage: true });
        }
        await context.close();
      },
    );

    it(`the portal’s other lists are stacked at 375 px as well, nothing past the right edge (${lang})`, { timeout: 120_000 }, async () => {
      const { page, context } = await signedIn(NARROW, lang);
      for (const { path, opens } of otherLists) {
        const res = await page.goto(`${base}${path}`);
        expect(res?.status(), path).toBe(200);
        expect(await outside(page), `${path} at ${NARROW} px (${lang})`).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(NARROW);
        // The stacked layout is the same in both languages: axe checks it once, in English (and the
        // portal's browser test runs axe on every page in both).
        if (lang === 'en') expect(await axeViolations(page), `${path} at ${NARROW} px (${lang})`).toEqual([]);
        if (opens !== null) {
          const link = await linkBox(page, opens);
          expect(link.width, `${opens} on ${path}`).toBeGreaterThan(0);
          expect(link.left, `${opens} on ${path}`).toBeGreaterThanOrEqual(0);
          expect(link.right, `${opens} on ${path}`).toBeLessThanOrEqual(NARROW);
        }
        // Each labelled value of a stacked row is shown under its column's label (a column whose label is for screen readers only has none).
        const labels = await page.evaluate(() =>
          Array.from(document.querySelectorAll('main table.stack tbody tr:first-child td[data-label]')).map((td) => [
            td.getAttribute('data-label'),
            getComputedStyle(td, '::before').content,
            getComputedStyle(td, '::before').fontFamily,
          ]),
        );
        const font = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
        expect(labels.length, path).toBeGreaterThanOrEqual(3);
        for (const [label, shown, family] of labels) {
          expect(shown, path).toBe(`"${label}"`);
          // A label is in the page's type, also beside an identifier's value.
          expect(family, `the label ${label} on ${path}`).toBe(font);
        }
        if (SHOTS) await page.screenshot({ path: shotPath(SHOTS, path, NARROW, lang), fullPage: true });
      }
      await context.close();
    });

    // The wide layout is the same in both languages, and test/portal/browser.test.ts checks every page
    // at 1280 px with axe: here, once, that the stacking stays on narrow screens.
    it.runIf(lang === 'en')(`at 1280 px the lists are tables with their header row, their cells unlabelled (${lang})`, { timeout: 120_000 }, async () => {
      const { page, context } = await signedIn(1280, lang);
      for (const path of ['/portal/payments', '/portal/links', '/portal', ...otherLists.map((l) => l.path)]) {
        await page.goto(`${base}${path}`);
        const look = await page.evaluate(() => {
          const table = document.querySelector('main table.stack');
          const td = table?.querySelector('tbody td');
          return {
            table: table ? getComputedStyle(table).display : null,
            head: table?.querySelector('thead')?.getBoundingClientRect().height ?? 0,
            cell: td ? getComputedStyle(td).display : null,
            before: td ? getComputedStyle(td, '::before').content : null,
          };
        });
        expect(look, path).toMatchObject({ table: 'table', cell: 'table-cell', before: 'none' });
        expect(look.head, path).toBeGreaterThan(10);
        expect(await outside(page), path).toEqual([]);
        if (SHOTS) await page.screenshot({ path: shotPath(SHOTS, path, 1280, lang), fullPage: true });
      }
      await context.close();
    });
  }
});
