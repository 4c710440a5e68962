// A theme's colours as the payment page uses them. The merchant chooses two colours (the accent of
// the pay button and links, and the page's background) and a button shape; everything else the page
// needs (the text on the button, the text of the page, the panel, muted text, borders) is derived
// here so that it stays readable: the text on each colour is whichever of a light and a dark one
// contrasts more, and a pair that still falls below WCAG's 4.5:1 for text is refused.

export const BUTTON_SHAPES = ['rounded', 'square', 'pill'] as const;
export type ButtonShape = (typeof BUTTON_SHAPES)[number];

/** WCAG 2 AA for normal text. */
export const MIN_CONTRAST = 4.5;

const BUTTON_RADIUS: Record<ButtonShape, string> = { rounded: '8px', square: '0', pill: '999px' };

// The two candidates for text on the accent (the pay button) and on the background: the default
// palette's text and dark-theme text, so a custom theme sits among the built-in ones.
const DARK_ON_ACCENT = '#0b0f15';
const LIGHT_ON_ACCENT = '#ffffff';
const DARK_TEXT = '#1d2330';
const LIGHT_TEXT = '#eef1f6';

const HEX = /^#[0-9a-f]{6}$/;

/** A colour as stored: `#rrggbb` in lower case; undefined when it is not one. */
export function normalizeColor(raw: string): string | undefined {
  const c = raw.trim().toLowerCase();
  return HEX.test(c) ? c : undefined;
}

type Rgb = readonly [number, number, number];

function rgbOf(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function hexOf([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
}

/** `a` moved towards `b` by `t` (0 = a, 1 = b), channel by channel. */
function mix(a: string, b: string, t: number): string {
  const x = rgbOf(a);
  const y = rgbOf(b);
  return hexOf([x[0] + (y[0] - x[0]) * t, x[1] + (y[1] - x[1]) * t, x[2] + (y[2] - x[2]) * t]);
}

/** WCAG 2 relative luminance. */
function luminance(hex: string): number {
  const [r, g, b] = rgbOf(hex).map((v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as unknown as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio, 1 to 21. */
export function contrast(a: string, b: string): number {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

function better(on: string, first: string, second: string): string {
  return contrast(on, first) >= contrast(on, second) ? first : second;
}

interface Palette {
  /** The CSS custom properties of the payment page (the names the built-in palettes set). */
  variables: Record<string, string>;
  colorScheme: 'light' | 'dark';
  /** The pay button's text against the accent. */
  buttonContrast: number;
  /** The page's text against the background and the panel, whichever is lower. */
  textContrast: number;
}

/** Everything the payment page needs from the two chosen colours and the shape (colours already normalised). */
export function derivePalette(accent: string, background: string, shape: ButtonShape): Palette {
  const accentText = better(accent, LIGHT_ON_ACCENT, DARK_ON_ACCENT);
  const text = better(background, DARK_TEXT, LIGHT_TEXT);
  const dark = text === LIGHT_TEXT;
  // The form sits on a panel: white on a light background (as the built-in palettes have it), a
  // shade lighter than the background on a dark one.
  const panel = dark ? mix(background, '#ffffff', 0.06) : '#ffffff';
  // Muted text as far towards the panel as it may go and still read at 4.5:1.
  let muted = text;
  for (let t = 0.45; t > 0; t -= 0.05) {
    const candidate = mix(text, panel, t);
    if (contrast(candidate, panel) >= MIN_CONTRAST) {
      muted = candidate;
      break;
    }
  }
  // Links and the outline of the secondary button are in the accent when it reads on the panel, else in the text's colour.
  const link = contrast(accent, panel) >= MIN_CONTRAST ? accent : text;
  return {
    variables: {
      '--bg': background,
      '--panel': panel,
      '--text': text,
      '--muted': muted,
      '--accent': accent,
      '--accent-text': accentText,
      '--link': link,
      '--border': mix(text, panel, 0.78),
      '--error': dark ? '#ff8a8a' : '#b00020',
      '--ok': dark ? '#6fdca5' : '#16794c',
      '--button-radius': BUTTON_RADIUS[shape],
    },
    colorScheme: dark ? 'dark' : 'light',
    buttonContrast: contrast(accent, accentText),
    textContrast: Math.min(contrast(background, text), contrast(panel, text)),
  };
}

/** The class a themed page's body (and the portal's preview) carries; the theme's stylesheet sets its properties. */
export const CUSTOM_THEME_CLASS = 'theme-custom';

/** The stylesheet of a theme: its palette as custom properties on the themed element. */
export function paletteCss(p: Palette): string {
  const decls = Object.entries(p.variables).map(([k, v]) => `${k}: ${v};`);
  return `.${CUSTOM_THEME_CLASS} { ${decls.join(' ')} color-scheme: ${p.colorScheme}; }\n`;
}
