import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dateOptions, dateTimeOptions, formatDate, formatDateTime, formatMoney, formatNumber, isoTime, LOCALES } from '../../src/html/format.js';
import { messages, translator, type Lang } from '../../src/web/lang.js';

// The pages' formats are templates filled in, and amounts are kept once formatted: each must say
// exactly what Intl says, for any moment and any amount.

const CULTURES: readonly Lang[] = ['en', 'is'];

const dateTimeIntl = (culture: Lang, seconds: boolean): Intl.DateTimeFormat => new Intl.DateTimeFormat(LOCALES[culture], dateTimeOptions(seconds));

// From before year 1000 to after 9999 (those two go to Intl itself).
const moments = fc.integer({ min: Date.UTC(-500, 0, 1), max: Date.UTC(12000, 0, 1) }).map((ms) => new Date(ms));

describe('page formats', () => {
  it('formats a moment as Intl does, in both languages, with and without seconds', () => {
    for (const culture of CULTURES) {
      for (const seconds of [false, true]) {
        const intl = dateTimeIntl(culture, seconds);
        fc.assert(
          fc.property(moments, (at) => formatDateTime(at, culture, { seconds }) === intl.format(at)),
          { numRuns: 3000 },
        );
      }
    }
    // Spot checks a reader would recognise.
    expect(formatDateTime(new Date(Date.UTC(2026, 10, 24, 14, 3)), 'en')).toBe('24 Nov 2026, 14:03');
    expect(formatDateTime(new Date(Date.UTC(2026, 0, 5, 8, 7, 9)), 'is', { seconds: true })).toBe(
      dateTimeIntl('is', true).format(new Date(Date.UTC(2026, 0, 5, 8, 7, 9))),
    );
  });

  it('writes a moment as toISOString does, to the millisecond, in any year', () => {
    const anyMs = fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => new Date(ms));
    fc.assert(
      fc.property(fc.oneof(moments, anyMs), (at) => isoTime(at) === at.toISOString()),
      { numRuns: 20_000 },
    );
    // Leap days, ends of years and of centuries, the epoch and the moment before it.
    for (const ms of [
      0,
      -1,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(1900, 2, 1),
      Date.UTC(2100, 1, 28, 12),
      Date.UTC(2026, 11, 31, 23, 59, 59, 1),
      Date.UTC(1000, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ]) {
      expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
    }
  });

  it('formats a day as Intl does, with and without the year', () => {
    for (const culture of CULTURES) {
      for (const withYear of [false, true]) {
        const intl = new Intl.DateTimeFormat(LOCALES[culture], dateOptions(withYear));
        fc.assert(
          fc.property(moments, (at) => formatDate(at, culture, withYear) === intl.format(at)),
          { numRuns: 2000 },
        );
      }
    }
  });

  it('formats an amount as Intl does, again and again and after more amounts than it keeps', () => {
    const intl = (minor: number, currency: string, culture: Lang): string => {
      const whole = new Intl.NumberFormat(LOCALES[culture], { style: 'currency', currency });
      const cents = whole.resolvedOptions().maximumFractionDigits === 0 && minor % 100 !== 0;
      return (
        cents ? new Intl.NumberFormat(LOCALES[culture], { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }) : whole
      ).format(minor / 100);
    };
    for (const culture of CULTURES) {
      for (const currency of ['ISK', 'EUR', 'USD']) {
        // Many distinct amounts (more than are kept), then the same ones again.
        const amounts = Array.from({ length: 5000 }, (_, i) => i * 37 - 1000);
        for (const round of [0, 1]) {
          for (const minor of amounts)
            expect(formatMoney(minor, currency, culture), `${culture} ${currency} ${minor} round ${round}`).toBe(intl(minor, currency, culture));
        }
      }
      fc.assert(
        fc.property(fc.integer({ min: -1e12, max: 1e12 }), (n) => formatNumber(n, culture) === new Intl.NumberFormat(LOCALES[culture]).format(n)),
        { numRuns: 3000 },
      );
    }
    expect(formatMoney(48900, 'ISK', 'is')).toBe(intl(48900, 'ISK', 'is'));
    expect(formatMoney(48950, 'ISK', 'en')).toBe('ISK\u00a0489.50');
  });
});

describe('messages with an amount at the end of a sentence', () => {
  const t = translator(
    messages({ most: 'You may refund at most {amount}.', mid: '{amount} left' }, { most: 'Endurgreiða má mest {amount}.', mid: '{amount} eftir' }),
    'is',
  );
  it('end with one full stop when the amount ends with one (Icelandic krónur)', () => {
    expect(t('most', { amount: formatMoney(38800, 'ISK', 'is') })).toBe(`Endurgreiða má mest ${formatMoney(38800, 'ISK', 'is')}`);
    expect(t('most', { amount: formatMoney(38800, 'ISK', 'is') })).not.toMatch(/\.\.$/);
    expect(t('most', { amount: '€3.00' })).toBe('Endurgreiða má mest €3.00.');
    expect(t('mid', { amount: '388 kr.' })).toBe('388 kr. eftir');
  });
});
