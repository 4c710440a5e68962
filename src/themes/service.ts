import { createHash } from 'node:crypto';
import type { Operation } from '../actor.js';
import { recordAudit } from '../audit/service.js';
import type { Database } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { notFound, validationError, type FieldError } from '../errors.js';
import { prefixedId } from '../ids.js';
import { BUTTON_SHAPES, MIN_CONTRAST, derivePalette, normalizeColor, paletteCss, type ButtonShape } from './palette.js';
import * as sql from './sql.js';

export { BUTTON_SHAPES, CUSTOM_THEME_CLASS, MIN_CONTRAST, type ButtonShape } from './palette.js';

// Themes (§The portal: themes): a merchant's own look for the payment pages, made in the portal.
// A link or a checkout session names one by its themeKey, as it names a built-in palette; the pages
// use it only when it belongs to the link's or session's merchant. The rules of a theme are here and
// nowhere else: the portal's forms and the live preview ask this module.

const NAME_MAX = 60;
/** The largest logo, in bytes (the portal's upload limit is the same). */
export const LOGO_MAX_BYTES = 256 * 1024;
export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;
type LogoType = (typeof LOGO_TYPES)[number];

/** A theme's key: `th_` and 16 URL-safe characters (the API's themeKey takes 1 to 64). */
const THEME_KEY = /^th_[A-Za-z0-9_-]{1,61}$/;

export interface Theme {
  themeKey: string;
  name: string;
  accentColor: string;
  backgroundColor: string;
  buttonShape: ButtonShape;
  logoType: LogoType | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a form sends: the colours as typed, the shape, and a logo's bytes when one was chosen. */
export interface ThemeInput {
  name: string;
  accentColor: string;
  backgroundColor: string;
  buttonShape: string;
  logo?: Buffer;
}

/** On an edit: a new logo replaces the old; without one, the old is kept or removed. */
type LogoChange = 'keep' | 'remove';

function isShape(v: string): v is ButtonShape {
  return (BUTTON_SHAPES as readonly string[]).includes(v);
}

function themeOf(r: sql.ThemeRow): Theme {
  return {
    themeKey: r.themeKey,
    name: r.name,
    accentColor: r.accentColor,
    backgroundColor: r.backgroundColor,
    buttonShape: isShape(r.buttonShape) ? r.buttonShape : 'rounded',
    logoType: r.logoType === 'image/png' || r.logoType === 'image/jpeg' ? r.logoType : null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * What an image is, by its first bytes: a PNG's signature (89 50 4E 47) or a JPEG's start of image
 * (FF D8 FF). Never by its name or the type the browser gives: an SVG (which may carry script) named
 * logo.png is neither.
 */
function imageTypeOf(bytes: Buffer): LogoType | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return undefined;
}

/** A contrast as said to a reader: rounded down, so a pair just short of 4.5:1 never reads "4.5:1". */
function ratio(c: number): string {
  return (Math.floor(c * 10) / 10).toFixed(1);
}

/** The colours and shape as the palette takes them, and every field error of the three. */
function checkLook(
  input: Pick<ThemeInput, 'accentColor' | 'backgroundColor' | 'buttonShape'>,
  errors: FieldError[],
): { accent: string; background: string; shape: ButtonShape } | undefined {
  const accent = normalizeColor(input.accentColor);
  const background = normalizeColor(input.backgroundColor);
  if (accent === undefined) errors.push({ field: 'accentColor', code: 'FORMAT', message: 'Write the colour as #rrggbb.' });
  if (background === undefined) errors.push({ field: 'backgroundColor', code: 'FORMAT', message: 'Write the colour as #rrggbb.' });
  if (!isShape(input.buttonShape)) errors.push({ field: 'buttonShape', code: 'ENUM', message: `Choose one of ${BUTTON_SHAPES.join(', ')}.` });
  if (accent === undefined || background === undefined || !isShape(input.buttonShape)) return undefined;
  const palette = derivePalette(accent, background, input.buttonShape);
  if (palette.buttonContrast < MIN_CONTRAST) {
    errors.push({
      field: 'accentColor',
      code: 'CONTRAST',
      message: `The pay button’s text would contrast only ${ratio(palette.buttonContrast)}:1 with this colour; at least ${MIN_CONTRAST}:1 is needed. Choose a darker or a lighter colour.`,
    });
  }
  if (palette.textContrast < MIN_CONTRAST) {
    errors.push({
      field: 'backgroundColor',
      code: 'CONTRAST',
      message: `The page’s text would contrast only ${ratio(palette.textContrast)}:1 with this colour; at least ${MIN_CONTRAST}:1 is needed. Choose a darker or a lighter colour.`,
    });
  }
  return { accent, background, shape: input.buttonShape };
}

interface CheckedTheme {
  name: string;
  accent: string;
  background: string;
  shape: ButtonShape;
  logo: { bytes: Buffer; type: LogoType } | undefined;
}

function checkTheme(input: ThemeInput): CheckedTheme {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  if (name === '') errors.push({ field: 'name', code: 'REQUIRED', message: 'Give the theme a name.' });
  else if ([...name].length > NAME_MAX) errors.push({ field: 'name', code: 'LENGTH', message: `Use at most ${NAME_MAX} characters.` });
  const look = checkLook(input, errors);
  let logo: CheckedTheme['logo'];
  if (input.logo !== undefined) {
    const type = imageTypeOf(input.logo);
    if (input.logo.length > LOGO_MAX_BYTES)
      errors.push({ field: 'logo', code: 'LOGO_TOO_LARGE', message: `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB.` });
    else if (type === undefined) errors.push({ field: 'logo', code: 'LOGO_TYPE', message: 'The logo must be a PNG or a JPEG image.' });
    else logo = { bytes: input.logo, type };
  }
  if (errors.length > 0 || look === undefined) throw validationError(errors);
  return { name, ...look, logo };
}

export async function createTheme(op: Operation, merchantId: string, input: ThemeInput): Promise<Theme> {
  const t = checkTheme(input);
  return withTransaction(op.db, async (tx) => {
    const row = await sql.insertTheme(tx, {
      themeKey: prefixedId('th'),
      merchantId,
      name: t.name,
      accentColor: t.accent,
      backgroundColor: t.background,
      buttonShape: t.shape,
      logo: t.logo?.bytes ?? null,
      logoType: t.logo?.type ?? null,
      at: op.clock.now(),
    });
    const theme = themeOf(row);
    await recordAudit(tx, op, { merchantId, action: 'theme.create', target: theme.themeKey, details: { name: theme.name } });
    return theme;
  });
}

/** What an edit changed, by name (the logo as replaced or removed). */
function changes(before: Theme, after: Theme, logo: 'kept' | 'replaced' | 'removed'): string[] {
  const fields = (['name', 'accentColor', 'backgroundColor', 'buttonShape'] as const).filter((k) => before[k] !== after[k]);
  return logo === 'kept' ? fields : [...fields, logo === 'replaced' ? 'logo' : 'logo removed'];
}

/** Changes a merchant's theme; another merchant's (or no) theme is not found. Answers the theme before and after. */
export async function updateTheme(
  op: Operation,
  merchantId: string,
  themeKey: string,
  input: ThemeInput & { logoChange: LogoChange },
): Promise<{ before: Theme; after: Theme }> {
  const t = checkTheme(input);
  const keepLogo = t.logo === undefined && input.logoChange === 'keep';
  return withTransaction(op.db, async (tx) => {
    const found = THEME_KEY.test(themeKey) ? await sql.findTheme(tx, merchantId, themeKey, { forUpdate: true }) : undefined;
    if (!found) throw notFound('theme');
    const before = themeOf(found);
    const row = await sql.updateTheme(tx, {
      themeKey,
      merchantId,
      name: t.name,
      accentColor: t.accent,
      backgroundColor: t.background,
      buttonShape: t.shape,
      keepLogo,
      logo: t.logo?.bytes ?? null,
      logoType: t.logo?.type ?? null,
      at: op.clock.now(),
    });
    if (!row) throw notFound('theme');
    const after = themeOf(row);
    const logo = t.logo ? 'replaced' : before.logoType !== null && after.logoType === null ? 'removed' : 'kept';
    await recordAudit(tx, op, { merchantId, action: 'theme.update', target: themeKey, details: { name: after.name, changed: changes(before, after, logo) } });
    return { before, after };
  });
}

export async function deleteTheme(op: Operation, merchantId: string, themeKey: string): Promise<Theme> {
  return withTransaction(op.db, async (tx) => {
    const row = THEME_KEY.test(themeKey) ? await sql.deleteTheme(tx, merchantId, themeKey) : undefined;
    if (!row) throw notFound('theme');
    const theme = themeOf(row);
    await recordAudit(tx, op, { merchantId, action: 'theme.delete', target: theme.themeKey, details: { name: theme.name } });
    return theme;
  });
}

/** A merchant's theme; another merchant's is not found. */
export async function getTheme(db: Database, merchantId: string, themeKey: string): Promise<Theme> {
  const row = THEME_KEY.test(themeKey) ? await sql.findTheme(db.pool, merchantId, themeKey) : undefined;
  if (!row) throw notFound('theme');
  return themeOf(row);
}

/** A merchant's themes, oldest first. */
export async function listThemes(db: Database, merchantId: string): Promise<Theme[]> {
  return (await sql.listThemes(db.pool, merchantId)).map(themeOf);
}

/** Where a theme's stylesheet and logo are served; the version in the query changes with every edit. */
export interface ThemeAssets {
  stylesheet: string;
  logo: string | null;
}

export function themeAssets(theme: Theme): ThemeAssets {
  const base = `/assets/themes/${encodeURIComponent(theme.themeKey)}`;
  const v = theme.updatedAt.getTime().toString(36);
  return { stylesheet: `${base}/theme.css?v=${v}`, logo: theme.logoType !== null ? `${base}/logo?v=${v}` : null };
}

/**
 * The theme a payment page of this merchant shows for a themeKey: the merchant's own theme of that
 * key, else none (a built-in palette's name, another merchant's key or an unknown one).
 */
export async function pageTheme(db: Database, merchantId: string, themeKey: string | null): Promise<ThemeAssets | undefined> {
  if (themeKey === null || !THEME_KEY.test(themeKey)) return undefined;
  const row = await sql.findTheme(db.pool, merchantId, themeKey);
  return row ? themeAssets(themeOf(row)) : undefined;
}

function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/** A theme's stylesheet (its palette as custom properties) and an ETag that changes with it. */
export async function themeStylesheet(db: Database, themeKey: string): Promise<{ css: string; etag: string } | undefined> {
  const row = THEME_KEY.test(themeKey) ? await sql.findThemeByKey(db.pool, themeKey) : undefined;
  if (!row) return undefined;
  const t = themeOf(row);
  const css = paletteCss(derivePalette(t.accentColor, t.backgroundColor, t.buttonShape));
  return { css, etag: etagOf(css) };
}

export async function themeLogo(db: Database, themeKey: string): Promise<{ bytes: Buffer; type: LogoType; etag: string } | undefined> {
  const row = THEME_KEY.test(themeKey) ? await sql.findLogo(db.pool, themeKey) : undefined;
  if (!row || (row.logoType !== 'image/png' && row.logoType !== 'image/jpeg')) return undefined;
  const bytes = Buffer.from(row.logo);
  return { bytes, type: row.logoType, etag: etagOf(bytes) };
}

/**
 * The palette that colours and a shape make, for the portal's live preview: its custom properties,
 * or the field errors that saving them would give.
 */
export function previewLook(input: Pick<ThemeInput, 'accentColor' | 'backgroundColor' | 'buttonShape'>): {
  variables: Record<string, string> | null;
  errors: FieldError[];
} {
  const errors: FieldError[] = [];
  const look = checkLook(input, errors);
  return { variables: look ? derivePalette(look.accent, look.background, look.shape).variables : null, errors };
}
