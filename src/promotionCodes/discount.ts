// What a promotion code takes off an amount (docs/rules.md, §Promotion codes): a pure function of the
// amount before the discount and its currency, so that whatever makes that amount (a link's total, or a
// total the shopper changed) composes with it. Amounts are minor units.

/** The least a payment charges in a currency: one minor unit, for ISK a whole króna (100; ISK amounts end in 00). */
export function minimumCharge(currency: string): number {
  return currency === 'ISK' ? 100 : 1;
}

/** A code's discount: a percentage (1–100) or a fixed amount in minor units; exactly one of them. */
export interface DiscountTerms {
  percentOff: number | null;
  amountOff: number | null;
}

export interface Discounted {
  /** What is taken off, base − total. */
  discount: number;
  /** What the shopper pays. */
  total: number;
}

/**
 * The total after the discount:
 * - a percentage is taken off and the total rounded half up to the minor unit (ISK: to whole krónur,
 *   so the total ends in 00 as every ISK amount does; 5 % off 48 900 is 46 455, which becomes 46 500);
 * - a fixed amount is taken off as it is (an ISK fixed amount ends in 00, so the total does too);
 * - the total never goes below the currency's minimum charge: a discount as large as the amount, or
 *   larger, leaves the minimum to pay. An amount already at or below the minimum is not discounted.
 */
export function applyDiscount(base: number, currency: string, terms: DiscountTerms): Discounted {
  const min = minimumCharge(currency);
  if (base <= min) return { discount: 0, total: base };
  let total: number;
  if (terms.percentOff !== null) {
    const kept = 100 - terms.percentOff;
    // base × kept / 100, rounded half up to `unit` minor units, in integers (exact: base ≤ 10^11).
    const unit = currency === 'ISK' ? 100 : 1;
    total = Math.floor((base * kept + 50 * unit) / (100 * unit)) * unit;
  } else {
    total = base - (terms.amountOff ?? 0);
  }
  total = Math.min(base, Math.max(min, total));
  return { discount: base - total, total };
}
