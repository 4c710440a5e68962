import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, linkDetails, payByLink, Shopper } from '../checkout/fixtures.js';
import { createMerchant, type CreatedMerchant } from '../../src/accounts/service.js';
import { fieldId } from '../../src/portal/views/components.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// Payment links in the portal (§The portal): the list and its filters, create (every kind, every
// error beside its field), a link's page with its QR code, edit and disable, and who may do what.

async function count(ctx: TestContext, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

const linksOf = (ctx: TestContext, merchantId: string) => count(ctx, 'SELECT count(*)::int AS n FROM payment_links WHERE merchant_id = $1', [merchantId]);

/** The error sentence shown beside a field, tied to its input; undefined when there is none. */
function errorBeside(html: string, field: string): string | undefined {
  const id = `${fieldId(field)}-error`;
  const m = new RegExp(`<p class="error" id="${id}">([\\s\\S]*?)</p>`).exec(html);
  if (!m) return undefined;
  expect(html, `an input names ${id}`).toMatch(new RegExp(`aria-describedby="[^"]*${id}`));
  return textOf(m[1] ?? '');
}

/** A shopper pays on the link's page: a success goes on to the receipt (303), a refusal shows the page again (200). */
async function pay(ctx: TestContext, reference: string, card = '4242424242424242', extra: Record<string, string> = {}): Promise<void> {
  const res = await new Shopper(ctx).payWith(`/pay/${reference}`, card, extra);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(card === '4000000000000002' ? 200 : 303);
}

/** A PayByLink form as a merchant fills it: one item row, prices in major units. */
function payForm(ctx: TestContext, extra: Record<string, string> = {}): Record<string, string> {
  return {
    type: 'PayByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    currency: 'ISK',
    culture: 'is',
    description: 'Lopapeysa',
    'items[0].name': 'Lopapeysa',
    'items[0].quantity': '2',
    'items[0].unitPrice': '4890',
    'items[0].discount': '500',
    'items[1].name': '',
    'items[1].quantity': '1',
    'items[1].unitPrice': '',
    'items[1].discount': '',
    ...extra,
  };
}

describe('payment links in the portal', () => {
  let ctx: TestContext;
  let owner: PortalBrowser;
  let staff: PortalBrowser;
  let developer: PortalBrowser;
  let other: CreatedMerchant;
  let otherLink: string;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = (await portalUser(ctx, 'owner')).browser;
    staff = (await portalUser(ctx, 'staff')).browser;
    developer = (await portalUser(ctx, 'developer')).browser;
    other = await createMerchant(ctx.tdb.db, 'Other merchant');
    const r = await call(
      ctx,
      'POST',
      '/api/v1/paymentlinks/create',
      { ...payByLink(ctx), terminalIdentifier: other.terminalIdentifier, description: 'Not yours' },
      { apiKey: other.apiKey },
    );
    expect(r.status).toBe(200);
    otherLink = r.body.paymentLinkReference as string;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('creates a payment link from item rows in major units, as the API would from the same request', async () => {
    const before = await linksOf(ctx, ctx.merchant.merchantId);
    await staff.get('/portal/links/new?type=PayByLink');
    const res = await staff.post(
      '/portal/links',
      payForm(ctx, {
        'items[1].name': 'Húfa',
        'items[1].unitPrice': '3600',
        'shopperInfo[1].requirementType': 'Required',
        'shopperInfo[8].requirementType': 'Prefilled',
        'shopperInfo[8].prefilledValue': 'Pöntun 7',
      }),
    );
    expect(res.statusCode, textOf(res.body).slice(0, 500)).toBe(303);
    const location = String(res.headers.location);
    expect(location).toMatch(/^\/portal\/links\/pl_[A-Za-z0-9_-]+\?created=1$/);
    const reference = location.slice('/portal/links/'.length).split('?')[0] as string;
    expect(await linksOf(ctx, ctx.merchant.merchantId)).toBe(before + 1);

    const link = await linkDetails(ctx, reference);
    expect(link).toMatchObject({
      type: 'PayByLink',
      amount: 1288000,
      currency: 'ISK',
      description: 'Lopapeysa',
      items: [
        { name: 'Lopapeysa', quantity: 2, unitPrice: 489000, amountWithoutDiscount: 978000, amount: 928000 },
        { name: 'Húfa', quantity: 1, unitPrice: 360000, amountWithoutDiscount: 360000, amount: 360000 },
      ],
      shopperInfos: [
        { field: 'FullName', requirementType: 'Required', prefilledValue: null },
        { field: 'Comments', requirementType: 'Prefilled', prefilledValue: 'Pöntun 7' },
      ],
    });

    const page = await staff.follow(res);
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Lopapeysa');
    expect(page.body).toContain(`value="${link.url as string}"`);
    expect(page.body).toContain(`src="/portal/links/${reference}/qr.svg"`);
    expect(page.body).toContain(`href="/portal/links/${reference}/qr.svg?download=1"`);

    const { rows } = await ctx.tdb.db.pool.query<{ action: string; target: string; actor_email: string; details: Record<string, unknown> }>(
      "SELECT action, target, actor_email, details FROM audit_log WHERE merchant_id = $1 AND action = 'link.create' AND target = $2",
      [ctx.merchant.merchantId, reference],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.details).toEqual({ type: 'PayByLink', amount: 1288000, currency: 'ISK' });
  });

  it('gives the QR code of the link’s address as SVG, and as a download', async () => {
    const reference = await createLink(ctx, payByLink(ctx));
    const qr = await staff.get(`/portal/links/${reference}/qr.svg`);
    expect(qr.statusCode).toBe(200);
    expect(qr.headers['content-type']).toContain('image/svg+xml');
    expect(qr.body).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect(qr.headers['content-disposition']).toBeUndefined();
    const download = await staff.get(`/portal/links/${reference}/qr.svg?download=1`);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="paylink-${reference}.svg"`);
    expect(download.body).toBe(qr.body);
  });

  it('creates a card-saving link with its recurring model, and asks for the model when it is missing', async () => {
    await owner.get('/portal/links/new?type=TokenizeByLink');
    const form = { type: 'TokenizeByLink', terminalIdentifier: ctx.merchant.terminalIdentifier, currency: 'EUR', culture: 'en', description: 'Coffee club' };
    const before = await linksOf(ctx, ctx.merchant.merchantId);
    const missing = await owner.post('/portal/links', form);
    expect(missing.statusCode).toBe(400);
    expect(errorBeside(missing.body, 'recurringProcessingModel')).toBe('is required for TokenizeByLink');
    expect(await linksOf(ctx, ctx.merchant.merchantId)).toBe(before);

    const res = await owner.post('/portal/links', {
      ...form,
      recurringProcessingModel: 'Subscription',
      exactSalesCount: '3',
      returnUrl: 'https://shop.example/club',
      expiresAt: '2099-01-02T03:04',
    });
    expect(res.statusCode, textOf(res.body).slice(0, 500)).toBe(303);
    const reference = String(res.headers.location).split('/').pop()?.split('?')[0] as string;
    expect(await linkDetails(ctx, reference)).toMatchObject({
      type: 'TokenizeByLink',
      amount: 0,
      currency: 'EUR',
      items: [],
      recurringProcessingModel: 'Subscription',
      maxSalesCount: 3,
      returnUrl: 'https://shop.example/club',
      validUntil: '2099-01-02T03:04:00.000Z',
      culture: 'en',
    });
  });

  it('puts every error the API gives beside the input it concerns, with status 400, and writes nothing', async () => {
    await staff.get('/portal/links/new?type=PayByLink');
    const before = await linksOf(ctx, ctx.merchant.merchantId);
    const res = await staff.post(
      '/portal/links',
      payForm(ctx, {
        description: 'x'.repeat(501),
        'items[0].quantity': '1.5',
        'items[1].name': 'Te',
        'items[1].unitPrice': '3,00',
        'items[1].discount': '4',
        'items[2].name': 'Kaffi',
        'items[2].quantity': '1',
        'items[2].unitPrice': '4.999',
        returnUrl: 'ftp://shop.example',
        expiresAt: '2001-01-01T00:00',
        exactSalesCount: '0',
        'shopperInfo[1].requirementType': 'Prefilled',
        'shopperInfo[2].requirementType': 'Optional',
        'shopperInfo[2].prefilledValue': 'Laugavegur 1',
      }),
    );
    expect(res.statusCode).toBe(400);
    expect(await linksOf(ctx, ctx.merchant.merchantId)).toBe(before);
    const html = res.body;
    // The API's own sentences (§Errors) for the fields the API takes as typed.
    expect(errorBeside(html, 'description')).toBe('must be at most 500 characters');
    expect(errorBeside(html, 'items[0].quantity')).toBe('must be an integer');
    expect(errorBeside(html, 'returnUrl')).toBe('must be an absolute http or https URL of at most 2048 characters');
    expect(errorBeside(html, 'expiresAt')).toBe('must be in the future');
    expect(errorBeside(html, 'exactSalesCount')).toBe('must be from 1 to 1000000000');
    expect(errorBeside(html, 'shopperInfo[1].prefilledValue')).toBe('is required when requirementType is Prefilled');
    expect(errorBeside(html, 'shopperInfo[2].prefilledValue')).toBe('is allowed only when requirementType is Prefilled');
    // A computed value's error lands beside the input it was computed from: 3.00 less 4 is below 0.
    expect(errorBeside(html, 'items[1].discount')).toBe('Line total: must be from 0 to 100000000000');
    // An amount the portal cannot read is said once, in the portal's words.
    expect(errorBeside(html, 'items[2].unitPrice')).toBe('Write an amount, e.g. 4900 or 49.90 (at most two decimals).');
    // The rows come back as typed, numbered as the API numbered them.
    expect(html).toContain('value="4.999"');
    expect(html).toContain('value="Laugavegur 1"');
    expect(textOf(html)).toContain('Some fields need attention');
  });

  it('the errors are the API’s own: the same request to the API names the same fields', async () => {
    const body = { ...payByLink(ctx), description: 'x'.repeat(501), returnUrl: 'ftp://shop.example' };
    const api = await call(ctx, 'POST', '/api/v1/paymentlinks/create', body);
    expect(api.status).toBe(400);
    const apiErrors = api.body.errors as { field: string; message: string }[];
    await staff.get('/portal/links/new?type=PayByLink');
    const res = await staff.post('/portal/links', payForm(ctx, { description: 'x'.repeat(501), returnUrl: 'ftp://shop.example' }));
    expect(res.statusCode).toBe(400);
    for (const e of apiErrors) expect(errorBeside(res.body, e.field), e.field).toBe(e.message);
  });

  it('links totals and currencies: an ISK total must be whole krónur, beside the price or discount in part krónur; no items, beside the items', async () => {
    const page = await staff.get('/portal/links/new?type=PayByLink');
    expect(textOf(page.body)).toContain('Prices in whole krónur (ISK), e.g. 4900.');
    const before = await linksOf(ctx, ctx.merchant.merchantId);
    const whole = 'ISK is charged in whole krónur: write the price without decimals, e.g. 4900.';
    const odd = await staff.post('/portal/links', payForm(ctx, { 'items[0].discount': '0,50' }));
    expect(odd.statusCode).toBe(400);
    expect(errorBeside(odd.body, 'items[0].discount')).toBe(whole);
    expect(errorBeside(odd.body, 'amount')).toBeUndefined();
    // The issue's own case: a price of 49.90, twice.
    const cents = await staff.post('/portal/links', payForm(ctx, { 'items[0].unitPrice': '49.90', 'items[0].quantity': '2', 'items[0].discount': '' }));
    expect(cents.statusCode).toBe(400);
    expect(errorBeside(cents.body, 'items[0].unitPrice')).toBe(whole);
    expect(errorBeside(cents.body, 'amount')).toBeUndefined();
    const none = await staff.post('/portal/links', payForm(ctx, { 'items[0].name': '', 'items[0].unitPrice': '', 'items[0].discount': '' }));
    expect(none.statusCode).toBe(400);
    expect(errorBeside(none.body, 'items')).toBe('must have at least one item for PayByLink');
    // The total is not blamed for the missing items.
    expect(errorBeside(none.body, 'amount')).toBeUndefined();
    const foreign = await staff.post('/portal/links', payForm(ctx, { terminalIdentifier: other.terminalIdentifier }));
    expect(foreign.statusCode).toBe(400);
    expect(errorBeside(foreign.body, 'terminalIdentifier')).toBe("is not a terminal of the API key's merchant");
    expect(await linksOf(ctx, ctx.merchant.merchantId)).toBe(before);
  });

  it('shows the errors in Icelandic to an Icelandic reader', async () => {
    const { browser } = await portalUser(ctx, 'staff');
    await browser.get('/portal/account');
    await browser.post('/portal/account/language', { language: 'is' });
    await browser.get('/portal/links/new?type=PayByLink');
    const res = await browser.post('/portal/links', payForm(ctx, { 'items[0].discount': '0,50', returnUrl: 'nope' }));
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<html lang="is">');
    expect(errorBeside(res.body, 'items[0].discount')).toBe('ISK er greitt í heilum krónum: skrifaðu verðið án aukastafa, t.d. 4900.');
    expect(errorBeside(res.body, 'returnUrl')).toBe('Verður að vera heil http- eða https-slóð.');
    const unreadable = await browser.post('/portal/links', payForm(ctx, { 'items[1].name': 'Te', 'items[1].unitPrice': 'tvö', 'items[1].discount': '1' }));
    expect(errorBeside(unreadable.body, 'items[1].unitPrice')).toBe('Skrifaðu upphæð, t.d. 4900 eða 49,90 (í mesta lagi tveir aukastafir).');
    // Neither the line nor the total is blamed for the price it could not be computed from.
    expect(errorBeside(unreadable.body, 'items[1].discount')).toBeUndefined();
    expect(errorBeside(unreadable.body, 'amount')).toBeUndefined();
  });

  it('without scripts, "Add a row" comes back with one more row and saves nothing', async () => {
    await staff.get('/portal/links/new?type=PayByLink');
    expect(staff.html.match(/<fieldset class="item-row"/g)).toHaveLength(3);
    const before = await linksOf(ctx, ctx.merchant.merchantId);
    const res = await staff.post('/portal/links', {
      ...payForm(ctx),
      'items[2].name': '',
      'items[2].quantity': '1',
      'items[2].unitPrice': '',
      'items[2].discount': '',
      _action: 'addRow',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body.match(/<fieldset class="item-row"/g)).toHaveLength(4);
    expect(res.body).toContain('name="items[3].name"');
    expect(res.body).toContain('value="Lopapeysa"');
    expect(await linksOf(ctx, ctx.merchant.merchantId)).toBe(before);
  });

  it('a role that may not change links gets 403 and changes nothing, but reads them', async () => {
    const reference = await createLink(ctx, payByLink(ctx));
    expect((await developer.get('/portal/links/new')).statusCode).toBe(403);
    await developer.get('/portal/links');
    const before = await linksOf(ctx, ctx.merchant.merchantId);
    expect((await developer.post('/portal/links', payForm(ctx))).statusCode).toBe(403);
    expect((await developer.get(`/portal/links/${reference}/edit`)).statusCode).toBe(403);
    expect((await developer.post(`/portal/links/${reference}/edit`, { description: 'changed' })).statusCode).toBe(403);
    expect((await developer.get(`/portal/links/${reference}/disable`)).statusCode).toBe(403);
    expect((await developer.post(`/portal/links/${reference}/disable`, {})).statusCode).toBe(403);
    expect(await linksOf(ctx, ctx.merchant.merchantId)).toBe(before);
    expect(await linkDetails(ctx, reference)).toMatchObject({ description: 'Lopapeysa', status: 'Active' });
    const page = await developer.get(`/portal/links/${reference}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(`/portal/links/${reference}/edit`);
    expect(page.body).not.toContain(`/portal/links/${reference}/disable`);
  });

  it('another merchant’s link is not found on any page, and nothing of it changes', async () => {
    await owner.get('/portal/links');
    for (const path of ['', '/qr.svg', '/qr.svg?download=1', '/edit', '/disable']) {
      const res = await owner.get(`/portal/links/${otherLink}${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(res.body).not.toContain('Not yours');
    }
    await owner.get('/portal/links');
    expect((await owner.post(`/portal/links/${otherLink}/edit`, { description: 'Mine now', money: '1', currency: 'EUR' })).statusCode).toBe(404);
    expect((await owner.post(`/portal/links/${otherLink}/disable`, {})).statusCode).toBe(404);
    const r = await call(ctx, 'GET', `/api/v1/paymentlinks/${otherLink}`, undefined, { apiKey: other.apiKey });
    expect(r.body.paymentLink).toMatchObject({ description: 'Not yours', status: 'Active' });
    // Its own merchant's log has the API's entry of its making; the portal wrote none.
    expect(await count(ctx, 'SELECT count(*)::int AS n FROM audit_log WHERE target = $1 AND actor_key_id IS NULL', [otherLink])).toBe(0);
  });

  it('a link’s page shows its facts, items, submissions with their answers, and its payments', async () => {
    const reference = await createLink(ctx, {
      ...payByLink(ctx),
      shopperInfo: [{ field: 'FullName', requirementType: 'Required' }],
      exactSalesCount: 4,
    });
    await pay(ctx, reference, '4242424242424242', { 'shopper-FullName': 'Jón Jónsson' });
    await pay(ctx, reference, '4000000000000002', { 'shopper-FullName': 'Gunna Gunnars' });
    const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string; success: boolean }>(
      'SELECT payfac_reference, success FROM payments WHERE payment_link_reference = $1 ORDER BY created_at',
      [reference],
    );
    expect(rows).toHaveLength(2);
    const page = await staff.get(`/portal/links/${reference}`);
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('1 of 4');
    expect(text).toContain('Full name: Jón Jónsson');
    expect(text).toContain('Full name: Gunna Gunnars');
    expect(text).toContain('Captured');
    expect(text).toContain('Refused');
    expect(text).toContain('visa •••• 4242');
    for (const p of rows) expect(page.body).toContain(`href="/portal/payments/${p.payfac_reference}"`);
    const visits = (await linkDetails(ctx, reference)).visitCount as number;
    expect(text).toMatch(new RegExp(`Visits ${visits}\\b`));
  });

  it('a card-saving link’s page shows the card its submission saved', async () => {
    const reference = await createLink(ctx, {
      type: 'TokenizeByLink',
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 0,
      currency: 'ISK',
      items: [],
      recurringProcessingModel: 'CardOnFile',
    });
    await pay(ctx, reference);
    const token = ((await linkDetails(ctx, reference)).submissions as { token: string | null }[])[0]?.token;
    expect(token).toMatch(/^tok_/);
    const page = await staff.get(`/portal/links/${reference}`);
    expect(textOf(page.body)).toContain(`Saved card: ${token as string}`);
    expect(textOf(page.body)).toContain('Completed');
  });

  it('edits a link under the API’s rules, and records what changed', async () => {
    const reference = await createLink(ctx, payByLink(ctx, { exactSalesCount: 2 }));
    const form = await staff.get(`/portal/links/${reference}/edit`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('value="494"');
    expect(form.body).toContain('value="5"');
    const res = await staff.post(`/portal/links/${reference}/edit`, {
      money: '1',
      currency: 'ISK',
      culture: 'en',
      description: 'Lopapeysa, blá',
      'items[0].name': 'Lopapeysa',
      'items[0].quantity': '1',
      'items[0].unitPrice': '500',
      'items[0].discount': '10',
      validUntil: '2099-05-06T07:08',
      maxSalesCount: '',
      returnUrl: '',
      themeKey: '',
      'shopperInfos[0].requirementType': 'Optional',
    });
    expect(res.statusCode, textOf(res.body).slice(0, 500)).toBe(303);
    expect(res.headers.location).toBe(`/portal/links/${reference}?updated=1`);
    expect(await linkDetails(ctx, reference)).toMatchObject({
      description: 'Lopapeysa, blá',
      culture: 'en',
      amount: 49000,
      items: [{ name: 'Lopapeysa', quantity: 1, unitPrice: 50000, amountWithoutDiscount: 50000, amount: 49000 }],
      validUntil: '2099-05-06T07:08:00.000Z',
      maxSalesCount: null,
      returnUrl: null,
      shopperInfos: [{ field: 'Ssn', requirementType: 'Optional', prefilledValue: null }],
    });
    const { rows } = await ctx.tdb.db.pool.query<{ details: { changed: string[] } }>(
      "SELECT details FROM audit_log WHERE action = 'link.update' AND target = $1",
      [reference],
    );
    expect(rows[0]?.details.changed.sort()).toEqual(['amount', 'culture', 'description', 'items', 'maxSalesCount', 'returnUrl', 'shopperInfos', 'validUntil']);
  });

  it('after a sale the price is shown disabled with the reason, and a changed price is refused beside it', async () => {
    const reference = await createLink(ctx, payByLink(ctx, { description: 'Sold once' }));
    await pay(ctx, reference);
    const form = await staff.get(`/portal/links/${reference}/edit`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toMatch(/<input[^>]*name="items\[0\]\.unitPrice"[^>]*disabled/);
    expect(form.body).not.toContain('name="money"');
    expect(textOf(form.body)).toContain('Sales made: 1.');
    // A form shown before the sale still carries the price: the API refuses the change.
    const stale = await staff.post(`/portal/links/${reference}/edit`, {
      money: '1',
      currency: 'ISK',
      culture: 'is',
      description: 'Sold once',
      'items[0].name': 'Lopapeysa',
      'items[0].quantity': '1',
      'items[0].unitPrice': '400',
      'items[0].discount': '',
    });
    expect(stale.statusCode).toBe(400);
    expect(errorBeside(stale.body, 'items')).toBe('can change only while salesCount is 0 (it is 1)');
    expect(errorBeside(stale.body, 'amount')).toBe('can change only while salesCount is 0 (it is 1)');
    expect((await linkDetails(ctx, reference)).amount).toBe(48900);
    // The other fields still change.
    const ok = await staff.post(`/portal/links/${reference}/edit`, { description: 'Sold once, renamed', culture: 'is', maxSalesCount: '1' });
    expect(ok.statusCode).toBe(303);
    expect(await linkDetails(ctx, reference)).toMatchObject({ description: 'Sold once, renamed', status: 'Used', amount: 48900 });
  });

  it('refuses an edit the API refuses, beside the field, and changes nothing', async () => {
    const reference = await createLink(ctx, payByLink(ctx, { exactSalesCount: 3 }));
    await pay(ctx, reference);
    await staff.get(`/portal/links/${reference}/edit`);
    const res = await staff.post(`/portal/links/${reference}/edit`, {
      description: 'Changed',
      culture: 'is',
      maxSalesCount: '0',
      validUntil: '2001-01-01T00:00',
      returnUrl: 'mailto:x@example.com',
    });
    expect(res.statusCode).toBe(400);
    expect(errorBeside(res.body, 'maxSalesCount')).toBe('must be from 1 to 1000000000');
    expect(errorBeside(res.body, 'validUntil')).toBe('must be in the future');
    expect(errorBeside(res.body, 'returnUrl')).toBe('must be an absolute http or https URL of at most 2048 characters');
    expect(await linkDetails(ctx, reference)).toMatchObject({ description: 'Lopapeysa', maxSalesCount: 3 });
    const cap = await staff.post(`/portal/links/${reference}/edit`, { description: 'Lopapeysa', culture: 'is', maxSalesCount: '5' });
    expect(cap.statusCode).toBe(303);
  });

  it('an expired link keeps its expiry when the form sends it back unchanged', async () => {
    const expiresAt = new Date(ctx.clock.now().getTime() + 60_000 + 1_234).toISOString();
    const reference = await createLink(ctx, payByLink(ctx, { expiresAt }));
    ctx.clock.advance(120_000);
    expect((await linkDetails(ctx, reference)).status).toBe('Expired');
    const form = await staff.get(`/portal/links/${reference}/edit`);
    const shown = /name="validUntil"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*name="validUntil"/.exec(form.body);
    const value = shown?.[1] ?? shown?.[2] ?? '';
    expect(value).toBe(expiresAt.slice(0, 19));
    const res = await staff.post(`/portal/links/${reference}/edit`, { description: 'Still expired', culture: 'is', validUntil: value });
    expect(res.statusCode, textOf(res.body).slice(0, 400)).toBe(303);
    expect(await linkDetails(ctx, reference)).toMatchObject({ description: 'Still expired', validUntil: expiresAt, status: 'Expired' });
  });

  it('shows what a merchant typed, however hostile, as text on every page', async () => {
    const hostile = `x"'><script>alert(1)</script><img src=x onerror=alert(2)>`;
    const reference = await createLink(ctx, {
      ...payByLink(ctx),
      description: hostile,
      returnUrl: 'https://shop.example/back?a="><script>alert(3)</script>',
      items: [{ name: hostile, quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
      shopperInfo: [{ field: 'Comments', requirementType: 'Prefilled', prefilledValue: hostile }],
    });
    for (const path of [
      '/portal/links',
      `/portal/links?q=${encodeURIComponent('<script>')}`,
      `/portal/links/${reference}`,
      `/portal/links/${reference}/edit`,
      `/portal/links/${reference}/disable`,
    ]) {
      const res = await staff.get(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.body, path).not.toMatch(/<script>alert|<img src=x|"><script/);
      expect(textOf(res.body), path).toContain('<script>alert(1)</script>');
    }
  });

  it('disables a link after a confirmation page, and a disabled link cannot be edited', async () => {
    const reference = await createLink(ctx, payByLink(ctx));
    const confirm = await staff.get(`/portal/links/${reference}/disable`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`action="/portal/links/${reference}/disable"`);
    expect((await linkDetails(ctx, reference)).status).toBe('Active');
    const res = await staff.post(`/portal/links/${reference}/disable`, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/portal/links/${reference}?disabled=1`);
    expect((await linkDetails(ctx, reference)).status).toBe('Disabled');
    expect(await count(ctx, "SELECT count(*)::int AS n FROM audit_log WHERE action = 'link.disable' AND target = $1", [reference])).toBe(1);

    const page = await staff.follow(res);
    expect(textOf(page.body)).toContain('The link is disabled');
    expect(page.body).not.toContain(`/portal/links/${reference}/edit"`);
    const edit = await staff.get(`/portal/links/${reference}/edit`);
    expect(edit.statusCode).toBe(200);
    expect(textOf(edit.body)).toContain('This link is disabled, which is final');
    expect(edit.body).not.toContain('name="description"');
    await staff.get(`/portal/links/${reference}`);
    const refused = await staff.post(`/portal/links/${reference}/edit`, { description: 'Back again', culture: 'is' });
    expect(refused.statusCode).toBe(409);
    expect((await linkDetails(ctx, reference)).description).toBe('Lopapeysa');
  });
});

describe('the list of links', () => {
  let ctx: TestContext;
  let staff: PortalBrowser;
  const refs: Record<string, string> = {};

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    staff = (await portalUser(ctx, 'staff')).browser;
    // One link of every status (§Link status), a millisecond apart (the test clock stands still otherwise).
    const made = async (body: Record<string, unknown>): Promise<string> => {
      ctx.clock.advance(1);
      return createLink(ctx, body);
    };
    refs.active = await made(payByLink(ctx, { description: 'Lopapeysa, GRÁ' }));
    refs.expired = await made(payByLink(ctx, { description: 'Útrunninn hlekkur', expiresAt: new Date(ctx.clock.now().getTime() + 60_000).toISOString() }));
    refs.used = await made(payByLink(ctx, { description: 'Einu sinni', exactSalesCount: 1 }));
    refs.disabled = await made(payByLink(ctx, { description: 'Hætt' }));
    refs.completed = await made({
      type: 'TokenizeByLink',
      terminalIdentifier: ctx.merchant.terminalIdentifier,
      amount: 0,
      currency: 'ISK',
      items: [],
      recurringProcessingModel: 'CardOnFile',
      description: 'Kort',
    });
    expect((await new Shopper(ctx).payWith(`/pay/${refs.used}`, '4242424242424242')).statusCode).toBe(303);
    expect((await new Shopper(ctx).payWith(`/pay/${refs.completed}`, '4242424242424242')).statusCode).toBe(303);
    expect((await call(ctx, 'POST', '/api/v1/paymentlinks/disable', { paymentLinkReference: refs.disabled })).status).toBe(200);
    ctx.clock.advance(120_000);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('lists every link newest first with its status and the total', async () => {
    const res = await staff.get('/portal/links');
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    expect(text).toContain('5 links in all');
    const order = Object.values(refs).map((r) => res.body.indexOf(`/portal/links/${r}"`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => b - a)).toEqual(order);
    for (const word of ['Active', 'Expired', 'Used up', 'Disabled', 'Completed']) expect(text).toContain(word);
  });

  it('the status filter shows exactly the links the API gives that status', async () => {
    const statuses = ['Active', 'Expired', 'Used', 'Disabled', 'Completed'];
    for (const status of statuses) {
      const res = await staff.get(`/portal/links?status=${status}`);
      expect(res.statusCode).toBe(200);
      for (const reference of Object.values(refs)) {
        const api = (await linkDetails(ctx, reference)).status;
        expect(res.body.includes(`/portal/links/${reference}"`), `${reference} (${String(api)}) under ${status}`).toBe(api === status);
      }
    }
  });

  it('searches the description without regard to case, and the reference exactly', async () => {
    const byWord = await staff.get('/portal/links?q=gr%C3%A1');
    expect(byWord.body).toContain(`/portal/links/${refs.active}"`);
    expect(byWord.body).not.toContain(`/portal/links/${refs.used}"`);
    const byRef = await staff.get(`/portal/links?q=${refs.used}`);
    expect(byRef.body).toContain(`/portal/links/${refs.used}"`);
    expect(byRef.body).not.toContain(`/portal/links/${refs.active}"`);
    // LIKE's own characters are matched as themselves.
    const percent = await staff.get('/portal/links?q=%25');
    expect(textOf(percent.body)).toContain('No links match');
    const both = await staff.get('/portal/links?q=lopapeysa&status=Expired');
    expect(textOf(both.body)).toContain('No links match');
  });

  it('pages a filtered list by newer and older, and the whole list by number', async () => {
    const made: string[] = [];
    for (let i = 0; i < 23; i++) {
      made.push(await createLink(ctx, payByLink(ctx, { description: `Síða ${i}` })));
      ctx.clock.advance(1);
    }
    const newestFirst = [...made].reverse();
    const first = await staff.get('/portal/links?q=s%C3%AD%C3%B0a');
    for (const r of newestFirst.slice(0, 20)) expect(first.body).toContain(`/portal/links/${r}"`);
    expect(first.body).not.toContain(`/portal/links/${newestFirst[20]}"`);
    const older = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    expect(older).toMatch(/before=/);
    const second = await staff.get(older as string);
    for (const r of newestFirst.slice(20)) expect(second.body).toContain(`/portal/links/${r}"`);
    expect(second.body).not.toContain(`/portal/links/${newestFirst[19]}"`);
    expect(second.body).not.toMatch(/rel="next"/);
    const newer = /href="([^"]+)" rel="prev"/.exec(second.body)?.[1]?.replace(/&amp;/g, '&');
    expect(newer).toMatch(/after=/);
    const back = await staff.get(newer as string);
    for (const r of newestFirst.slice(0, 20)) expect(back.body).toContain(`/portal/links/${r}"`);

    const page1 = await staff.get('/portal/links?page=1');
    expect(textOf(page1.body)).toContain('21–28 of 28');
    expect(page1.body).toContain(`/portal/links/${refs.active}"`);
  });
});
