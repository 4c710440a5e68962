import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { paidSession, testProcessor } from '../modifications/helpers.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// What a merchant reads in the portal, in English and Icelandic (§The portal): money in the page's
// language, the new link's language, a payment's whole story, what is said about webhooks when there
// are none and which webhook each delivery went to.

describe('the portal’s words, as a merchant reads them', () => {
  let ctx: TestContext;
  let processor: ModificationProcessor;
  let owner: PortalBrowser;
  let staff: PortalBrowser;
  let captured: string;
  let manual: string;

  async function inLanguage(browser: PortalBrowser, language: 'en' | 'is'): Promise<void> {
    await browser.get('/portal/account');
    const res = await browser.post('/portal/account/language', { language });
    expect(res.statusCode).toBe(303);
  }

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    processor = testProcessor(ctx);
    owner = (await portalUser(ctx, 'owner')).browser;
    staff = (await portalUser(ctx, 'staff')).browser;
    ctx.clock.set(new Date('2026-03-01T10:00:00Z'));
    captured = (await paidSession(ctx, { reference: 'order-captured' })).payfacReference;
    ctx.clock.set(new Date('2026-03-02T10:00:00Z'));
    manual = (await paidSession(ctx, { reference: 'order-manual', isManualCapture: true })).payfacReference;
    ctx.clock.set(new Date('2026-03-03T10:00:00Z'));
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('the overview says there is no webhook yet, with a link to add one for those who may', async () => {
    await inLanguage(owner, 'en');
    const en = textOf((await owner.get('/portal')).body);
    expect(en).toContain('There is no webhook yet');
    expect(en).not.toContain('Every webhook is delivering');
    expect(owner.html).toContain('href="/portal/webhooks/new"');
    await inLanguage(owner, 'is');
    const is = textOf((await owner.get('/portal')).body);
    expect(is).toContain('Enginn vefkrókur er skráður enn');
    expect(is).toContain('Skrá vefkrók');
    expect(is).not.toContain('Allir vefkrókar skila sér');
  });

  it('with no webhook, a refund’s banner does not promise a webhook; with one, it does', async () => {
    await inLanguage(owner, 'en');
    await owner.get(`/portal/payments/${captured}`);
    const refund = await owner.post(`/portal/payments/${captured}/refund`, { amount: '3', reference: 'refund-1', refundReason: '' });
    expect(refund.statusCode, refund.body.slice(0, 300)).toBe(303);
    const none = textOf((await owner.get(`/portal/payments/${captured}?done=refund`)).body);
    expect(none).toContain('Refund received');
    expect(none).not.toContain('its webhook follows');
    expect(none).toContain('No webhook is sent for it');
    await inLanguage(owner, 'is');
    const noneIs = textOf((await owner.get(`/portal/payments/${captured}?done=refund`)).body);
    expect(noneIs).toContain('Endurgreiðsla móttekin');
    expect(noneIs).not.toContain('vefkrókurinn fylgir');
    await processor.settled();

    // A webhook that takes only Authorization gets no Refund: still no promise.
    const onlyAuth = await call(
      ctx,
      'POST',
      '/api/v1/webhooks',
      { url: 'https://auth.example.com/hooks', eventTypes: ['Authorization'] },
      { apiKey: ctx.merchant.apiKey },
    );
    expect(onlyAuth.status, JSON.stringify(onlyAuth.body)).toBe(200);
    await inLanguage(owner, 'en');
    expect(textOf((await owner.get(`/portal/payments/${captured}?done=refund`)).body)).not.toContain('its webhook follows');

    const all = await call(
      ctx,
      'POST',
      '/api/v1/webhooks',
      { url: 'https://shop.example.com/hooks', description: 'Shop backend' },
      { apiKey: ctx.merchant.apiKey },
    );
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(textOf((await owner.get(`/portal/payments/${captured}?done=refund`)).body)).toContain(
      'Refund received: it completes in a moment, and its webhook follows.',
    );
    await inLanguage(owner, 'is');
    expect(textOf((await owner.get(`/portal/payments/${captured}?done=capture`)).body)).toContain('vefkrókurinn fylgir');
  });

  it('a payment’s timeline shows its capture at authorisation, partial captures and refunds with their amounts', async () => {
    await inLanguage(owner, 'en');
    const page = textOf((await owner.get(`/portal/payments/${captured}`)).body);
    expect(page).toMatch(/Authorised, €123\.45/);
    expect(page).toMatch(/Captured, €123\.45/);
    expect(page).toMatch(/Refund of €3\.00 completed/);

    await owner.get(`/portal/payments/${manual}`);
    expect(textOf(owner.html)).not.toMatch(/Captured, /);
    expect((await owner.post(`/portal/payments/${manual}/capture`, { amount: '100', reference: 'cap-1' })).statusCode).toBe(303);
    await processor.settled();
    const partly = textOf((await owner.get(`/portal/payments/${manual}`)).body);
    expect(partly).toMatch(/Capture of €100\.00 completed/);
    // The capture is the modification's, not a second one at authorisation.
    expect(partly).not.toMatch(/Captured, /);

    await inLanguage(owner, 'is');
    const is = textOf((await owner.get(`/portal/payments/${captured}`)).body);
    expect(is).toMatch(/Innheimt, 123,45\sEUR/);
  });

  it('the webhooks sent name the webhook each went to, linked for those who read webhooks', async () => {
    // A second capture on the manual payment: its Capture event goes to the two webhooks that take it.
    const second = await call(
      ctx,
      'POST',
      '/api/v1/webhooks',
      { url: 'https://second.example.com/hooks', eventTypes: ['Capture'] },
      { apiKey: ctx.merchant.apiKey },
    );
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    await inLanguage(owner, 'en');
    await owner.get(`/portal/payments/${manual}`);
    expect((await owner.post(`/portal/payments/${manual}/capture`, { amount: '1', reference: 'cap-2' })).statusCode).toBe(303);
    await processor.settled();
    const html = (await owner.get(`/portal/payments/${manual}`)).body;
    const table = /<table>[\s\S]*?<\/table>/.exec(html.slice(html.indexOf('id="webhooks-title"')))?.[0] ?? '';
    expect(textOf(table)).toContain('Webhook');
    expect(table).toMatch(/<a href="\/portal\/webhooks\/[^"/]+">Shop backend<\/a>/);
    // No description: the address's host.
    expect(table).toMatch(/<a href="\/portal\/webhooks\/[^"/]+">second\.example\.com<\/a>/);
    // Staff reads the name, without a link to the webhook.
    await inLanguage(staff, 'is');
    const staffTable = (await staff.get(`/portal/payments/${manual}`)).body;
    expect(textOf(staffTable)).toContain('Vefkrókur');
    expect(textOf(staffTable)).toContain('Shop backend');
    expect(staffTable).not.toContain('href="/portal/webhooks/');
  });

  it('a new link’s payment page starts in the language the portal is read in, and its total is in that language’s money', async () => {
    await inLanguage(owner, 'en');
    const en = (await owner.get('/portal/links/new')).body;
    expect(en).toMatch(/<option value="en" selected>/);
    expect(en).not.toMatch(/<option value="is" selected>/);
    expect(textOf(/<output[^>]*data-total[\s\S]*?<\/output>/.exec(en)?.[0] ?? '')).toBe('ISK 0');
    await inLanguage(owner, 'is');
    const is = (await owner.get('/portal/links/new')).body;
    expect(is).toMatch(/<option value="is" selected>/);
    expect(is).not.toMatch(/<option value="en" selected>/);
    const output = /<output[^>]*data-total[\s\S]*?<\/output>/.exec(is)?.[0] ?? '';
    expect(textOf(output)).toBe('0 kr.');
    // The samples the form's script writes amounts from: the server's own formatting, in Icelandic.
    const samples = JSON.parse(textOf(/data-money="([^"]*)"/.exec(output)?.[1] ?? '{}')) as Record<string, string[]>;
    expect(samples.ISK?.map((s) => s.replace(/\s/g, ' '))).toEqual(['1.234.567 kr.', '1.234.567,89 kr.']);
  });
});
