// Money, numbers and times as the pages show them, in the two languages of the service's pages.

export type Culture = 'is' | 'en';

export const LOCALES: Record<Culture, string> = { is: 'is-IS', en: 'en-GB' };

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

// Making an Intl formatter costs about a hundred times what using one does: one per culture, kept.
const quantities = new Map<Culture, Intl.NumberFormat>();
const numbers = new Map<Culture, Intl.NumberFormat>();

function kept(map: Map<Culture, Intl.NumberFormat>, culture: Culture, make: () => Intl.NumberFormat): Intl.NumberFormat {
  let f = map.get(culture);
  if (!f) {
    f = make();
    map.set(culture, f);
  }
  return f;
}

export function formatQuantity(q: number, culture: Culture): string {
  return kept(quantities, culture, () => new Intl.NumberFormat(LOCALES[culture], { maximumFractionDigits: 6 })).format(q);
}

const dateTimes = new Map<string, Intl.DateTimeFormat>();

/**
 * A moment as the portal shows it: day, month, year and time to the minute, in UTC (which is
 * Iceland's time all year round), e.g. "24 Nov 2026, 14:03".
 */
export function formatDateTime(at: Date, culture: Culture, opts: { seconds?: boolean } = {}): string {
  const key = `${culture}|${opts.seconds === true}`;
  let f = dateTimes.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(LOCALES[culture], {
      timeZone: 'UTC',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      ...(opts.seconds ? { second: '2-digit' } : {}),
      hourCycle: 'h23',
    });
    dateTimes.set(key, f);
  }
  return f.format(at);
}

const dates = new Map<string, Intl.DateTimeFormat>();

/** A day, e.g. "24 Nov" (with the year when asked). */
export function formatDate(at: Date, culture: Culture, withYear = false): string {
  const key = `${culture}|${withYear}`;
  let f = dates.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(LOCALES[culture], { timeZone: 'UTC', day: 'numeric', month: 'short', ...(withYear ? { year: 'numeric' } : {}) });
    dates.set(key, f);
  }
  return f.format(at);
}

export function formatNumber(n: number, culture: Culture): string {
  return kept(numbers, culture, () => new Intl.NumberFormat(LOCALES[culture])).format(n);
}
