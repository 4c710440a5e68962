import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { Shopper, createLink, linkDetails, payByLink } from '../checkout/fixtures.js';
import { fieldId } from '../../src/portal/views/components.js';
import { answersLine } from '../../src/paymentLinks/shopper.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// The portal's link forms with a link's custom fields (docs/portal.md, Custom fields): three fixed
// rows that go through the link service as the API's customFields do, errors beside the row's inputs
// in the reader's language, the link's page listing them and the answers of its submissions, and the
// payment's page and the CSV export showing the shopper's answers.

function errorBeside(html: string, field: string): string | undefined {
  const id = `${fieldId(field)}-error`;
  const m = new RegExp(`<p class="error" id="${id.replace(/[[\]]/g, '\\$&')}">([\\s\\S]*?)</p>`).exec(html);
  if (!m) return undefined;
  return textOf(m[1] ?? '');
}

function payForm(ctx: TestContext, extra: Record<string, string> = {}): Record<string, string> {
  return {
    type: 'PayByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    currency: 'ISK',
    culture: 'en',
    description: 'Bolur',
    'items[0].name': 'Bolur',
    'items[0].quantity': '1',
    'items[0].unitPrice': '4890',
    'items[0].discount': '',
    ...extra,
  };
}

const SIZE_ROW = {
  'customFields[1].key': 'size',
  'customFields[1].type': 'Dropdown',
  'customFields[1].label': 'Stærð',
  'customFields[1].labelEn': 'Size',
  'customFields[1].required': 'yes',
  'customFields[1].options': 'S\r\nM\r\n\r\nL',
};
const PLATE_ROW = {
  'customFields[2].key': 'plate',
  'customFields[2].type': 'Text',
  'customFields[2].label': 'Bílnúmer',
  'customFields[2].maxLength': '8',
};

describe('portal: a link’s custom fields', () => {
  let ctx: TestContext;
  let staff: PortalBrowser;
  beforeAll(async () => {
    ctx = await createTestContext();
    staff = (await portalUser(ctx, 'staff')).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('creates a link with the filled rows (an empty row is no field), lists them on its page and fills them into its edit form', async () => {
    const form = await staff.get('/portal/links/new?type=PayByLink');
    expect(textOf(form.body)).toContain('Custom fields');
    for (const i of [0, 1, 2]) expect(form.body).toContain(`name="customFields[${i}].key"`);
    const res = await staff.post('/portal/links', payForm(ctx, { ...SIZE_ROW, ...PLATE_ROW }));
    expect(res.statusCode, textOf(res.body).slice(0, 600)).toBe(303);
    const reference = String(res.headers.location).split('/').pop()?.split('?')[0] as string;
    expect((await linkDetails(ctx, reference)).customFields).toEqual([
      { key: 'size', type: 'Dropdown', label: 'Stærð', labelEn: 'Size', required: true, options: ['S', 'M', 'L'] },
      { key: 'plate', type: 'Text', label: 'Bílnúmer', required: false, maxLength: 8 },
    ]);
    const text = textOf((await staff.follow(res)).body);
    expect(text).toMatch(/Size\s+Dropdown, required, S · M · L \(size\)/);
    expect(text).toMatch(/Bílnúmer\s+Text, optional, at most 8 characters \(plate\)/);

    const edit = await staff.get(`/portal/links/${reference}/edit`);
    expect(edit.body).toMatch(/name="customFields\[0\]\.key"[^>]*value="size"/);
    expect(edit.body).toMatch(/<textarea[^>]*name="customFields\[0\]\.options"[^>]*>S\nM\nL<\/textarea>/);
    expect(edit.body).toMatch(/<option value="Dropdown" selected/);
    expect(edit.body).toMatch(/name="customFields\[1\]\.maxLength"[^>]*value="8"/);
    expect(edit.body).toMatch(/name="customFields\[2\]\.key"[^>]*value(="")?[ />]/);
  });

  it('an edit that empties the rows clears the fields and records the change; a link without them shows no list', async () => {
    const reference = await createLink(ctx, payByLink(ctx, { customFields: [{ key: 'n', type: 'Number', label: 'Fjöldi', required: false }] }));
    await staff.get(`/portal/links/${reference}/edit`);
    const res = await staff.post(`/portal/links/${reference}/edit`, { description: 'Bolur', culture: 'is', returnUrl: 'https://shop.example/thanks?order=7' });
    expect(res.statusCode, textOf(res.body).slice(0, 500)).toBe(303);
    expect(await linkDetails(ctx, reference)).not.toHaveProperty('customFields');
    const { rows } = await ctx.tdb.db.pool.query<{ details: { changed: string[] } }>(
      "SELECT details FROM audit_log WHERE action = 'link.update' AND target = $1",
      [reference],
    );
    expect(rows[0]?.details.changed).toContain('customFields');
    expect(textOf((await staff.get(`/portal/links/${reference}`)).body)).not.toContain('Custom fields');
  });

  it('puts the service’s errors beside the row’s inputs, in English and in Icelandic, and saves nothing', async () => {
    await staff.get('/portal/links/new?type=PayByLink');
    const bad = {
      'customFields[0].key': 'size',
      'customFields[0].type': 'Text',
      'customFields[0].label': 'Stærð',
      'customFields[0].options': 'S',
      'customFields[2].key': 'Size',
      'customFields[2].label': 'Önnur stærð',
      'customFields[2].type': 'Dropdown',
    };
    const res = await staff.post('/portal/links', payForm(ctx, bad));
    expect(res.statusCode).toBe(400);
    expect(errorBeside(res.body, 'customFields[0].options')).toBe('is allowed only when type is Dropdown');
    expect(errorBeside(res.body, 'customFields[2].key')).toMatch(/^Size is used by another custom field/);
    expect(errorBeside(res.body, 'customFields[2].options')).toBe('is required when type is Dropdown');
    // What was typed stays in the rows.
    expect(res.body).toMatch(/name="customFields\[2\]\.label"[^>]*value="Önnur stærð"/);

    const { browser } = await portalUser(ctx, 'staff');
    await browser.get('/portal/account');
    await browser.post('/portal/account/language', { language: 'is' });
    await browser.get('/portal/links/new?type=PayByLink');
    const isRes = await browser.post(
      '/portal/links',
      payForm(ctx, { ...bad, 'customFields[1].key': '1x', 'customFields[1].type': 'Text', 'customFields[1].label': 'A' }),
    );
    expect(isRes.statusCode).toBe(400);
    expect(textOf(isRes.body)).toContain('Viðbótarspurningar');
    expect(errorBeside(isRes.body, 'customFields[0].options')).toBe('Ekki leyft hér.');
    expect(errorBeside(isRes.body, 'customFields[1].key')).toBe('Ekki á réttu formi.');
    expect(errorBeside(isRes.body, 'customFields[2].options')).toBe('Nauðsynlegt.');
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM payment_links WHERE description = 'Bolur' AND custom_fields IS NOT NULL",
    );
    expect(rows[0]?.n).toBe(1); // the one of the first test
  });

  it('shows the shopper’s answers on the link’s submissions and the payment’s page, and in the CSV export', async () => {
    const reference = await createLink(
      ctx,
      payByLink(ctx, {
        customFields: [
          { key: 'size', type: 'Dropdown', label: 'Stærð', labelEn: 'Size', required: true, options: ['S', 'M'] },
          { key: 'note', type: 'Text', label: 'Athugasemd', required: false },
        ],
      }),
    );
    const paid = await new Shopper(ctx).payWith(`/pay/${reference}`, '4242424242424242', { 'custom-size': 'M', 'custom-note': '=1+1; then a \\ slash' });
    expect(paid.statusCode, paid.body.slice(0, 300)).toBe(303);
    const payfac = new URL(String(paid.headers.location), 'http://x').searchParams.get('p') as string;

    const linkPage = textOf((await staff.get(`/portal/links/${reference}`)).body);
    expect(linkPage).toMatch(/Size:\s*M/);
    expect(linkPage).toMatch(/Athugasemd:\s*=1\+1; then a \\ slash/);
    const paymentPage = textOf((await staff.get(`/portal/payments/${payfac}`)).body);
    expect(paymentPage).toMatch(/Custom fields\s+size:\s*M\s+note:\s*=1\+1; then a \\ slash/);

    const csv = (await staff.get('/portal/payments/export.csv')).body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(csv[0]?.endsWith(',refusalReason,customFields')).toBe(true);
    const line = csv.find((l) => l.startsWith(payfac));
    expect(line?.endsWith(',size=M; note==1+1\\; then a \\\\ slash')).toBe(true);
    expect(
      answersLine([
        { key: 'a', value: 'x;y\\z' },
        { key: 'b', value: '' },
      ]),
    ).toBe('a=x\\;y\\\\z; b=');
    // A payment made without custom fields has an empty last cell.
    expect(csv.filter((l) => l !== csv[0] && !l.startsWith(payfac)).every((l) => l.endsWith(','))).toBe(true);
  });
});
