import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { DEFAULT_FEE, cutoffAfter, cutoffAtOrBefore, feeOf } from '../../src/settlements/rules.js';

// The arithmetic of settlements (docs/api.md, Settlements): cut-offs and fees, ISK's whole krónur.

describe('cut-offs', () => {
  it('falls at midnight UTC by default and at the configured time of day otherwise', () => {
    expect(parseConfig({}).settlementCutoffMinutes).toBe(0);
    expect(parseConfig({ PAYLINKS_SETTLEMENT_CUTOFF: '18:30' }).settlementCutoffMinutes).toBe(18 * 60 + 30);
    expect(() => parseConfig({ PAYLINKS_SETTLEMENT_CUTOFF: '24:00' })).toThrow(/PAYLINKS_SETTLEMENT_CUTOFF="24:00": must be a time of day in UTC as HH:MM/);
    const at = new Date('2026-03-10T09:15:00.000Z');
    expect(cutoffAtOrBefore(at, 0).toISOString()).toBe('2026-03-10T00:00:00.000Z');
    expect(cutoffAfter(at, 0).toISOString()).toBe('2026-03-11T00:00:00.000Z');
    expect(cutoffAtOrBefore(at, 18 * 60 + 30).toISOString()).toBe('2026-03-09T18:30:00.000Z');
    expect(cutoffAfter(at, 18 * 60 + 30).toISOString()).toBe('2026-03-10T18:30:00.000Z');
    // A cut-off itself: it is the latest at or before it, and the next is a day later.
    const midnight = new Date('2026-03-11T00:00:00.000Z');
    expect(cutoffAtOrBefore(midnight, 0)).toEqual(midnight);
    expect(cutoffAfter(midnight, 0).toISOString()).toBe('2026-03-12T00:00:00.000Z');
  });
});

describe('fees', () => {
  it('charges a capture its percentage, rounded half up, plus the fixed amount; a refund nothing', () => {
    const fee = { percentBp: 250, fixedAmount: 30 };
    expect(feeOf('Capture', 12345, 'EUR', fee)).toBe(309 + 30); // 308.625
    expect(feeOf('Capture', 100, 'EUR', { percentBp: 150, fixedAmount: 0 })).toBe(2); // 1.5 rounds up
    expect(feeOf('Capture', 99, 'EUR', { percentBp: 150, fixedAmount: 0 })).toBe(1); // 1.485
    expect(feeOf('Refund', 12345, 'EUR', fee)).toBe(0);
    expect(feeOf('Capture', 100_000_000_000, 'EUR', { percentBp: 10_000, fixedAmount: 0 })).toBe(100_000_000_000);
    expect(DEFAULT_FEE).toEqual({ percentBp: 150, fixedAmount: 0 });
  });

  it('rounds an ISK fee to whole krónur, so ISK nets end in 00', () => {
    expect(feeOf('Capture', 489900, 'ISK', DEFAULT_FEE)).toBe(7300); // 7348.5 → 7349 → 73 kr.
    expect(feeOf('Capture', 10000, 'ISK', DEFAULT_FEE)).toBe(200); // 150 → 2 kr. (half up)
    expect(feeOf('Capture', 9900, 'ISK', DEFAULT_FEE)).toBe(100); // 148.5 → 149 → 1 kr.
    expect(feeOf('Capture', 10000, 'ISK', { percentBp: 0, fixedAmount: 2500 })).toBe(2500);
    for (const amount of [100, 4900, 123400, 99_999_900]) expect(feeOf('Capture', amount, 'ISK', { percentBp: 275, fixedAmount: 100 }) % 100).toBe(0);
  });
});
