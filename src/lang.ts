// The two languages of every page, the shopper's, the portal's and the e-mails', and the one format
// of their dictionaries. Each part keeps its own table of words beside its pages (messages(en, is));
// a key missing from one language is a type error, so no page shows half a translation. A leaf that
// the renderer's formats (src/html/format.ts) and the web layer (src/web/lang.ts: the reader's choice
// from a request) both import.

export const LANGS = ['is', 'en'] as const;
export type Lang = (typeof LANGS)[number];

export function isLang(value: unknown): value is Lang {
  return value === 'is' || value === 'en';
}

/** The language the switch on a page offers. */
export function otherLang(lang: Lang): Lang {
  return lang === 'is' ? 'en' : 'is';
}

export interface Messages<K extends string> {
  en: Readonly<Record<K, string>>;
  is: Readonly<Record<K, string>>;
}

/** A table of strings in both languages: the Icelandic one must have every English key. */
export function messages<const E extends Record<string, string>>(en: E, is: { readonly [K in keyof E]: string }): Messages<keyof E & string> {
  return { en, is };
}

/**
 * `{name}` placeholders are filled from vars; the result is plain text (the renderer escapes it). A
 * value that ends a sentence itself ("388 kr.") takes the place of the sentence's own full stop, so
 * a message never ends in two.
 */
export type Translate<K extends string> = (key: K, vars?: Readonly<Record<string, string | number>>) => string;

export function translator<K extends string>(m: Messages<K>, lang: Lang): Translate<K> {
  const table = m[lang];
  return (key, vars) => {
    const text = table[key];
    if (!vars) return text;
    return text.replace(/\{(\w+)\}(\.?)/g, (whole, name: string, stop: string) => {
      const value = vars[name];
      if (value === undefined) return whole;
      const v = String(value);
      return stop !== '' && v.endsWith('.') ? v : v + stop;
    });
  };
}
