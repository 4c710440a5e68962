import type { Queryable } from '../db/database.js';
import { lockPromotion, quotePromotion, type AppliedPromotion, type PromotionRefusal } from '../promotionCodes/service.js';
import type { Checkoutable } from './shopper.js';
import { codeApplied, takeCodeAttempt } from './codeThrottle.js';

// A promotion code on a link's payment page (docs/api.md, Promotion codes): what the shopper's code does
// to the amount before the discount, when the link takes codes. One rule (quoteOf in the promotion
// codes' service): the page's Apply shows what it does now, read without a lock; the payment decides
// on the locked code, in its own transaction.

export type CheckoutPromotion = { applied: AppliedPromotion | null } | { refusal: PromotionRefusal };

/**
 * Why a typed code does nothing, as the shopper is told. A code that does not exist, another
 * merchant's, one for another currency and one the merchant turned off get the same answer, so that
 * a page that takes codes tells nobody which of the merchant's codes exist. An expired or used-up code
 * says so: the shopper who was given it learns why, and a guesser learns of a code that pays nothing.
 */
export type ShopperRefusal = 'invalid' | 'notAllowed' | 'expired' | 'exhausted';

const SHOPPER_REFUSAL: Record<PromotionRefusal, ShopperRefusal> = {
  unknown: 'invalid',
  inactive: 'invalid',
  currency: 'invalid',
  notAllowed: 'notAllowed',
  expired: 'expired',
  exhausted: 'exhausted',
};

/** What a code typed on a page does, as the page shows it: applied, refused, or not looked at because too many were refused. */
export type TypedCode = { applied: AppliedPromotion } | { refusal: ShopperRefusal } | { throttledForSeconds: number };

const NONE: CheckoutPromotion = { applied: null };

function typedCode(typed: string | null | undefined): string {
  return (typed ?? '').trim();
}

/**
 * What a code typed on the page does to `base` now (the page's Apply, and the payment's form before it
 * pays), read without a lock; undefined for a blank code. Held to the pay pages' limits on refused
 * codes (./codeThrottle.ts): past one, the code is not looked at; each refusal counts. `counted`
 * false: the page shows again why a code it already took no longer applies (a payment that lost the
 * race for a code's last use), which is no guess of the shopper's.
 */
export async function quoteTypedCode(
  q: Queryable,
  c: Checkoutable,
  base: number,
  typed: string | null | undefined,
  from: { address: string; now: Date; counted?: boolean },
): Promise<TypedCode | undefined> {
  if (typedCode(typed) === '') return undefined;
  if (!c.allowPromotionCodes) return { refusal: 'notAllowed' };
  const counted = from.counted !== false;
  const attempt = { merchantId: c.merchantId, link: `${c.kind}:${c.reference}`, address: from.address };
  if (counted) {
    const throttledForSeconds = await takeCodeAttempt(q, from.now, attempt);
    if (throttledForSeconds > 0) return { throttledForSeconds };
  }
  const quote = await decide(quotePromotion, q, c, base, typed, from.now);
  if ('refusal' in quote) return { refusal: SHOPPER_REFUSAL[quote.refusal] };
  if (counted) await codeApplied(q, attempt);
  return quote.applied ? { applied: quote.applied } : undefined;
}

/** The same decision on the code locked for this payment (inside its transaction, after the link's lock). */
export function lockCheckoutPromotion(tx: Queryable, c: Checkoutable, base: number, typed: string | null | undefined, now: Date): Promise<CheckoutPromotion> {
  return decide(lockPromotion, tx, c, base, typed, now);
}

async function decide(
  read: typeof quotePromotion,
  q: Queryable,
  c: Checkoutable,
  base: number,
  typed: string | null | undefined,
  now: Date,
): Promise<CheckoutPromotion> {
  const code = typedCode(typed);
  if (code === '') return NONE;
  if (!c.allowPromotionCodes) return { refusal: 'notAllowed' };
  const quote = await read(q, { merchantId: c.merchantId, typed: code, base, currency: c.currency, now });
  return quote.ok ? { applied: quote.applied } : { refusal: quote.refusal };
}
