import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type CreatedMerchant } from '../../src/accounts/service.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, createSession, payByLink } from '../checkout/fixtures.js';
import { PortalBrowser, portalUser, textOf } from './helpers.js';

// Themes in the portal (§The portal: themes): made with a logo, refused when a logo is not a PNG or
// JPEG or is too large, or when colours would be unreadable; changed, previewed and deleted; and used
// by the payment pages of the theme's own merchant only.

/** A 1×1 PNG, byte for byte. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
/** The start of a JPEG (SOI and an APP0 marker): what the check looks at. */
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(64)]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>');
const LIMIT = 256 * 1024;

const LOOK = { name: 'Summer', accentColor: '#0a7d4f', backgroundColor: '#fdf6e3', buttonShape: 'pill' };

function png(filename = 'logo.png', bytes = PNG) {
  return { logo: { filename, type: 'image/png', bytes } };
}

async function count(ctx: TestContext, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

const themeCount = (ctx: TestContext) => count(ctx, 'SELECT count(*)::int AS n FROM themes');
const auditCount = (ctx: TestContext, action: string) => count(ctx, 'SELECT count(*)::int AS n FROM audit_log WHERE action = $1', [action]);

/** The text of the error shown beside a field (its id is the field's id with -error). */
function errorBeside(html: string, field: string): string {
  const m = new RegExp(`<p class="error" id="f-${field}-error">([^<]*)</p>`).exec(html);
  return m?.[1] ?? '';
}

describe('portal themes', () => {
  let ctx: TestContext;
  let dev: PortalBrowser;
  let other: CreatedMerchant;
  let otherDev: PortalBrowser;

  /** Creates a theme through the form; answers its key. */
  async function makeTheme(fields: Record<string, string> = LOOK, files = png()): Promise<string> {
    await dev.get('/portal/themes/new');
    const res = await dev.postMultipart('/portal/themes', fields, files);
    expect(res.statusCode, textOf(res.body).slice(0, 400)).toBe(303);
    const m = /^\/portal\/themes\/(th_[A-Za-z0-9_-]+)\/edit\?done=created$/.exec(String(res.headers.location));
    expect(m).not.toBeNull();
    return m?.[1] ?? '';
  }

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    dev = (await portalUser(ctx, 'developer')).browser;
    other = await createMerchant(ctx.tdb.db, 'Other merchant');
    otherDev = (await portalUser(ctx, 'developer', { owner: { merchantId: other.merchantId } })).browser;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('lists the built-in palettes before any theme; staff may not manage themes', async () => {
    const page = await dev.get('/portal/themes');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('No themes yet');
    for (const name of ['default', 'light', 'dark', 'ocean', 'forest', 'sunset']) expect(page.body).toContain(`<code>${name}</code>`);
    const { browser: staff } = await portalUser(ctx, 'staff');
    expect((await staff.get('/portal/themes')).statusCode).toBe(403);
    expect((await staff.get('/portal/themes/new')).statusCode).toBe(403);
    await staff.get('/portal');
    const before = await themeCount(ctx);
    expect((await staff.postMultipart('/portal/themes', LOOK, png())).statusCode).toBe(403);
    expect(await themeCount(ctx)).toBe(before);
  });

  it('creates a theme with a PNG logo: stored with its type, audited, its key shown to copy', async () => {
    const auditsBefore = await auditCount(ctx, 'theme.create');
    const key = await makeTheme();
    const { rows } = await ctx.tdb.db.pool.query<{
      merchant_id: string;
      name: string;
      accent_color: string;
      background_color: string;
      button_shape: string;
      logo: Buffer;
      logo_type: string;
    }>('SELECT merchant_id, name, accent_color, background_color, button_shape, logo, logo_type FROM themes WHERE theme_key = $1', [key]);
    expect(rows[0]).toMatchObject({
      merchant_id: ctx.merchant.merchantId,
      name: 'Summer',
      accent_color: '#0a7d4f',
      background_color: '#fdf6e3',
      button_shape: 'pill',
      logo_type: 'image/png',
    });
    expect(Buffer.from(rows[0]?.logo ?? []).equals(PNG)).toBe(true);
    expect(await auditCount(ctx, 'theme.create')).toBe(auditsBefore + 1);

    const page = await dev.get(`/portal/themes/${key}/edit?done=created`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('The theme is made');
    expect(page.body).toContain(`value="${key}"`);
    expect(page.body).toContain('enctype="multipart/form-data"');
    // The preview beside the form takes the saved theme's stylesheet and logo.
    expect(page.body).toMatch(new RegExp(`<link rel="stylesheet" href="/assets/themes/${key}/theme.css\\?v=[a-z0-9]+"/>`));
    expect(page.body).toContain('class="pay-preview theme-custom"');
    expect(page.body).toMatch(new RegExp(`<img class="pv-logo" src="/assets/themes/${key}/logo\\?v=[a-z0-9]+"`));

    const list = await dev.get('/portal/themes');
    expect(textOf(list.body)).toContain('Summer');
    expect(list.body).toContain(`<code>${key}</code>`);
    expect(list.body).toContain('fill="#0a7d4f"');
  });

  it('takes a JPEG logo, and a logo of exactly 256 KB', async () => {
    const jpegKey = await makeTheme({ ...LOOK, name: 'Jpeg' }, { logo: { filename: 'logo.jpg', type: 'image/jpeg', bytes: JPEG } });
    const atLimit = Buffer.concat([PNG, Buffer.alloc(LIMIT - PNG.length)]);
    const bigKey = await makeTheme({ ...LOOK, name: 'Big' }, png('big.png', atLimit));
    const { rows } = await ctx.tdb.db.pool.query<{ theme_key: string; logo_type: string; size: number }>(
      'SELECT theme_key, logo_type, octet_length(logo) AS size FROM themes WHERE theme_key = ANY($1::text[]) ORDER BY name',
      [[jpegKey, bigKey]],
    );
    expect(rows.map((r) => [r.logo_type, Number(r.size)])).toEqual([
      ['image/png', LIMIT],
      ['image/jpeg', JPEG.length],
    ]);
  });

  it('refuses an SVG logo, even one named .png and sent as image/png, beside the logo field; nothing is written', async () => {
    await dev.get('/portal/themes/new');
    const before = await themeCount(ctx);
    for (const file of [
      { filename: 'logo.png', type: 'image/png', bytes: SVG },
      { filename: 'logo.svg', type: 'image/svg+xml', bytes: SVG },
      { filename: 'logo.gif', type: 'image/gif', bytes: Buffer.from('GIF89a\x01\x00\x01\x00') },
    ]) {
      const res = await dev.postMultipart('/portal/themes', { ...LOOK, name: 'Sneaky' }, { logo: file });
      expect(res.statusCode).toBe(400);
      expect(errorBeside(res.body, 'logo')).toContain('PNG or a JPEG');
      expect(res.body).toMatch(/<input type="file" id="f-logo" name="logo"[^>]*aria-invalid="true"/);
      // What was typed comes back.
      expect(res.body).toContain('value="Sneaky"');
      expect(res.body).toContain('value="#0a7d4f"');
    }
    expect(await themeCount(ctx)).toBe(before);
  });

  it('refuses a logo over 256 KB with the error beside the field and the typed values kept; nothing is written', async () => {
    await dev.get('/portal/themes/new');
    const before = await themeCount(ctx);
    const tooBig = Buffer.concat([PNG, Buffer.alloc(LIMIT)]);
    const res = await dev.postMultipart('/portal/themes', { ...LOOK, name: 'Huge' }, png('huge.png', tooBig));
    expect(res.statusCode).toBe(413);
    expect(errorBeside(res.body, 'logo')).toContain('larger than 256 KB');
    expect(res.body).toContain('value="Huge"');
    expect(res.body).toContain('value="#fdf6e3"');
    expect(await themeCount(ctx)).toBe(before);
  });

  it('refuses unreadable colour pairs, malformed colours, an unknown shape and no name, each beside its field', async () => {
    await dev.get('/portal/themes/new');
    const before = await themeCount(ctx);
    // Mid grey: neither white nor dark text reaches 4.5:1 on it.
    const grey = await dev.postMultipart('/portal/themes', { ...LOOK, accentColor: '#7a7a7a', backgroundColor: '#777777' });
    expect(grey.statusCode).toBe(400);
    expect(errorBeside(grey.body, 'accentColor')).toMatch(/pay button’?'?s text would contrast only \d\.\d:1/);
    expect(errorBeside(grey.body, 'backgroundColor')).toMatch(/page’?'?s text would contrast only \d\.\d:1/);
    expect(textOf(grey.body)).toContain('Some fields need attention: 2.');

    const bad = await dev.postMultipart('/portal/themes', { name: '', accentColor: 'red', backgroundColor: '#12345', buttonShape: 'blob' });
    expect(bad.statusCode).toBe(400);
    expect(errorBeside(bad.body, 'name')).not.toBe('');
    expect(errorBeside(bad.body, 'accentColor')).toContain('#rrggbb');
    expect(errorBeside(bad.body, 'backgroundColor')).toContain('#rrggbb');
    expect(errorBeside(bad.body, 'buttonShape')).toContain('rounded, square, pill');

    const long = await dev.postMultipart('/portal/themes', { ...LOOK, name: 'x'.repeat(61) });
    expect(long.statusCode).toBe(400);
    expect(errorBeside(long.body, 'name')).toContain('60');
    expect(await themeCount(ctx)).toBe(before);

    // In Icelandic, the page's own translation.
    await dev.post('/portal/language', { language: 'is', back: '/portal/themes/new' });
    const is = await dev.postMultipart('/portal/themes', { ...LOOK, accentColor: '#7a7a7a' });
    expect(is.statusCode).toBe(400);
    expect(errorBeside(is.body, 'accentColor')).toContain('Texti greiðsluhnappsins yrði illlæsilegur');
    await dev.post('/portal/language', { language: 'en', back: '/portal/themes' });
    expect(await themeCount(ctx)).toBe(before);
  });

  it('a form without its token is refused and writes nothing', async () => {
    const before = await themeCount(ctx);
    const res = await dev.postMultipart('/portal/themes', LOOK, png(), { csrf: null });
    expect(res.statusCode).toBe(403);
    expect(await themeCount(ctx)).toBe(before);
  });

  it('edits a theme: colours with the logo kept, then a new logo, then none; each change audited', async () => {
    const key = await makeTheme();
    const logoOf = async () =>
      (
        await ctx.tdb.db.pool.query<{ logo: Buffer | null; logo_type: string | null; accent_color: string; name: string }>(
          'SELECT logo, logo_type, accent_color, name FROM themes WHERE theme_key = $1',
          [key],
        )
      ).rows[0];

    await dev.get(`/portal/themes/${key}/edit`);
    const kept = await dev.postMultipart(`/portal/themes/${key}/edit`, { ...LOOK, name: 'Autumn', accentColor: '#9a3412' });
    expect(kept.statusCode).toBe(303);
    expect(kept.headers.location).toBe(`/portal/themes/${key}/edit?done=saved`);
    expect(textOf((await dev.follow(kept)).body)).toContain('Saved.');
    let row = await logoOf();
    expect(row).toMatchObject({ name: 'Autumn', accent_color: '#9a3412', logo_type: 'image/png' });
    expect(Buffer.from(row?.logo ?? []).equals(PNG)).toBe(true);

    const replaced = await dev.postMultipart(
      `/portal/themes/${key}/edit`,
      { ...LOOK, name: 'Autumn' },
      { logo: { filename: 'new.jpg', type: 'image/jpeg', bytes: JPEG } },
    );
    expect(replaced.statusCode).toBe(303);
    row = await logoOf();
    expect(row?.logo_type).toBe('image/jpeg');

    // A refused edit changes nothing, and shows the stored theme's preview beside the errors.
    const refused = await dev.postMultipart(`/portal/themes/${key}/edit`, { ...LOOK, name: 'Autumn', backgroundColor: '#777777', removeLogo: 'on' });
    expect(refused.statusCode).toBe(400);
    expect(errorBeside(refused.body, 'backgroundColor')).toContain('contrast');
    expect((await logoOf())?.logo_type).toBe('image/jpeg');

    const removed = await dev.postMultipart(`/portal/themes/${key}/edit`, { ...LOOK, name: 'Autumn', removeLogo: 'on' });
    expect(removed.statusCode).toBe(303);
    row = await logoOf();
    expect(row?.logo).toBeNull();
    expect(row?.logo_type).toBeNull();

    const { rows } = await ctx.tdb.db.pool.query<{ details: { changed: string[] } }>(
      "SELECT details FROM audit_log WHERE action = 'theme.update' AND target = $1 ORDER BY id",
      [key],
    );
    expect(rows.map((r) => r.details.changed)).toEqual([['name', 'accentColor'], ['accentColor', 'logo'], ['logo removed']]);
  });

  it("another merchant's theme is not found, by every page and form, and nothing of it changes", async () => {
    const key = await makeTheme();
    await otherDev.get('/portal/themes');
    for (const path of ['edit', 'preview', 'delete']) expect((await otherDev.get(`/portal/themes/${key}/${path}`)).statusCode).toBe(404);
    const edit = await otherDev.postMultipart(`/portal/themes/${key}/edit`, { ...LOOK, name: 'Stolen' }, png());
    expect(edit.statusCode).toBe(404);
    const removed = await otherDev.post(`/portal/themes/${key}/delete`, {});
    expect(removed.statusCode).toBe(404);
    const { rows } = await ctx.tdb.db.pool.query<{ name: string }>('SELECT name FROM themes WHERE theme_key = $1', [key]);
    expect(rows[0]?.name).toBe('Summer');
    expect(textOf((await otherDev.get('/portal/themes')).body)).not.toContain(key);
    expect(await count(ctx, 'SELECT count(*)::int AS n FROM audit_log WHERE merchant_id = $1', [other.merchantId])).toBe(0);
  });

  it('deletes a theme after asking; its payment pages fall back to the default look', async () => {
    const key = await makeTheme({ ...LOOK, name: 'Doomed' });
    const reference = await createLink(ctx, payByLink(ctx, { themeKey: key }));
    expect((await new PortalBrowser(ctx).get(`/pay/${reference}`)).body).toContain(`/assets/themes/${key}/theme.css`);

    const confirm = await dev.get(`/portal/themes/${key}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain('Delete the theme Doomed?');
    expect(confirm.body).toContain(`action="/portal/themes/${key}/delete"`);
    const done = await dev.post(`/portal/themes/${key}/delete`, {});
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/portal/themes?done=deleted');
    expect(textOf((await dev.follow(done)).body)).toContain('The theme is deleted.');
    expect(await count(ctx, 'SELECT count(*)::int AS n FROM themes WHERE theme_key = $1', [key])).toBe(0);
    expect(await count(ctx, "SELECT count(*)::int AS n FROM audit_log WHERE action = 'theme.delete' AND target = $1", [key])).toBe(1);
    // Gone: again is 404, and the page no longer names it.
    expect((await dev.post(`/portal/themes/${key}/delete`, {})).statusCode).toBe(404);
    const page = await new PortalBrowser(ctx).get(`/pay/${reference}`);
    expect(page.body).not.toContain('/assets/themes/');
    expect(page.body).toContain('<body class="theme-default">');
    expect((await ctx.app.inject({ method: 'GET', url: `/assets/themes/${key}/theme.css` })).statusCode).toBe(404);
  });

  it('the payment page of a link or session with the theme links its stylesheet and shows its logo, both cached with ETags', async () => {
    const key = await makeTheme();
    const reference = await createLink(ctx, payByLink(ctx, { themeKey: key }));
    const page = await new PortalBrowser(ctx).get(`/pay/${reference}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<body class="theme-default theme-custom">');
    const css = /<link rel="stylesheet" href="(\/assets\/themes\/th_[^"]+\/theme\.css\?v=[a-z0-9]+)"\/>/.exec(page.body)?.[1];
    const logo = /<img class="logo" src="(\/assets\/themes\/th_[^"]+\/logo\?v=[a-z0-9]+)" alt="Test merchant"\/>/.exec(page.body)?.[1];
    expect(css).toBeDefined();
    expect(logo).toBeDefined();

    const sheet = await ctx.app.inject({ method: 'GET', url: css as string });
    expect(sheet.statusCode).toBe(200);
    expect(sheet.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(sheet.body).toContain('.theme-custom {');
    expect(sheet.body).toContain('--accent: #0a7d4f;');
    expect(sheet.body).toContain('--bg: #fdf6e3;');
    expect(sheet.body).toContain('--button-radius: 999px;');
    expect(sheet.body).toContain('--accent-text: #ffffff;');
    const etag = String(sheet.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await ctx.app.inject({ method: 'GET', url: css as string, headers: { 'if-none-match': etag } })).statusCode).toBe(304);

    const image = await ctx.app.inject({ method: 'GET', url: logo as string });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.headers['x-content-type-options']).toBe('nosniff');
    expect(image.rawPayload.equals(PNG)).toBe(true);
    expect((await ctx.app.inject({ method: 'GET', url: logo as string, headers: { 'if-none-match': String(image.headers.etag) } })).statusCode).toBe(304);

    // A checkout session naming the theme gets it too.
    const session = await createSession(ctx, { themeKey: key });
    expect((await new PortalBrowser(ctx).get(`/checkout/${session}`)).body).toContain(`/assets/themes/${key}/theme.css`);

    // An edit shows at once: a new version in the page's link, and a new ETag.
    ctx.clock.advance(1_000);
    await dev.get(`/portal/themes/${key}/edit`);
    expect((await dev.postMultipart(`/portal/themes/${key}/edit`, { ...LOOK, accentColor: '#1e3a8a', buttonShape: 'square' })).statusCode).toBe(303);
    const after = await new PortalBrowser(ctx).get(`/pay/${reference}`);
    const css2 = /href="(\/assets\/themes\/th_[^"]+\/theme\.css\?v=[a-z0-9]+)"/.exec(after.body)?.[1];
    expect(css2).not.toBe(css);
    const sheet2 = await ctx.app.inject({ method: 'GET', url: css2 as string, headers: { 'if-none-match': etag } });
    expect(sheet2.statusCode).toBe(200);
    expect(sheet2.body).toContain('--accent: #1e3a8a;');
    expect(sheet2.body).toContain('--button-radius: 0;');
    expect(sheet2.headers.etag).not.toBe(etag);
  });

  it("another merchant's theme key, or an unknown one, leaves the page in the default palette; a built-in name keeps working", async () => {
    const key = await makeTheme();
    const stranger = payByLink(ctx, { terminalIdentifier: other.terminalIdentifier, themeKey: key });
    const r = await call(ctx, 'POST', '/api/v1/paymentlinks/create', stranger, { apiKey: other.apiKey });
    expect(r.status).toBe(200);
    for (const reference of [r.body.paymentLinkReference as string, await createLink(ctx, payByLink(ctx, { themeKey: 'th_unknownkey123' }))]) {
      const page = await new PortalBrowser(ctx).get(`/pay/${reference}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<body class="theme-default">');
      expect(page.body).not.toContain('/assets/themes/');
      expect(page.body).not.toContain('class="logo"');
    }
    const dark = await new PortalBrowser(ctx).get(`/pay/${await createLink(ctx, payByLink(ctx, { themeKey: 'dark' }))}`);
    expect(dark.body).toContain('<body class="theme-dark">');
  });

  it('the preview page is the payment page in the theme with sample data, and sends nothing', async () => {
    const key = await makeTheme();
    const page = await dev.get(`/portal/themes/${key}/preview`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("style-src 'self'");
    expect(page.body).toContain('<body class="theme-default theme-custom">');
    expect(page.body).toContain(`/assets/themes/${key}/theme.css?v=`);
    expect(page.body).toMatch(/<img class="logo" src="[^"]+" alt="Test merchant"\/>/);
    const text = textOf(page.body);
    expect(text).toContain('A preview of the theme Summer');
    expect(text).toContain('Wool sweater');
    expect(text).toContain('Card number');
    expect(page.body).not.toContain('method="post"');
    expect(page.body).not.toContain('type="submit"');
    // The page's language switch stays on the preview.
    const is = await dev.get(`/portal/themes/${key}/preview?lang=is`);
    expect(textOf(is.body)).toContain('Lopapeysa');
    expect(is.body).toContain('<html lang="is">');
  });

  it('the live preview asks for the palette of the colours being chosen, and is told what would be refused', async () => {
    const ok = await dev.get('/portal/themes/palette?accentColor=%23fde047&backgroundColor=%23111827&buttonShape=square');
    expect(ok.statusCode).toBe(200);
    const body = JSON.parse(ok.body) as { variables: Record<string, string>; errors: unknown[] };
    expect(body.errors).toEqual([]);
    // A yellow accent gets dark text; a dark background light text on a panel of its own.
    expect(body.variables).toMatchObject({ '--accent': '#fde047', '--accent-text': '#0b0f15', '--bg': '#111827', '--text': '#eef1f6', '--button-radius': '0' });
    const bad = JSON.parse((await dev.get('/portal/themes/palette?accentColor=%237a7a7a&backgroundColor=%23ffffff&buttonShape=rounded')).body) as {
      errors: { field: string; message: string }[];
    };
    expect(bad.errors.map((e) => e.field)).toEqual(['accentColor']);
    // A repeated parameter is no colour (and no crash).
    const twice = await dev.get('/portal/themes/palette?accentColor=%23000000&accentColor=%23ffffff&backgroundColor=%23ffffff&buttonShape=rounded');
    expect(twice.statusCode).toBe(200);
    expect((JSON.parse(twice.body) as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(['accentColor']);
    const { browser: staff } = await portalUser(ctx, 'staff');
    expect((await staff.get('/portal/themes/palette?accentColor=%23000000&backgroundColor=%23ffffff&buttonShape=rounded')).statusCode).toBe(403);
  });
});
