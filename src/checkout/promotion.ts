import type { Queryable } from '../db/database.js';
import { lockPromotion, quotePromotion, type AppliedPromotion, type PromotionRefusal } from '../promotionCodes/service.js';
import type { Checkoutable } from './shopper.js';

// A promotion code on a link's payment page (docs/api.md, Promotion codes): what the shopper's code does
// to the amount before the discount, when the link takes codes. One rule (quoteOf in the promotion
// codes' service): the page's Apply shows what it does now, read without a lock; the payment decides
// on the locked code, in its own transaction.

export type CheckoutPromotion = { applied: AppliedPromotion | null } | { refusal: PromotionRefusal };

const NONE: CheckoutPromotion = { applied: null };

function typedCode(typed: string | null | undefined): string {
  return (typed ?? '').trim();
}

/** What a code typed on the page does to `base` now (the page's Apply). A blank code is no code. */
export function quoteCheckoutPromotion(q: Queryable, c: Checkoutable, base: number, typed: string | null | undefined, now: Date): Promise<CheckoutPromotion> {
  return decide(quotePromotion, q, c, base, typed, now);
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
