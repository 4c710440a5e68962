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
}

/** The receipt; then the shopper goes back to returnUrl (Continue, or by itself after a few seconds). */
export function renderReceipt(ctx: PageContext, c: Checkoutable, r: ReceiptData): string {
  const { t } = ctx;
  const saved = c.tokenize && r.amount === 0;
  const back = c.returnUrl;
  const title = saved ? t('receiptTitleToken') : t('receiptTitle');
  const body = (
    <>
      <h1 class="success">{title}</h1>
      <p role="status">
        {saved
          ? t('receiptSaved', { merchant: c.merchantName })
          : t('receiptPaid', { amount: formatMoney(r.amount, r.currency, ctx.lang), merchant: c.merchantName })}
      </p>
      <dl>
        <dt>{t('receiptCard')}</dt>
        <dd>
          {r.paymentMethod.toUpperCase()} •••• {r.cardSummary}
        </dd>
        <dt>{t('receiptReference')}</dt>
        <dd data-payfac-reference="">{r.payfacReference}</dd>
      </dl>
      {back ? <BackToShop ctx={ctx} url={back} /> : null}
    </>
  );
  return page(ctx, c, title, body, back ? refreshTo(back) : undefined);
}
