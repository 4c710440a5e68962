import type { Html } from '../../html/jsx-runtime.js';
import { formatMoney } from '../../html/format.js';
import type { ShopperRefusal } from '../promotion.js';
import { FORM_TOKEN_FIELD } from '../../web/formTokens.js';
import type { Checkoutable } from '../shopper.js';
import type { DiscountTerms } from '../../promotionCodes/discount.js';
import type { MessageKey } from './i18n.js';
import type { PageContext } from './layout.js';
import { quantityName } from './quantityChoice.js';

// The promotion code on a link's payment page (docs/api.md, Promotion codes): a form of its own with an
// Apply button that posts and gets the page again with the new total and the code kept (no script
// needed), the discount and the new total under the order, and the applied code carried by the
// payment's form, for the payment to decide on.

/**
 * The code on the page: what the shopper typed, and what it does (applied) or why it does not
 * (refusal; 'throttled' when too many codes were refused here and this one was not looked at, with
 * the seconds until codes are taken again).
 */
export interface PromotionView {
  code: string;
  applied: { discount: number; total: number; terms: DiscountTerms } | null;
  refusal: ShopperRefusal | 'throttled' | null;
  retryAfterSeconds?: number;
}

/** The form's action that applies a code instead of paying. */
export const APPLY_CODE_ACTION = 'applyCode';
/** The button beside an applied code that takes it off again (the page's total is then the full one). */
export const REMOVE_CODE_FIELD = 'removeCode';

const REFUSAL: Record<ShopperRefusal | 'throttled', MessageKey> = {
  invalid: 'promoUnknown',
  notAllowed: 'promoNotAllowed',
  expired: 'promoExpired',
  exhausted: 'promoExhausted',
  throttled: 'promoThrottled',
};

/** What the shopper pays: the total after the code when one applies. */
export function payableAmount(c: Checkoutable, promotion: PromotionView | undefined): number {
  return promotion?.applied?.total ?? c.amount;
}

/** The code box and its Apply button, with what the code did; nothing when the link takes no codes. */
export function PromotionCodeForm(p: { ctx: PageContext; c: Checkoutable; csrf: string; promotion: PromotionView | undefined }): Html | null {
  const { ctx, c, promotion } = p;
  if (!c.allowPromotionCodes) return null;
  const { t } = ctx;
  const refusal = promotion?.refusal ?? null;
  const applied = promotion?.applied ?? null;
  const described = refusal !== null ? 'promotionCode-error' : applied !== null ? 'promotionCode-applied' : undefined;
  return (
    <form method="post" action={ctx.basePath} class="promo" data-promo-form="">
      <input type="hidden" name={FORM_TOKEN_FIELD} value={p.csrf} />
      <input type="hidden" name="lang" value={ctx.lang} />
      <input type="hidden" name="action" value={APPLY_CODE_ACTION} />
      {/* The quantities the page shows come with the code, so applying it keeps them (the page's script keeps them up to date as they are typed). */}
      {c.choice?.map((item, i) =>
        item.adjustableQuantity === undefined ? null : <input type="hidden" name={quantityName(i)} value={String(c.chosen?.[i] ?? item.quantity)} />,
      ) ?? null}
      <label for="promotionCode">
        {t('promoLabel')}
        <span class="tag">({t('optional')})</span>
      </label>
      <div class="promo-row">
        <input
          type="text"
          id="promotionCode"
          name="promotionCode"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck={false}
          maxLength={40}
          value={promotion?.code ?? ''}
          {...(refusal !== null ? { 'aria-invalid': 'true' as const } : {})}
          {...(described !== undefined ? { 'aria-describedby': described } : {})}
        />
        <button type="submit" class="secondary">
          {t('promoApply')}
        </button>
      </div>
      {refusal !== null ? (
        <p class="error" id="promotionCode-error" role="alert">
          {t(REFUSAL[refusal], { minutes: String(Math.max(1, Math.ceil((promotion?.retryAfterSeconds ?? 0) / 60))) })}
        </p>
      ) : applied !== null ? (
        <p class="success" id="promotionCode-applied" role="status">
          {t('promoApplied', { code: promotion?.code ?? '' })}
        </p>
      ) : null}
      {applied !== null || refusal !== null ? (
        <button type="submit" class="link-button" name={REMOVE_CODE_FIELD} value="1">
          {t('promoRemove')}
        </button>
      ) : null}
    </form>
  );
}

/** The discount and the new total under the order, when a code applies. */
export function PromotionTotal({ ctx, c, promotion }: { ctx: PageContext; c: Checkoutable; promotion: PromotionView | undefined }): Html | null {
  const applied = promotion?.applied ?? null;
  if (!c.allowPromotionCodes || applied === null || !promotion) return null;
  const { t } = ctx;
  return (
    <dl class="discount" data-discount="">
      <dt>{t('promoDiscount', { code: promotion.code })}</dt>
      <dd class="num" data-discount-amount="">
        −{formatMoney(applied.discount, c.currency, ctx.lang)}
      </dd>
      <dt class="new-total">{t('promoNewTotal')}</dt>
      <dd class="num new-total" data-new-total="">
        {formatMoney(applied.total, c.currency, ctx.lang)}
      </dd>
    </dl>
  );
}

/** The applied code, carried by the payment's form: the payment decides on it again. */
export function PromotionCodeCarried({ promotion }: { promotion: PromotionView | undefined }): Html | null {
  return promotion?.applied ? <input type="hidden" name="promotionCode" value={promotion.code} /> : null;
}
