import type { Checkoutable } from '../shopper.js';
import type { CardSummary } from '../../payments/card.js';
import { formatMoney } from '../../html/format.js';
import { FORM_TOKEN_FIELD } from '../../web/formTokens.js';
import { page, type PageContext } from './layout.js';

// The simulated issuer's 3-D Secure step (§The simulated acquirer).

/** The simulated issuer's 3-D Secure step (§The simulated acquirer). */
export function renderThreeDSPage(ctx: PageContext, c: Checkoutable, card: CardSummary, challengeId: string, csrf: string): string {
  const { t } = ctx;
  const intro =
    c.tokenize && c.amount === 0
      ? t('threeDIntroToken', { last4: card.last4 })
      : t('threeDIntro', { amount: formatMoney(c.amount, c.currency, ctx.lang), last4: card.last4 });
  const body = (
    <>
      <h1>{t('threeDTitle')}</h1>
      <p>{intro}</p>
      <p class="notice">{t('threeDSimulated')}</p>
      <form method="post" action={`${ctx.basePath}/3ds`}>
        <input type="hidden" name={FORM_TOKEN_FIELD} value={csrf} />
        <input type="hidden" name="lang" value={ctx.lang} />
        <input type="hidden" name="challenge" value={challengeId} />
        <button type="submit" name="action" value="confirm">
          {t('confirm')}
        </button>
        <button type="submit" name="action" value="cancel" class="secondary">
          {t('threeDCancel')}
        </button>
      </form>
    </>
  );
  return page(ctx, c, t('threeDTitle'), body);
}
