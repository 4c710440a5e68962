import { describe, expect, it } from 'vitest';
import type { Checkoutable } from '../../src/checkout/shopper.js';
import { pageTranslator } from '../../src/checkout/pages/i18n.js';
import type { Lang } from '../../src/web/lang.js';
import { renderChargeOutcome } from '../../src/checkout/pages/chargeOutcomePage.js';
import type { PageContext } from '../../src/checkout/pages/layout.js';
import { renderMessage } from '../../src/checkout/pages/messagePage.js';
import { renderPayPage, renderPayPreview } from '../../src/checkout/pages/payPage.js';
import { renderReceipt } from '../../src/checkout/pages/receiptPage.js';
import { renderStatusPage } from '../../src/checkout/pages/statusPage.js';
import { renderThreeDSPage } from '../../src/checkout/pages/threeDSPage.js';
import { paidMail, receiptMail, type PaidFacts } from '../../src/mail/messages.js';

// Every shopper page, rendered with a hostile value in every field it shows (what a merchant types
// into a description, item name, return URL or prefilled shopper field, what a shopper types back, a
// reference in the path): none of them reaches the HTML unescaped. The portal's pages are checked
// through the app in test/portal/pagesEscape.test.ts.

const HOSTILE = `x"'><script>alert(1)</script><img src=x onerror=alert(2)>`;
const HOSTILE_URL = `https://shop.example/back?a="><script>alert(3)</script>&b='x'`;

function checkoutable(over: Partial<Checkoutable> = {}): Checkoutable {
  return {
    kind: 'link',
    reference: 'pl_abc',
    merchantId: 'mch_1',
    merchantName: HOSTILE,
    terminalIdentifier: 'T1',
    description: HOSTILE,
    amount: 48900,
    currency: 'ISK',
    culture: 'en',
    themeKey: HOSTILE,
    items: [{ name: HOSTILE, quantity: 2, unitPrice: 24950, amountWithoutDiscount: 49900, amount: 48900 }],
    shopperInfos: [
      { field: 'FullName', requirementType: 'Required', prefilledValue: null },
      { field: 'City', requirementType: 'Prefilled', prefilledValue: HOSTILE },
      { field: 'Comments', requirementType: 'Optional', prefilledValue: null },
    ],
    returnUrl: HOSTILE_URL,
    cancelUrl: HOSTILE_URL,
    tokenize: false,
    recurringProcessingModel: null,
    shopperEmail: HOSTILE,
    status: 'Active',
    payable: true,
    merchantReference: HOSTILE,
    checkoutReference: null,
    preAuth: false,
    manualCapture: false,
    captureHoursDelay: null,
    merchantShopperReference: null,
    completionMessage: HOSTILE,
    inactiveMessage: HOSTILE,
    termsUrl: HOSTILE_URL,
    customFields: [
      { key: 'note', type: 'Text', label: HOSTILE, labelEn: HOSTILE, required: true, maxLength: 255, options: null },
      { key: 'size', type: 'Dropdown', label: HOSTILE, labelEn: null, required: false, maxLength: null, options: [HOSTILE, 'M'] },
      { key: 'count', type: 'Number', label: HOSTILE, labelEn: null, required: false, maxLength: null, options: null },
    ],
    // An adjustable item named with the hostile value: its label, and its quantity typed back.
    choice: [{ name: HOSTILE, quantity: 2, unitPrice: 24950, amountWithoutDiscount: 49900, amount: 48900, adjustableQuantity: { minimum: 0, maximum: 5 } }],
    chosen: null,
    allowPromotionCodes: true,
    emailReceipts: true,
    placesLeft: null,
    ...over,
  };
}

function ctx(lang: Lang): PageContext {
  return { lang, t: pageTranslator(lang), basePath: `/pay/${encodeURIComponent(HOSTILE)}` };
}

/** The markup a hostile value would add if it were not escaped. */
function unescaped(html: string): string[] {
  const found: string[] = [];
  if (/<script>alert/.test(html)) found.push('<script> from a value');
  if (/<img src=x/.test(html)) found.push('<img> from a value');
  // A value that broke out of a double-quoted attribute would leave `"'>` or `">` right after it.
  if (/x"'>/.test(html) || /="[^"]*"><script/.test(html)) found.push('a quote that ended an attribute');
  if (/&b='x'/.test(html) && !/&amp;b='x'/.test(html)) found.push('a raw & in a URL');
  return found;
}

const mailFacts: PaidFacts = {
  merchantName: HOSTILE,
  order: HOSTILE,
  items: [{ name: HOSTILE, quantity: 1, amount: 48900 }],
  discount: { code: HOSTILE, amount: 4890 },
  amount: 48900,
  currency: 'ISK',
  paymentMethod: HOSTILE,
  cardLast4: HOSTILE,
  payfacReference: HOSTILE,
  paidAt: new Date('2026-11-24T14:03:00Z'),
  shopperEmail: HOSTILE,
};

describe('shopper pages escape every value they show', () => {
  for (const culture of ['en', 'is'] as const) {
    it(`in ${culture}: pay page (with errors and shown-again values, and in a theme), status, 3-D Secure, receipt, charge outcome, message, theme preview, receipt e-mails`, () => {
      const c = checkoutable({ culture });
      const k = ctx(culture);
      const pages = {
        pay: renderPayPage(k, c, HOSTILE, {
          values: {
            FullName: HOSTILE,
            Comments: HOSTILE,
            expiryDate: HOSTILE,
            'custom-note': HOSTILE,
            'custom-size': HOSTILE,
            'custom-count': HOSTILE,
            'qty-0': HOSTILE,
          },
          errors: { 'shopper-FullName': 'errRequired', cardNumber: 'errCardNumber', 'qty-0': 'errQuantity', quantities: 'errNothingLeft' },
          alert: HOSTILE,
          customProblems: { note: 'tooLong', count: 'notNumber' },
          status: HOSTILE,
        }),
        // A code the shopper typed, applied (its discount and new total) and refused.
        promoApplied: renderPayPage(k, c, HOSTILE, {
          values: {},
          errors: {},
          alert: null,
          promotion: { code: HOSTILE, applied: { discount: 4900, total: 44000, terms: { percentOff: 10, amountOff: null } }, refusal: null },
        }),
        promoRefused: renderPayPage(k, c, HOSTILE, {
          values: {},
          errors: {},
          alert: HOSTILE,
          promotion: { code: HOSTILE, applied: null, refusal: 'invalid' },
        }),
        session: renderPayPage(k, checkoutable({ kind: 'session', description: '', culture }), HOSTILE, { values: {}, errors: {}, alert: null }),
        status: renderStatusPage(k, checkoutable({ status: 'Expired', payable: false, culture })),
        threeDS: renderThreeDSPage(k, c, { masked: HOSTILE, last4: HOSTILE, expiry: HOSTILE, paymentMethod: HOSTILE }, HOSTILE, HOSTILE),
        receipt: renderReceipt(k, c, {
          payfacReference: HOSTILE,
          amount: 48900,
          currency: 'ISK',
          cardSummary: HOSTILE,
          paymentMethod: HOSTILE,
          token: null,
          promotionCode: HOSTILE,
          discount: 4890,
        }),
        charge: renderChargeOutcome(k, c, { amount: 4900, currency: 'EUR' }, HOSTILE_URL),
        message: renderMessage(k, c, 'notFoundTitle', 'notFound', { href: HOSTILE_URL, label: 'continue' }),
        // A merchant's theme (its stylesheet and logo), and the portal's preview of it with a note.
        themed: renderPayPage({ ...k, theme: { stylesheet: `/assets/themes/${HOSTILE}/theme.css`, logo: `/assets/themes/${HOSTILE}/logo` } }, c, HOSTILE, {
          values: {},
          errors: {},
          alert: null,
        }),
        preview: renderPayPreview({ ...k, theme: { stylesheet: HOSTILE_URL, logo: HOSTILE_URL } }, c, HOSTILE),
        // The e-mails a payment sends (docs/mail.md): the shopper's receipt and the owner's notice.
        receiptMail: receiptMail(culture, mailFacts).html,
        paidMail: paidMail(culture, mailFacts).html,
      };
      for (const [name, html] of Object.entries(pages)) {
        expect(unescaped(html), name).toEqual([]);
        // The hostile text is there, escaped: the page did show the value.
        expect(html, name).toContain('&lt;script>alert(1)&lt;/script>');
      }
    });
  }

  it('the check finds markup that was not escaped (it can fail)', () => {
    expect(unescaped(`<p>${HOSTILE}</p>`)).not.toEqual([]);
    expect(unescaped(`<a href="${HOSTILE_URL}">`)).not.toEqual([]);
  });
});
