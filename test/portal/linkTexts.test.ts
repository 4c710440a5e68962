import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, linkDetails, payByLink } from '../checkout/fixtures.js';
import { fieldId } from '../../src/portal/views/components.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// The portal's link forms with a link's messages and terms (docs/portal.md, Messages and terms): they
// go through the link service as the API's fields do, errors come back beside their inputs in the
// reader's language, the link's page shows them, and an edit clears one left empty.

function errorBeside(html: string, field: string): string | undefined {
  const id = `${fieldId(field)}-error`;
  const m = new RegExp(`<p class="error" id="${id}">([\\s\\S]*?)</p>`).exec(html);
  if (!m) return undefined;
  expect(html, `an input names ${id}`).toMatch(new RegExp(`aria-describedby="[^"]*${id}`));
  return textOf(m[1] ?? '');
}

function payForm(ctx: TestContext, extra: Record<string, string> = {}): Record<string, string> {
  return {
    type: 'PayByLink',
    terminalIdentifier: ctx.merchant.terminalIdentifier,
    currency: 'ISK',
    culture: 'en',
    description: 'Lopapeysa',
    'items[0].name': 'Lopapeysa',
    'items[0].quantity': '1',
    'items[0].unitPrice': '4890',
    'items[0].discount': '',
    ...extra,
  };
}

describe('portal: a link’s messages and terms', () => {
  let ctx: TestContext;
  let staff: PortalBrowser;
  beforeAll(async () => {
    ctx = await createTestContext();
    staff = (await portalUser(ctx, 'staff')).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('creates a link with the three, shows them on its page and fills them into its edit form', async () => {
    const form = await staff.get('/portal/links/new?type=PayByLink');
    expect(textOf(form.body)).toContain('Messages and terms');
    for (const name of ['completionMessage', 'inactiveMessage', 'termsUrl']) expect(form.body).toContain(`name="${name}"`);
    const res = await staff.post(
      '/portal/links',
      payForm(ctx, {
        completionMessage: '  Thank you!\r\nPosted within two days.  ',
        inactiveMessage: 'Sold out.',
        termsUrl: 'https://shop.example/terms',
      }),
    );
    expect(res.statusCode, textOf(res.body).slice(0, 500)).toBe(303);
    const reference = String(res.headers.location).split('/').pop()?.split('?')[0] as string;
    expect(await linkDetails(ctx, reference)).toMatchObject({
      completionMessage: 'Thank you!\r\nPosted within two days.',
      inactiveMessage: 'Sold out.',
      termsUrl: 'https://shop.example/terms',
    });
    const page = await staff.follow(res);
    const text = textOf(page.body);
    expect(text).toMatch(/Message after payment\s+Thank you!/);
    expect(text).toMatch(/Message when the link cannot be paid\s+Sold out\./);
    expect(text).toMatch(/Terms address\s+https:\/\/shop\.example\/terms/);

    const edit = await staff.get(`/portal/links/${reference}/edit`);
    expect(edit.body).toMatch(/<textarea[^>]*name="completionMessage"[^>]*>Thank you!\r?\nPosted within two days\.<\/textarea>/);
    expect(edit.body).toMatch(/name="termsUrl"[^>]*value="https:\/\/shop.example\/terms"|value="https:\/\/shop.example\/terms"[^>]*name="termsUrl"/);
  });

  it('an edit changes one, clears one left empty, and records which changed', async () => {
    const reference = await createLink(ctx, payByLink(ctx, { completionMessage: 'Takk!', inactiveMessage: 'Búið.', termsUrl: 'https://shop.example/t' }));
    await staff.get(`/portal/links/${reference}/edit`);
    const res = await staff.post(`/portal/links/${reference}/edit`, {
      description: 'Lopapeysa',
      culture: 'is',
      returnUrl: 'https://shop.example/thanks?order=7',
      completionMessage: 'Takk fyrir!',
      inactiveMessage: '',
      termsUrl: 'https://shop.example/t',
    });
    expect(res.statusCode, textOf(res.body).slice(0, 500)).toBe(303);
    const link = await linkDetails(ctx, reference);
    expect(link).toMatchObject({ completionMessage: 'Takk fyrir!', termsUrl: 'https://shop.example/t' });
    expect(link).not.toHaveProperty('inactiveMessage');
    const { rows } = await ctx.tdb.db.pool.query<{ details: { changed: string[] } }>(
      "SELECT details FROM audit_log WHERE action = 'link.update' AND target = $1",
      [reference],
    );
    expect(rows[0]?.details.changed.sort()).toEqual(['completionMessage', 'inactiveMessage']);
  });

  it('puts the service’s errors beside the inputs, in English and in Icelandic, and saves nothing', async () => {
    await staff.get('/portal/links/new?type=PayByLink');
    const bad = { completionMessage: 'x'.repeat(501), inactiveMessage: 'Lokað\u0007', termsUrl: 'ftp://shop.example/terms' };
    const res = await staff.post('/portal/links', payForm(ctx, bad));
    expect(res.statusCode).toBe(400);
    expect(errorBeside(res.body, 'completionMessage')).toBe('must be 1 to 500 characters');
    expect(errorBeside(res.body, 'inactiveMessage')).toBe('must not contain control characters other than line breaks and tabs');
    expect(errorBeside(res.body, 'termsUrl')).toBe('must be an absolute http or https URL of at most 2048 characters');
    const { rows } = await ctx.tdb.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM payment_links WHERE description = 'Lopapeysa'");

    const { browser } = await portalUser(ctx, 'staff');
    await browser.get('/portal/account');
    await browser.post('/portal/account/language', { language: 'is' });
    await browser.get('/portal/links/new?type=PayByLink');
    const isRes = await browser.post('/portal/links', payForm(ctx, bad));
    expect(isRes.statusCode).toBe(400);
    expect(textOf(isRes.body)).toContain('Skilaboð og skilmálar');
    expect(errorBeside(isRes.body, 'completionMessage')).toBe('Röng lengd.');
    expect(errorBeside(isRes.body, 'inactiveMessage')).toBe('Ekki á réttu formi.');
    expect(errorBeside(isRes.body, 'termsUrl')).toBe('Verður að vera heil http- eða https-slóð.');
    const after = await ctx.tdb.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM payment_links WHERE description = 'Lopapeysa'");
    expect(after.rows[0]?.n).toBe(rows[0]?.n);
  });
});
