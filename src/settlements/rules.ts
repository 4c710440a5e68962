// The arithmetic of settlements (docs/api.md, Settlements): when the daily cut-offs fall, and what a line costs.

const DAY_MS = 86_400_000;

/** A merchant's fees in one currency: hundredths of a percent of a capture, plus a fixed amount in minor units. */
export interface Fee {
  percentBp: number;
  fixedAmount: number;
}

/** What a merchant pays in a currency it has no settings for (docs/api.md, Settlements: 1.50 % and nothing fixed). */
export const DEFAULT_FEE: Fee = { percentBp: 150, fixedAmount: 0 };

/** The latest daily cut-off at or before `at` (the cut-off is `minutes` after midnight UTC). */
export function cutoffAtOrBefore(at: Date, minutes: number): Date {
  const offset = minutes * 60_000;
  return new Date(Math.floor((at.getTime() - offset) / DAY_MS) * DAY_MS + offset);
}

/** The first daily cut-off after `at`. */
export function cutoffAfter(at: Date, minutes: number): Date {
  return new Date(cutoffAtOrBefore(at, minutes).getTime() + DAY_MS);
}

/** Half away from zero, in integers: exact for every amount the service takes (100,000,000,000 × 10,000 < 2^53). */
function percentOf(amount: number, bp: number): number {
  return Math.floor((amount * bp + 5_000) / 10_000);
}

/**
 * The fee of one line. A capture costs its percentage plus the fixed amount; a refund costs nothing and
 * gives no fee back. ISK amounts are whole krónur (they end in 00), so an ISK fee is rounded, half up,
 * to whole krónur too: the net of an ISK batch ends in 00 whenever its amounts do.
 */
export function feeOf(type: 'Capture' | 'Refund', amount: number, currency: string, fee: Fee): number {
  if (type === 'Refund') return 0;
  const raw = percentOf(amount, fee.percentBp) + fee.fixedAmount;
  return currency === 'ISK' ? Math.floor((raw + 50) / 100) * 100 : raw;
}
