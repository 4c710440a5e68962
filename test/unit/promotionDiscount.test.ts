import { describe, expect, it } from 'vitest';
import { applyDiscount, minimumCharge } from '../../src/promotionCodes/discount.js';
import { refusalOf } from '../../src/promotionCodes/rules.js';

// What a promotion code takes off (docs/rules.md, §Promotion codes): percentages rounded half up to the
// minor unit, ISK to whole krónur so the total ends in 00, never below the currency's minimum charge.

const pct = (percentOff: number) => ({ percentOff, amountOff: null });
const off = (amountOff: number) => ({ percentOff: null, amountOff });

describe('applyDiscount', () => {
  it('ISK totals end in 00: a percentage is rounded half up to whole krónur', () => {
    expect(applyDiscount(48900, 'ISK', pct(10))).toEqual({ discount: 4900, total: 44000 }); // 440.10 kr. → 440 kr.
    expect(applyDiscount(48900, 'ISK', pct(5))).toEqual({ discount: 2400, total: 46500 }); // 464.55 kr. → 465 kr.
    expect(applyDiscount(100, 'ISK', pct(50))).toEqual({ discount: 0, total: 100 }); // at the minimum already
    expect(applyDiscount(300, 'ISK', pct(50))).toEqual({ discount: 100, total: 200 }); // 1.50 kr. → 2 kr. (half up)
    for (let base = 100; base <= 200_000; base += 700) {
      for (const p of [1, 3, 7, 25, 33, 50, 99, 100]) {
        const { total, discount } = applyDiscount(base, 'ISK', pct(p));
        expect(total % 100, `${p} % of ${base}`).toBe(0);
        expect(total + discount).toBe(base);
        expect(total).toBeGreaterThanOrEqual(100);
      }
    }
  });

  it('other currencies round half up to the minor unit', () => {
    expect(applyDiscount(12345, 'EUR', pct(10))).toEqual({ discount: 1234, total: 11111 }); // 111.105 → 111.11: the total is rounded half up
    expect(applyDiscount(999, 'USD', pct(33))).toEqual({ discount: 330, total: 669 }); // 669.33 → 669
    expect(applyDiscount(5000, 'EUR', off(1250))).toEqual({ discount: 1250, total: 3750 });
  });

  it('never below the minimum charge of the currency', () => {
    expect(minimumCharge('ISK')).toBe(100);
    expect(minimumCharge('EUR')).toBe(1);
    expect(applyDiscount(48900, 'ISK', pct(100))).toEqual({ discount: 48800, total: 100 });
    expect(applyDiscount(48900, 'ISK', off(100_000))).toEqual({ discount: 48800, total: 100 });
    expect(applyDiscount(500, 'EUR', pct(100))).toEqual({ discount: 499, total: 1 });
    expect(applyDiscount(500, 'EUR', off(500))).toEqual({ discount: 499, total: 1 });
  });
});

describe('refusalOf', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const code = { active: true, expiresAt: null, maxRedemptions: null, redemptionCount: 0, amountOff: null, currency: null };
  it('names why a code cannot be used, and null when it can', () => {
    expect(refusalOf(code, 'ISK', now)).toBeNull();
    expect(refusalOf(undefined, 'ISK', now)).toBe('unknown');
    expect(refusalOf({ ...code, active: false }, 'ISK', now)).toBe('inactive');
    expect(refusalOf({ ...code, expiresAt: now }, 'ISK', now)).toBe('expired');
    expect(refusalOf({ ...code, maxRedemptions: 5, redemptionCount: 5 }, 'ISK', now)).toBe('exhausted');
    expect(refusalOf({ ...code, maxRedemptions: 5, redemptionCount: 4 }, 'ISK', now)).toBeNull();
    expect(refusalOf({ ...code, amountOff: 500, currency: 'EUR' }, 'ISK', now)).toBe('currency');
    expect(refusalOf({ ...code, amountOff: 500, currency: 'EUR' }, 'EUR', now)).toBeNull();
  });
});
