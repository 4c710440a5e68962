import type { Checkoutable, DisplayLine } from '../shopper.js';
import type { CardSummary } from '../../payments/card.js';
import { formatMoney, formatQuantity } from './format.js';
import type { Culture, MessageKey, Translate } from './i18n.js';
import { themeClass } from './styles.js';

// The shopper's pages as server-rendered HTML: no script at all, so they work without JavaScript and
// under a CSP of default-src 'none'. Every input has a visible <label>; errors are tied to their
// input (aria-describedby) and announced (role=alert).

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export interface PageContext {
  culture: Culture;
  t: Translate;
  /** `/pay/{reference}` or `/checkout/{reference}`. */
  basePath: string;
}

export interface FormState {
  /** Shopper field values to show again (never the card number or CVC; the expiry may come back). */
  values: Record<string, string>;
  /** Field name → message; card fields are cardNumber, expiryDate, cvc. */
  errors: Partial<Record<string, MessageKey>>;
  /** A refusal or a summary of the errors. */
  alert: string | null;
}

export const EMPTY_FORM: FormState = { values: {}, errors: {}, alert: null };

const SHOPPER_FIELD_INPUT: Record<string, { label: MessageKey; type: string; autocomplete: string; inputmode?: string }> = {
  Ssn: { label: 'fieldSsn', type: 'text', autocomplete: 'off', inputmode: 'numeric' },
  FullName: { label: 'fieldFullName', type: 'text', autocomplete: 'name' },
  Address: { label: 'fieldAddress', type: 'text', autocomplete: 'street-address' },
  PostCode: { label: 'fieldPostCode', type: 'text', autocomplete: 'postal-code' },
  City: { label: 'fieldCity', type: 'text', autocomplete: 'address-level2' },
  Country: { label: 'fieldCountry', type: 'text', autocomplete: 'country-name' },
  Telephone: { label: 'fieldTelephone', type: 'tel', autocomplete: 'tel' },
  EmailAddress: { label: 'fieldEmailAddress', type: 'email', autocomplete: 'email' },
  Comments: { label: 'fieldComments', type: 'textarea', autocomplete: 'off' },
};

export function shopperFieldLabel(field: string): MessageKey {
  return SHOPPER_FIELD_INPUT[field]?.label ?? 'fieldComments';
}

function document(ctx: PageContext, c: Checkoutable | null, title: string, body: string, head = ''): string {
  const other: Culture = ctx.culture === 'is' ? 'en' : 'is';
  const lang = c
    ? `<nav class="lang" aria-label="${escapeHtml(ctx.t('language'))}"><a href="${escapeHtml(ctx.basePath)}?lang=${other}" lang="${other}" hreflang="${other}">${escapeHtml(ctx.t('switchLanguage'))}</a></nav>`
    : '';
  return `<!doctype html>
<html lang="${ctx.culture}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/checkout.css">
${head}</head>
<body class="${themeClass(c?.themeKey ?? null)}">
<main${c ? ` data-status="${escapeHtml(c.status)}"` : ''}>
<header>${c ? `<p class="merchant">${escapeHtml(c.merchantName)}</p>` : '<span></span>'}${lang}</header>
${body}
</main>
</body>
</html>
`;
}

function money(ctx: PageContext, minor: number, currency: string): string {
  return escapeHtml(formatMoney(minor, currency, ctx.culture));
}

function heading(ctx: PageContext, c: Checkoutable): string {
  if (c.description !== '') return c.description;
  // A session has no description of its own: say whose payment it is and for which order.
  return c.kind === 'session' ? ctx.t('sessionHeading', { merchant: c.merchantName, reference: c.merchantReference }) : ctx.t('payment');
}

function lineCells(ctx: PageContext, c: Checkoutable, line: DisplayLine): string {
  const qty = line.quantity !== null ? escapeHtml(formatQuantity(line.quantity, ctx.culture)) : '';
  const unit = line.unitPrice !== null ? money(ctx, line.unitPrice, c.currency) : '';
  const was = line.amountWithoutDiscount !== null && line.amountWithoutDiscount !== line.amount ? `<del>${money(ctx, line.amountWithoutDiscount, c.currency)}</del> ` : '';
  return `<tr><td>${escapeHtml(line.name)}</td><td class="num">${qty}</td><td class="num">${unit}</td><td class="num">${was}${money(ctx, line.amount, c.currency)}</td></tr>`;
}

function summary(ctx: PageContext, c: Checkoutable): string {
  const { t } = ctx;
  if (c.tokenize && c.amount === 0) return `<p class="notice">${escapeHtml(t('tokenizeIntro', { merchant: c.merchantName }))}</p>`;
  const rows = c.items.map((l) => lineCells(ctx, c, l)).join('\n');
  const table = `<table class="items">
<caption>${escapeHtml(t('orderSummary'))}</caption>
<thead><tr><th scope="col">${escapeHtml(t('item'))}</th><th scope="col" class="num">${escapeHtml(t('quantity'))}</th><th scope="col" class="num">${escapeHtml(t('unitPrice'))}</th><th scope="col" class="num">${escapeHtml(t('amount'))}</th></tr></thead>
<tbody>
${rows}
</tbody>
<tfoot><tr><th scope="row" colspan="3">${escapeHtml(t('total'))}</th><td class="num" data-total>${money(ctx, c.amount, c.currency)}</td></tr></tfoot>
</table>`;
  const note = c.tokenize ? `<p class="notice">${escapeHtml(t('recurringNote', { merchant: c.merchantName }))}</p>` : '';
  return table + note;
}

function errorText(ctx: PageContext, state: FormState, name: string): { attrs: string; html: string } {
  const key = state.errors[name];
  if (!key) return { attrs: '', html: '' };
  return { attrs: ` aria-invalid="true" aria-describedby="${name}-error"`, html: `<p class="error" id="${name}-error">${escapeHtml(ctx.t(key))}</p>` };
}

function shopperFields(ctx: PageContext, c: Checkoutable, state: FormState): string {
  const { t } = ctx;
  const parts: string[] = [];
  for (const info of c.shopperInfos) {
    if (info.requirementType === 'Hidden') continue;
    const spec = SHOPPER_FIELD_INPUT[info.field];
    if (!spec) continue;
    const id = `shopper-${info.field}`;
    const prefilled = info.requirementType === 'Prefilled';
    const required = info.requirementType === 'Required';
    const tag = prefilled ? t('readOnly') : required ? t('required') : t('optional');
    const value = prefilled ? info.prefilledValue ?? '' : state.values[info.field] ?? '';
    const err = errorText(ctx, state, id);
    const common = `id="${id}" name="${id}"${required ? ' required aria-required="true"' : ''}${prefilled ? ' readonly' : ''} autocomplete="${spec.autocomplete}"${err.attrs}`;
    const input =
      spec.type === 'textarea'
        ? `<textarea ${common} rows="3" maxlength="500">${escapeHtml(value)}</textarea>`
        : `<input type="${spec.type}" ${common}${spec.inputmode ? ` inputmode="${spec.inputmode}"` : ''} maxlength="500" value="${escapeHtml(value)}">`;
    parts.push(`<div class="field"><label for="${id}">${escapeHtml(t(spec.label))}<span class="tag">(${escapeHtml(tag)})</span></label>${input}${err.html}</div>`);
  }
  if (c.shopperEmail !== null) {
    parts.push(
      `<div class="field"><label for="shopper-contact">${escapeHtml(t('email'))}<span class="tag">(${escapeHtml(t('readOnly'))})</span></label><input type="email" id="shopper-contact" readonly value="${escapeHtml(c.shopperEmail)}"></div>`,
    );
  }
  if (parts.length === 0) return '';
  return `<fieldset><legend>${escapeHtml(t('yourDetails'))}</legend>\n${parts.join('\n')}\n</fieldset>`;
}

/**
 * The card fields. Each input carries its error message (data-error) for the page's script, which
 * checks the fields in the browser before the form is sent; the server checks them again. Expiry and
 * CVC sit side by side in a grid whose rows (label, input, hint or error) line up across both fields,
 * whatever the length of each label in each language.
 */
function cardFields(ctx: PageContext, state: FormState): string {
  const { t } = ctx;
  const num = errorText(ctx, state, 'cardNumber');
  const exp = errorText(ctx, state, 'expiryDate');
  const cvc = errorText(ctx, state, 'cvc');
  const described = (name: string, err: { attrs: string }): string => err.attrs || ` aria-describedby="${name}-hint"`;
  const expiry = state.values.expiryDate ?? '';
  return `<fieldset><legend>${escapeHtml(t('cardDetails'))}</legend>
<div class="field"><label for="cardNumber">${escapeHtml(t('cardNumber'))}</label><input type="text" id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" maxlength="23" required aria-required="true" data-error="${escapeHtml(t('errCardNumber'))}"${num.attrs}>${num.html}</div>
<div class="row">
<div class="field"><label for="expiryDate">${escapeHtml(t('expiryDate'))}</label><input type="text" id="expiryDate" name="expiryDate" inputmode="numeric" autocomplete="cc-exp" maxlength="7" required aria-required="true" data-error="${escapeHtml(t('errExpiryDate'))}" value="${escapeHtml(expiry)}"${described('expiryDate', exp)}>${exp.html || `<span class="hint" id="expiryDate-hint">${escapeHtml(t('expiryHint'))}</span>`}</div>
<div class="field"><label for="cvc">${escapeHtml(t('cvc'))}</label><input type="text" id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required aria-required="true" data-error="${escapeHtml(t('errCvc'))}"${described('cvc', cvc)}>${cvc.html || `<span class="hint" id="cvc-hint">${escapeHtml(t('cvcHint'))}</span>`}</div>
</div>
</fieldset>`;
}

function cancelLink(ctx: PageContext, c: Checkoutable): string {
  return c.cancelUrl ? `<a class="cancel" href="${escapeHtml(c.cancelUrl)}" rel="noreferrer">${escapeHtml(ctx.t('cancel'))}</a>` : '';
}

/** The payment page with its form (a payable link or session). */
export function renderPayPage(ctx: PageContext, c: Checkoutable, csrf: string, state: FormState): string {
  const { t } = ctx;
  const button = c.tokenize && c.amount === 0 ? t('saveCard') : t('pay', { amount: formatMoney(c.amount, c.currency, ctx.culture) });
  const alert = state.alert ? `<div class="alert" role="alert">${escapeHtml(state.alert)}</div>` : '';
  const body = `<h1>${escapeHtml(heading(ctx, c))}</h1>
${summary(ctx, c)}
${alert}
<form method="post" action="${escapeHtml(ctx.basePath)}" autocomplete="on" data-card-form>
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<input type="hidden" name="lang" value="${ctx.culture}">
${shopperFields(ctx, c, state)}
${cardFields(ctx, state)}
<button type="submit">${escapeHtml(button)}</button>
</form>
${cancelLink(ctx, c)}`;
  const title = c.tokenize && c.amount === 0 ? t('htmlTitleSaveCard', { merchant: c.merchantName }) : t('htmlTitlePay', { amount: formatMoney(c.amount, c.currency, ctx.culture), merchant: c.merchantName });
  return document(ctx, c, title, body, '<script src="/assets/checkout.js" defer></script>\n');
}

const STATUS_MESSAGE: Record<string, { link: MessageKey; session: MessageKey }> = {
  Expired: { link: 'statusExpiredLink', session: 'statusExpiredSession' },
  Used: { link: 'statusUsed', session: 'statusNotPayable' },
  Disabled: { link: 'statusDisabled', session: 'statusNotPayable' },
  Completed: { link: 'statusCompletedLink', session: 'statusCompletedSession' },
};

/** A link or session that cannot be paid: says why, shows no form. */
export function renderStatusPage(ctx: PageContext, c: Checkoutable): string {
  const key = STATUS_MESSAGE[c.status]?.[c.kind] ?? 'statusNotPayable';
  const back = c.cancelUrl ?? (c.kind === 'session' ? c.returnUrl : null);
  const body = `<h1>${escapeHtml(heading(ctx, c))}</h1>
<p class="notice" role="status" data-status="${escapeHtml(c.status)}">${escapeHtml(ctx.t(key))}</p>
${back ? `<a class="button" href="${escapeHtml(back)}" rel="noreferrer">${escapeHtml(ctx.t('returnToShop'))}</a>` : ''}`;
  return document(ctx, c, heading(ctx, c), body);
}

/** The simulated issuer's 3-D Secure step (§The simulated acquirer). */
export function renderThreeDSPage(ctx: PageContext, c: Checkoutable, card: CardSummary, challengeId: string, csrf: string): string {
  const { t } = ctx;
  const intro = c.tokenize && c.amount === 0 ? t('threeDIntroToken', { last4: card.last4 }) : t('threeDIntro', { amount: formatMoney(c.amount, c.currency, ctx.culture), last4: card.last4 });
  const body = `<h1>${escapeHtml(t('threeDTitle'))}</h1>
<p>${escapeHtml(intro)}</p>
<p class="notice">${escapeHtml(t('threeDSimulated'))}</p>
<form method="post" action="${escapeHtml(ctx.basePath)}/3ds">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<input type="hidden" name="lang" value="${ctx.culture}">
<input type="hidden" name="challenge" value="${escapeHtml(challengeId)}">
<button type="submit" name="action" value="confirm">${escapeHtml(t('confirm'))}</button>
<button type="submit" name="action" value="cancel" class="secondary">${escapeHtml(t('threeDCancel'))}</button>
</form>`;
  return document(ctx, c, t('threeDTitle'), body);
}

/**
 * The end of a saved-card charge's 3-D Secure step: paid or not, then back to the shop's returnUrl
 * (Continue, or by itself after a few seconds).
 */
export function renderChargeOutcome(ctx: PageContext, c: Checkoutable, paid: { amount: number; currency: string } | null, returnUrl: string): string {
  const { t } = ctx;
  const head = `<meta http-equiv="refresh" content="${REFRESH_SECONDS}; url=${escapeHtml(returnUrl)}">\n`;
  const title = paid ? t('receiptTitle') : t('chargeFailedTitle');
  const text = paid ? t('receiptPaid', { amount: formatMoney(paid.amount, paid.currency, ctx.culture), merchant: c.merchantName }) : t('chargeFailed');
  const body = `<h1${paid ? ' class="success"' : ''}>${escapeHtml(title)}</h1>
<p role="status">${escapeHtml(text)}</p>
<p>${escapeHtml(t('redirecting'))}</p><a class="button" href="${escapeHtml(returnUrl)}" rel="noreferrer">${escapeHtml(t('continue'))}</a>`;
  return document(ctx, c, title, body, head);
}

export interface ReceiptData {
  payfacReference: string;
  amount: number;
  currency: string;
  cardSummary: string;
  paymentMethod: string;
  token: string | null;
}

const REFRESH_SECONDS = 5;

/** The receipt; then the shopper goes back to returnUrl (Continue, or by itself after a few seconds). */
export function renderReceipt(ctx: PageContext, c: Checkoutable, r: ReceiptData): string {
  const { t } = ctx;
  const saved = c.tokenize && r.amount === 0;
  const back = c.returnUrl;
  const head = back ? `<meta http-equiv="refresh" content="${REFRESH_SECONDS}; url=${escapeHtml(back)}">\n` : '';
  const body = `<h1 class="success">${escapeHtml(saved ? t('receiptTitleToken') : t('receiptTitle'))}</h1>
<p role="status">${escapeHtml(saved ? t('receiptSaved', { merchant: c.merchantName }) : t('receiptPaid', { amount: formatMoney(r.amount, r.currency, ctx.culture), merchant: c.merchantName }))}</p>
<dl>
<dt>${escapeHtml(t('receiptCard'))}</dt><dd>${escapeHtml(r.paymentMethod.toUpperCase())} •••• ${escapeHtml(r.cardSummary)}</dd>
<dt>${escapeHtml(t('receiptReference'))}</dt><dd data-payfac-reference>${escapeHtml(r.payfacReference)}</dd>
</dl>
${back ? `<p>${escapeHtml(t('redirecting'))}</p><a class="button" href="${escapeHtml(back)}" rel="noreferrer">${escapeHtml(t('continue'))}</a>` : ''}`;
  return document(ctx, c, saved ? t('receiptTitleToken') : t('receiptTitle'), body, head);
}

/** A page with a title, one sentence and an optional link back. */
export function renderMessage(ctx: PageContext, c: Checkoutable | null, title: MessageKey, message: MessageKey, back?: { href: string; label: MessageKey }): string {
  const body = `<h1>${escapeHtml(ctx.t(title))}</h1>
<p class="notice">${escapeHtml(ctx.t(message))}</p>
${back ? `<a class="button" href="${escapeHtml(back.href)}">${escapeHtml(ctx.t(back.label))}</a>` : ''}`;
  return document(ctx, c, ctx.t(title), body);
}
