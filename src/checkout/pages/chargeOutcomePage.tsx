import type { Checkoutable } from '../shopper.js';
import { formatMoney } from '../../html/format.js';
import { BackToShop, page, refreshTo, type PageContext } from './layout.js';

// The page at the end of a saved-card charge's 3-D Secure step.

/**
 * The end of a saved-card charge's 3-D Secure step: paid or not, then back to the shop's returnUrl
 * (Continue, or by itself after a few seconds).
 */
export function renderChargeOutcome(ctx: PageContext, c: Checkoutable, paid: { amount: number; currency: string } | null, returnUrl: string): string {
  const { t } = ctx;
  const title = paid ? t('receiptTitle') : t('chargeFailedTitle');
  const text = paid ? t('receiptPaid', { amount: formatMoney(paid.amount, paid.currency, ctx.lang), merchant: c.merchantName }) : t('chargeFailed');
  const body = (
    <>
      <h1 class={paid ? 'success' : undefined}>{title}</h1>
      <p role="status">{text}</p>
      <BackToShop ctx={ctx} url={returnUrl} />
    </>
  );
  return page(ctx, c, title, body, refreshTo(returnUrl));
}
