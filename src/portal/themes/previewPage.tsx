import type { Lang } from '../../web/lang.js';
import { PLAIN_CHECKOUT, pageTranslator, renderPayPreview, type Checkoutable } from '../../checkout/preview.js';
import { themeAssets, type Theme } from '../../themes/service.js';
import { translator } from '../i18n.js';
import { PORTAL } from '../views/layout.js';
import { SAMPLE } from './formPage.js';
import { M } from './messages.js';

// The whole payment page in a saved theme, with sample data.

/** The payment page's data for a preview: a sample line in the reader's language, the merchant's name. */
function sample(theme: Theme, merchantName: string, lang: Lang): Checkoutable {
  const item = translator(M, lang)('sampleItem');
  return {
    kind: 'link',
    reference: 'preview',
    merchantId: '',
    merchantName,
    terminalIdentifier: '',
    description: item,
    amount: SAMPLE.amount,
    currency: SAMPLE.currency,
    culture: lang,
    themeKey: theme.themeKey,
    items: [{ name: item, quantity: 1, unitPrice: SAMPLE.amount, amountWithoutDiscount: null, amount: SAMPLE.amount }],
    shopperInfos: [
      { field: 'FullName', requirementType: 'Required', prefilledValue: null },
      { field: 'EmailAddress', requirementType: 'Optional', prefilledValue: null },
    ],
    returnUrl: null,
    cancelUrl: null,
    ...PLAIN_CHECKOUT,
    status: 'Active',
    payable: true,
    merchantReference: 'preview',
    checkoutReference: null,
  };
}

/** The whole payment page in a saved theme, its own components with sample data, in the language asked for (the page's switch works). */
export function renderThemePreview(lang: Lang, theme: Theme, merchantName: string): string {
  const t = translator(M, lang);
  const path = `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}`;
  const ctx = { lang, t: pageTranslator(lang), basePath: `${path}/preview`, theme: themeAssets(theme) };
  const note = (
    <>
      {t('previewNote', { name: theme.name })} <a href={`${path}/edit`}>{t('previewBack')}</a>
    </>
  );
  return renderPayPreview(ctx, sample(theme, merchantName, lang), note);
}
