import type { Checkoutable } from '../shopper.js';
import { formatMoney } from '../../html/format.js';
import { BackToShop, page, refreshTo, type PageContext } from './layout.js';

// The receipt after a payment.

export interface ReceiptData {
  payfacReference: string;
  amount: number;
  currency: string;
  cardSummary: string;
  paymentMethod: string;
  token: string | null;
  /** The promotion code that took `discount` off the price; null: none. */
  promotionCode: string | null;
  discount: number | null;
}

/** The receipt; then the shopper goes back to returnUrl (Continue, or by itself after a few seconds). */
export function renderReceipt(ctx: PageContext, c: Checkoutable, r: ReceiptData): string {
  const { t } = ctx;
  const saved = c.tokenize && r.amount === 0;
  const back = c.returnUrl;
  // The merchant's own message waits for the shopper to read it: no going back to the shop by itself.
  const message = c.completionMessage;
  const title = saved ? t('receiptTitleToken') : t('receiptTitle');
  const body = (
    <>
      <h1 class="success">{title}</h1>
      <p role="status">
        {saved
          ? t('receiptSaved', { merchant: c.merchantName })
          : t('receiptPaid', { amount: formatMoney(r.amount, r.currency, ctx.lang), merchant: c.merchantName })}
      </p>
      {message !== null ? (
        <section class="notice" aria-label={t('merchantMessage', { merchant: c.merchantName })}>
          <p class="merchant-message" data-completion-message="">
            {message}
          </p>
        </section>
      ) : null}
      <dl>
        {r.promotionCode !== null && r.discount !== null ? (
          <>
            <dt>{t('promoDiscount', { code: r.promotionCode })}</dt>
            <dd data-discount="">−{formatMoney(r.discount, r.currency, ctx.lang)}</dd>
          </>
        ) : null}
        <dt>{t('receiptCard')}</dt>
        <dd>
          {r.paymentMethod.toUpperCase()} •••• {r.cardSummary}
        </dd>
        <dt>{t('receiptReference')}</dt>
        <dd data-payfac-reference="">{r.payfacReference}</dd>
      </dl>
      {back && message === null ? <BackToShop ctx={ctx} url={back} /> : null}
      {back && message !== null ? (
        <a class="button" href={back} rel="noreferrer">
          {t('continue')}
        </a>
      ) : null}
    </>
  );
  return page(ctx, c, title, body, back && message === null ? refreshTo(back) : undefined);
}
