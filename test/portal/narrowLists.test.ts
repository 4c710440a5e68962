import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { createLink, payByLink } from '../checkout/fixtures.js';
import { paidSession } from '../modifications/helpers.js';
import { refusedPort } from '../webhooks/helpers.js';
import { PASSWORD, portalUser } from './helpers.js';

// The portal's lists and its navigation on a phone (375 px) in Chromium, in English and Icelandic:
// nothing reaches past the screen's right edge. A list's rows are stacked as cards, each value under
// its column's label (src/portal/views/table.tsx's Td, the stylesheet's `table.stack`), so the link
// that opens a payment or a link is on the screen, not at the end of a table scrolled sideways; the
// navigation wraps onto more lines instead of running off the screen as a strip. At 1280 px the lists
// are tables as before. With PAYLINKS_TEST_SCREENSHOTS=1 a screenshot of each page at both widths is
// written to paylinks-portal-screenshots in the temporary folder (narrow-*.png), to look at.

const SHOTS = process.env.PAYLINKS_TEST_SCREENSHOTS === '1' ? join(tmpdir(), 'paylinks-portal-screenshots') : null;
const NARROW = 375;

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
    for (const item of Array.from(document.querySelectorAll('nav.sidenav a'))) within(item, 'menu item');
    for (const item of Array.from(document.querySelectorAll('header.topbar a, header.topbar button, header.topbar select')))
      if (drawn(item)) within(item, 'header item');
    return out;
  });
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
  let browser: Browser;
  let base: string;
  let email = '';
  let payfacReference = '';
  let linkReference = '';

  beforeAll(async () => {
    const port = await refusedPort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_BASE_URL: base, LOG_LEVEL: 'warn' });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    email = (await portalUser(ctx, 'owner', { email: 'owner@narrow.example' })).email;
    await paidSession(ctx, { reference: 'order-2026-000123-webshop', amount: 1490000, currency: 'ISK' });
    payfacReference = (await paidSession(ctx, { reference: 'order-18' })).payfacReference;
    await createLink(ctx, payByLink(ctx, { description: 'Lopapeysa, handprjónuð úr íslenskri ull, stærð M' }));
    linkReference = await createLink(ctx, payByLink(ctx));
    if (SHOTS) await mkdir(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
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
          if (SHOTS) await page.screenshot({ path: join(SHOTS, `narrow-${path.split('/')[2] ?? 'overview'}-${NARROW}-${lang}.png`), fullPage: true });
        }
        await context.close();
      },
    );

    it(`at 1280 px the lists are tables with their header row, their cells unlabelled (${lang})`, { timeout: 60_000 }, async () => {
      const { page, context } = await signedIn(1280, lang);
      for (const path of ['/portal/payments', '/portal/links', '/portal']) {
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
        expect(await axeViolations(page), path).toEqual([]);
        if (SHOTS) await page.screenshot({ path: join(SHOTS, `narrow-${path.split('/')[2] ?? 'overview'}-1280-${lang}.png`), fullPage: true });
      }
      await context.close();
    });
  }
});
