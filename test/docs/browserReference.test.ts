import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { refusedPort } from '../webhooks/helpers.js';
import { PACKAGE_VERSION } from '../../src/version.js';

// The API reference (/docs) in a real Chromium: it draws every operation under the page's
// Content-Security-Policy with nothing refused (the browser logs each refused script or style in
// its console), and says the package's own version.

const SHOTS = process.env.PAYLINKS_SHOTS ?? '/tmp/shots-docs';

describe('the API reference in Chromium', () => {
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

  it('draws its operations with no error in the console, and the version of the package', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`refused ${e.violatedDirective} from ${e.sourceFile}`));
    });
    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    expect(await page.locator('.info .title').textContent()).toContain(PACKAGE_VERSION);
    // Opening an operation draws its parameters and responses.
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SHOTS, 'docs-1280.png') });
    expect(errors).toEqual([]);
    await context.close();
  });
});
