// Money, numbers and times as the pages show them, in the two languages of the service's pages.

import type { Lang } from '../lang.js';
import { Kept } from '../kept.js';

export const LOCALES: Record<Lang, string> = { is: 'is-IS', en: 'en-GB' };

// Amounts are minor units (the provider's interface). Every currency the service takes has 100 minor units to the
// unit, ISK included (the provider's rule that ISK amounts end in 00 says so), but ISK is shown without
// decimals: 48900 is "489 kr.".

/**
 * An amount's text, kept: a list shows the same few prices again and again, and an Intl format costs
 * about ten times a lookup.
 */
const MEMO_LIMIT = 4096;

interface MoneyFormats {
  whole: Intl.NumberFormat;
  /** For a currency shown without decimals (ISK) when an amount has some. */
  cents: Intl.NumberFormat;
  memo: Kept<number, string>;
}

/** Per culture, per currency. */
const moneyFormats: Record<Lang, Map<string, MoneyFormats>> = { is: new Map(), en: new Map() };

export function formatMoney(minor: number, currency: string, culture: Lang): string {
  let m = moneyFormats[culture].get(currency);
  if (!m) {
    const whole = new Intl.NumberFormat(LOCALES[culture], { style: 'currency', currency });
    const digits = whole.resolvedOptions().maximumFractionDigits ?? 2;
    // A currency shown without decimals (ISK) still shows them when an amount has some.
    const cents =
      digits === 0 ? new Intl.NumberFormat(LOCALES[culture], { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }) : whole;
    m = { whole, cents, memo: new Kept(MEMO_LIMIT) };
    moneyFormats[culture].set(currency, m);
  }
  const f = m;
  return f.memo.get(minor, () => (minor % 100 === 0 ? f.whole : f.cents).format(minor / 100));
}

// Making an Intl formatter costs about a hundred times what using one does: one per culture, kept.
const quantities = new Map<Lang, Intl.NumberFormat>();
const numbers = new Map<Lang, Intl.NumberFormat>();

function kept(map: Map<Lang, Intl.NumberFormat>, culture: Lang, make: () => Intl.NumberFormat): Intl.NumberFormat {
  let f = map.get(culture);
  if (!f) {
    f = make();
    map.set(culture, f);
  }
  return f;
}

export function formatQuantity(q: number, culture: Lang): string {
  return kept(quantities, culture, () => new Intl.NumberFormat(LOCALES[culture], { maximumFractionDigits: 6 })).format(q);
}

/** A moment's calendar fields in UTC (month from 0, as Date's). */
interface UtcFields {
  year: number;
  month: number;
  day: number;
  hours: number;
  minutes: number;
  seconds: number;
  ms: number;
}

const DAY_MS = 86_400_000;

/**
 * The UTC fields of a moment, by arithmetic on its milliseconds (each of Date's getUTC... getters is
 * a call into the engine; a page of 20 rows asks for 140 of them). The days are turned into a date of
 * the proleptic Gregorian calendar as Date does (the civil-from-days algorithm of H. Hinnant's
 * "chrono-compatible low-level date algorithms").
 */
function utcFields(at: Date): UtcFields {
  const t = at.getTime();
  const days = Math.floor(t / DAY_MS);
  let rest = t - days * DAY_MS;
  const ms = rest % 1000;
  rest = (rest - ms) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 2 : mp - 10;
  const year = yoe + era * 400 + (month <= 1 ? 1 : 0);
  return { year, month, day, hours, minutes, seconds, ms };
}

/** 00 to 99 and 000 to 999, made once: a page writes hundreds of them. */
const PAD2 = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const pad2 = (n: number): string => PAD2[n] ?? String(n);
const pad3 = (n: number): string => PAD3[n] ?? String(n);

/** The moment as `Date.prototype.toISOString` writes it (for a `<time datetime>`), in a third of its time. */
export function isoTime(at: Date): string {
  const f = utcFields(at);
  if (!(f.year >= 1000 && f.year <= 9999)) return at.toISOString();
  return `${f.year}-${pad2(f.month + 1)}-${pad2(f.day)}T${pad2(f.hours)}:${pad2(f.minutes)}:${pad2(f.seconds)}.${pad3(f.ms)}Z`;
}

/**
 * An Intl date format turned into a template of its parts (the month names and the literals read
 * from Intl once), for UTC formats of numeric day, short month, numeric year and two-digit time:
 * filling it in costs a tenth of Intl's own format, and a page of 20 rows formats 20 moments. It is
 * checked against Intl on every month, day, hour, minute and second when made, and not used if any
 * differs (then Intl formats every moment); years outside 1000–9999 always go to Intl.
 */
function compiled(f: Intl.DateTimeFormat): (at: Date) => string {
  const intl = (at: Date): string => f.format(at);
  const sample = new Date(Date.UTC(2001, 0, 2, 3, 4, 5));
  const months = Array.from({ length: 12 }, (_, m) => f.formatToParts(new Date(Date.UTC(2001, m, 2))).find((p) => p.type === 'month')?.value ?? '');
  const pieces: ((at: UtcFields) => string)[] = [];
  for (const part of f.formatToParts(sample)) {
    const { type, value } = part;
    if (type === 'literal') pieces.push(() => value);
    else if (type === 'day') pieces.push(value === '02' ? (at) => pad2(at.day) : (at) => String(at.day));
    else if (type === 'month') pieces.push((at) => months[at.month] as string);
    else if (type === 'year' && value === '2001') pieces.push((at) => String(at.year));
    else if (type === 'hour' && value === '03') pieces.push((at) => pad2(at.hours));
    else if (type === 'minute' && value === '04') pieces.push((at) => pad2(at.minutes));
    else if (type === 'second' && value === '05') pieces.push((at) => pad2(at.seconds));
    else return intl;
  }
  const fast = (at: Date): string => {
    const fields = utcFields(at);
    if (!(fields.year >= 1000 && fields.year <= 9999)) return f.format(at);
    let text = '';
    for (const piece of pieces) text += piece(fields);
    return text;
  };
  // Every month and day of 2026 (a day in ten at 23:59:59 as well), and every hour, minute and
  // second of one day.
  const checks: Date[] = [];
  for (let d = 0; d < 365; d++) {
    checks.push(new Date(Date.UTC(2026, 0, 1 + d)));
    if (d % 10 === 0) checks.push(new Date(Date.UTC(2026, 0, 1 + d, 23, 59, 59)));
  }
  for (let i = 0; i < 24 * 60; i++) checks.push(new Date(Date.UTC(2026, 10, 24, Math.floor(i / 60), i % 60, i % 60)));
  return checks.every((at) => fast(at) === f.format(at)) ? fast : intl;
}

/** What a moment shows: day, short month, year and the time to the minute (or second), in UTC. */
export function dateTimeOptions(seconds: boolean): Intl.DateTimeFormatOptions {
  return {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
  };
}

/** What a day shows: day and short month (and the year), in UTC. */
export function dateOptions(withYear: boolean): Intl.DateTimeFormatOptions {
  return { timeZone: 'UTC', day: 'numeric', month: 'short', ...(withYear ? { year: 'numeric' } : {}) };
}

/** The formats of moments per culture, without and with seconds. */
const dateTimes: Record<Lang, [((at: Date) => string) | undefined, ((at: Date) => string) | undefined]> = {
  is: [undefined, undefined],
  en: [undefined, undefined],
};

/**
 * A moment as the portal shows it: day, month, year and time to the minute, in UTC (which is
 * Iceland's time all year round), e.g. "24 Nov 2026, 14:03".
 */
export function formatDateTime(at: Date, culture: Lang, opts?: { seconds?: boolean }): string {
  const seconds = opts?.seconds === true;
  const kept = dateTimes[culture];
  let f = kept[seconds ? 1 : 0];
  if (!f) {
    f = compiled(new Intl.DateTimeFormat(LOCALES[culture], dateTimeOptions(seconds)));
    kept[seconds ? 1 : 0] = f;
  }
  return f(at);
}

const dates = new Map<string, (at: Date) => string>();

/** A day, e.g. "24 Nov" (with the year when asked). */
export function formatDate(at: Date, culture: Lang, withYear = false): string {
  const key = `${culture}|${withYear}`;
  let f = dates.get(key);
  if (!f) {
    f = compiled(new Intl.DateTimeFormat(LOCALES[culture], dateOptions(withYear)));
    dates.set(key, f);
  }
  return f(at);
}

const numberMemos: Record<Lang, Kept<number, string>> = { is: new Kept(MEMO_LIMIT), en: new Kept(MEMO_LIMIT) };

export function formatNumber(n: number, culture: Lang): string {
  return numberMemos[culture].get(n, () => kept(numbers, culture, () => new Intl.NumberFormat(LOCALES[culture])).format(n));
}

// Money written by a page's script exactly as the server writes it. The browser's own Intl may lack
// the page's language (Debian's Chromium formats Icelandic as English: "ISK 0" for "0 kr."), so the
// server sends, per currency, how its language writes 1 234 567 whole and with 89 cents, and the
// script writes every amount after that pattern.

/** How a language writes one currency: 1 234 567 whole, and 1 234 567 with 89 cents. */
export type MoneySample = readonly [whole: string, withCents: string];

export function moneySample(currency: string, lang: Lang): MoneySample {
  return [formatMoney(123456700, currency, lang), formatMoney(123456789, currency, lang)];
}

/**
 * An amount in minor units written after the sample: the sample's text before the digits, its group
 * sign, its decimal sign (when the amount shows decimals) and the text after. Self-contained (no
 * imports, nothing from this module's scope): pages send its source text to the browser.
 */
export function writeMoney(sample: MoneySample | undefined, currency: string, minor: number): string {
  const exact = minor % 100 === 0;
  const parts = sample ? /^(.*?)1(\D*)234\D*567(?:(\D+)\d\d)?(\D*)$/.exec(exact ? sample[0] : sample[1]) : null;
  if (!parts) return `${(minor / 100).toFixed(2)} ${currency}`;
  const [, before = '', group = '', decimal, after = ''] = parts;
  const abs = Math.abs(minor);
  const units = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const cents = decimal === undefined ? '' : `${decimal}${String(abs % 100).padStart(2, '0')}`;
  return `${minor < 0 ? '-' : ''}${before}${units}${cents}${after}`;
}
