import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { runSandboxSettlement, setFee } from '../../src/settlements/service.js';
import { createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { capture, paidSession, refund, testProcessor } from '../modifications/helpers.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// Settlements in the portal (docs/portal.md, Settlements): the list, a batch with its lines, its CSV
// (the API's, to the byte), in both languages, for every role that reads payments, and never another
// merchant's.

describe('settlements in the portal', () => {
  let ctx: TestContext;
  let processor: ModificationProcessor;
  let staff: PortalBrowser;
  let settlementId: string;
  let payment: string;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    processor = testProcessor(ctx);
    staff = (await portalUser(ctx, 'staff')).browser;
    await setFee(asOperator(ctx), ctx.merchant.merchantId, { currency: 'ISK', percent: '2', fixedAmount: 1000 });
    ctx.clock.set(new Date('2026-03-01T10:00:00Z'));
    const p = await paidSession(ctx, { currency: 'ISK', amount: 500000, isManualCapture: true });
    payment = p.payfacReference;
    expect((await capture(ctx, p, 400000, { currency: 'ISK' })).status).toBe(200);
    await processor.settled();
    ctx.clock.set(new Date('2026-03-01T11:00:00Z'));
    expect((await refund(ctx, p, 100000, { currency: 'ISK' })).status).toBe(200);
    await processor.settled();
    const [batch] = await runSandboxSettlement(asOperator(ctx), ctx.merchant.merchantId);
    settlementId = batch?.settlementId ?? '';
  });
  afterAll(async () => {
    await processor.stop();
    await ctx?.close();
  });

  async function inLanguage(browser: PortalBrowser, language: 'en' | 'is'): Promise<void> {
    await browser.get('/portal/account');
    const res = await browser.post('/portal/account/language', { language });
    expect(res.statusCode).toBe(303);
  }

  it('lists the batches and shows one with its lines and payout, in English and Icelandic', async () => {
    const list = await staff.get('/portal/settlements');
    expect(list.statusCode).toBe(200);
    const text = textOf(list.body);
    expect(text).toContain('Settlements');
    expect(text).toContain('One settlement');
    // 4,000 kr. captured less 1,000 kr. refunded; fee 2 % of 4,000 + 10 kr. = 90 kr.; payout 2,910 kr.
    expect(text).toMatch(/ISK\s+2\s+ISK\s*3,000\s+ISK\s*90\s+ISK\s*2,910/);
    expect(list.body).toContain(`href="/portal/settlements/${settlementId}"`);

    const page = await staff.get(`/portal/settlements/${settlementId}`);
    expect(page.statusCode).toBe(200);
    const detail = textOf(page.body);
    expect(detail).toContain('Captures and refunds');
    expect(detail).toMatch(/Capture\s+\d{16}\s+\d{16}[\s\S]*ISK\s*4,000\s+ISK\s*90/);
    expect(detail).toMatch(/Refund\s+\d{16}\s+\d{16}[\s\S]*-ISK\s*1,000\s+ISK\s*0/);
    expect(page.body).toContain(`href="/portal/payments/${payment}"`);
    expect(page.body).toContain(`href="/portal/settlements/${settlementId}/export.csv"`);

    await inLanguage(staff, 'is');
    try {
      const is = textOf((await staff.get(`/portal/settlements/${settlementId}`)).body);
      expect(is).toContain('Færslur og endurgreiðslur');
      expect(is).toContain('Útborgun');
      expect(is).toMatch(/2\.910\s*kr\./);
      expect(textOf((await staff.get('/portal/settlements')).body)).toContain('Eitt uppgjör');
    } finally {
      await inLanguage(staff, 'en');
    }
  });

  it('downloads the CSV the API gives, totals included', async () => {
    const portal = await staff.get(`/portal/settlements/${settlementId}/export.csv`);
    expect(portal.statusCode).toBe(200);
    expect(portal.headers['content-type']).toMatch(/^text\/csv/);
    expect(portal.headers['content-disposition']).toBe(`attachment; filename="settlement-2026-03-01-${settlementId}.csv"`);
    const api = await ctx.app.inject({ method: 'GET', url: `/api/v1/settlements/${settlementId}/csv`, headers: { 'x-api-key': ctx.merchant.apiKey } });
    expect(portal.body).toBe(api.body);
    expect(portal.body.trim().split('\r\n').at(-1)).toMatch(/,Total,,,,300000,9000,291000$/);
  });

  it('shows every role that reads payments, and never another merchant’s batch', async () => {
    const developer = (await portalUser(ctx, 'developer')).browser;
    expect((await developer.get(`/portal/settlements/${settlementId}`)).statusCode).toBe(200);
    const other = await createMerchant(ctx.tdb.db, 'Other merchant');
    const outsider = (await portalUser(ctx, 'owner', { owner: { merchantId: other.merchantId } })).browser;
    expect((await outsider.get(`/portal/settlements/${settlementId}`)).statusCode).toBe(404);
    expect((await outsider.get(`/portal/settlements/${settlementId}/export.csv`)).statusCode).toBe(404);
    expect(textOf((await outsider.get('/portal/settlements')).body)).toContain('Nothing settled yet');
  });
});
