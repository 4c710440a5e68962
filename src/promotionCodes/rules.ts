import type { FieldError } from '../errors.js';

// The rules of a promotion code that a schema cannot say (docs/api.md, Promotion codes): one of
// percentOff and amountOff, a currency with a fixed amount only, ISK fixed amounts in whole krónur; and
// whether a code may be used on a payment now.

/** A code as the shopper types it: letters, digits, '-' and '_', 1–40 characters; matched without regard to case. */
export const CODE_PATTERN = '^[A-Za-z0-9_-]{1,40}$';
const CODE_RE = new RegExp(CODE_PATTERN);

export function isPlausibleCode(v: string): boolean {
  return CODE_RE.test(v);
}

/** What a shopper typed, as it is looked up: without the spaces around it. */
export function normalizeTypedCode(v: string | null | undefined): string {
  return (v ?? '').trim();
}

/** percentOff, amountOff and currency together (create). */
export function discountErrors(body: { percentOff?: unknown; amountOff?: unknown; currency?: unknown }): FieldError[] {
  const errors: FieldError[] = [];
  const hasPercent = body.percentOff !== undefined;
  const hasAmount = body.amountOff !== undefined;
  if (hasPercent && hasAmount) {
    errors.push({ field: 'amountOff', code: 'NOT_ALLOWED', message: 'send percentOff or amountOff, not both' });
  } else if (!hasPercent && !hasAmount) {
    errors.push({ field: 'percentOff', code: 'REQUIRED', message: 'one of percentOff and amountOff is required' });
  }
  if (hasAmount && body.currency === undefined) {
    errors.push({ field: 'currency', code: 'REQUIRED', message: 'is required with amountOff' });
  }
  if (!hasAmount && body.currency !== undefined) {
    errors.push({ field: 'currency', code: 'NOT_ALLOWED', message: 'is allowed only with amountOff (a percentage applies in any currency)' });
  }
  if (hasAmount && body.currency === 'ISK' && typeof body.amountOff === 'number' && body.amountOff % 100 !== 0) {
    errors.push({ field: 'amountOff', code: 'NOT_MULTIPLE_OF_100', message: 'must end in 00 for ISK' });
  }
  return errors;
}

/** Why a code cannot be used on a payment (the shopper reads each in their language). */
export type PromotionRefusal = 'unknown' | 'notAllowed' | 'inactive' | 'expired' | 'exhausted' | 'currency';

export interface UsableCode {
  active: boolean;
  expiresAt: Date | null;
  maxRedemptions: number | null;
  redemptionCount: number;
  amountOff: number | null;
  currency: string | null;
}

/** Whether a code can be used now on a payment in `currency`: null when it can, else why not. */
export function refusalOf(code: UsableCode | undefined, currency: string, now: Date): PromotionRefusal | null {
  if (!code) return 'unknown';
  if (!code.active) return 'inactive';
  if (code.expiresAt !== null && code.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (code.maxRedemptions !== null && code.redemptionCount >= code.maxRedemptions) return 'exhausted';
  if (code.amountOff !== null && code.currency !== currency) return 'currency';
  return null;
}
