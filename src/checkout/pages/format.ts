import { LOCALES, type Culture } from './i18n.js';

// Amounts are minor units (the provider's interface). Every currency the service takes has 100 minor units to the
// unit, ISK included (the provider's rule that ISK amounts end in 00 says so), but ISK is shown without
// decimals: 48900 is "489 kr.".

const cache = new Map<string, Intl.NumberFormat>();

export function formatMoney(minor: number, currency: string, culture: Culture): string {
  const exact = minor % 100 === 0;
  const key = `${culture}|${currency}|${exact}`;
  let f = cache.get(key);
  if (!f) {
    const base = new Intl.NumberFormat(LOCALES[culture], { style: 'currency', currency });
    const digits = base.resolvedOptions().maximumFractionDigits ?? 2;
    // A currency shown without decimals (ISK) still shows them when an amount has some.
    f = digits === 0 && !exact ? new Intl.NumberFormat(LOCALES[culture], { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }) : base;
    cache.set(key, f);
  }
  return f.format(minor / 100);
}

export function formatQuantity(q: number, culture: Culture): string {
  return new Intl.NumberFormat(LOCALES[culture], { maximumFractionDigits: 6 }).format(q);
}
