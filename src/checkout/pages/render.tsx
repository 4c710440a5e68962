import type { ComponentChildren, VNode } from 'preact';
import { renderDocument } from '../../html/render.js';
import type { Checkoutable, DisplayLine } from '../shopper.js';
import type { CardSummary } from '../../payments/card.js';
import { formatMoney, formatQuantity } from '../../html/format.js';
import type { MessageKey } from './i18n.js';
import { otherLang, type Lang, type Translate } from '../../web/lang.js';
import { themeClass } from './styles.js';
import { CHECKOUT_CSS_HREF } from './assets.js';
import { CUSTOM_THEME_CLASS, type ThemeAssets } from '../../themes/service.js';
import { FORM_TOKEN_FIELD } from '../../web/formTokens.js';

// The shopper's pages as server-rendered HTML, written as typed components (Preact's JSX, rendered to
// a string on the server; no Preact runs in the browser). Every value is escaped by the renderer:
// there is no way to put raw HTML into a page here (the only escape hatch would be the prop
// `dangerouslySetInnerHTML`, which nothing uses). The pages work without JavaScript and under a CSP
// without inline script; every input has a visible <label>; errors are tied to their input
// (aria-describedby) and announced (role=alert).

export interface PageContext {
  lang: Lang;
  t: Translate<MessageKey>;
  /** `/pay/{reference}` or `/checkout/{reference}`. */
  basePath: string;
  /** The merchant's own theme, when the link's or session's themeKey names one (else a built-in palette). */
  theme?: ThemeAssets | null;
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

const SHOPPER_FIELD_INPUT: Record<string, { label: MessageKey; type: 'text' | 'tel' | 'email' | 'textarea'; autocomplete: string; inputmode?: 'numeric' }> = {
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

const REFRESH_SECONDS = 5;

/** A whole page: the doctype and the rendered document. */
function page(ctx: PageContext, c: Checkoutable | null, title: string, body: ComponentChildren, head?: ComponentChildren): string {
  const other = otherLang(ctx.lang);
  const theme = c ? ctx.theme : null;
  const doc = (
    <html lang={ctx.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{title}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href={CHECKOUT_CSS_HREF} />
        {theme ? <link rel="stylesheet" href={theme.stylesheet} /> : null}
        {head}
      </head>
      {/* A theme's stylesheet sets the default palette's properties again; without it the page keeps the default. */}
      <body class={theme ? `${themeClass(null)} ${CUSTOM_THEME_CLASS}` : themeClass(c?.themeKey ?? null)}>
        <main data-status={c ? c.status : undefined}>
          <header>
            {c ? <p class="merchant">{theme?.logo ? <img class="logo" src={theme.logo} alt={c.merchantName} /> : c.merchantName}</p> : <span />}
            {c ? (
              <nav class="lang" aria-label={ctx.t('language')}>
                <a href={`${ctx.basePath}?lang=${other}`} lang={other} hreflang={other}>
                  {ctx.t('switchLanguage')}
                </a>
              </nav>
            ) : null}
          </header>
          {body}
        </main>
      </body>
    </html>
  );
  return renderDocument(doc);
}

/** Sends the browser on to `url` after a few seconds (with a link to go at once). */
function refreshTo(url: string): VNode {
  return <meta http-equiv="refresh" content={`${REFRESH_SECONDS}; url=${url}`} />;
}

function money(ctx: PageContext, minor: number, currency: string): string {
  return formatMoney(minor, currency, ctx.lang);
}

function heading(ctx: PageContext, c: Checkoutable): string {
  if (c.description !== '') return c.description;
  // A session has no description of its own: say whose payment it is and for which order.
  return c.kind === 'session' ? ctx.t('sessionHeading', { merchant: c.merchantName, reference: c.merchantReference }) : ctx.t('payment');
}

function Line({ ctx, c, line }: { ctx: PageContext; c: Checkoutable; line: DisplayLine }): VNode {
  const discounted = line.amountWithoutDiscount !== null && line.amountWithoutDiscount !== line.amount;
  return (
    <tr>
      <td>{line.name}</td>
      <td class="num">{line.quantity !== null ? formatQuantity(line.quantity, ctx.lang) : ''}</td>
      <td class="num">{line.unitPrice !== null ? money(ctx, line.unitPrice, c.currency) : ''}</td>
      <td class="num">
        {discounted && line.amountWithoutDiscount !== null ? (
          <>
            <del>{money(ctx, line.amountWithoutDiscount, c.currency)}</del>{' '}
          </>
        ) : null}
        {money(ctx, line.amount, c.currency)}
      </td>
    </tr>
  );
}

function Summary({ ctx, c }: { ctx: PageContext; c: Checkoutable }): VNode {
  const { t } = ctx;
  if (c.tokenize && c.amount === 0) return <p class="notice">{t('tokenizeIntro', { merchant: c.merchantName })}</p>;
  return (
    <>
      <table class="items">
        <caption>{t('orderSummary')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('item')}</th>
            <th scope="col" class="num">
              {t('quantity')}
            </th>
            <th scope="col" class="num">
              {t('unitPrice')}
            </th>
            <th scope="col" class="num">
              {t('amount')}
            </th>
          </tr>
        </thead>
        <tbody>
          {c.items.map((line) => (
            <Line ctx={ctx} c={c} line={line} />
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={3}>
              {t('total')}
            </th>
            <td class="num" data-total="">
              {money(ctx, c.amount, c.currency)}
            </td>
          </tr>
        </tfoot>
      </table>
      {c.tokenize ? <p class="notice">{t('recurringNote', { merchant: c.merchantName })}</p> : null}
    </>
  );
}

/** The error of one field: its message, and the attributes that tie it to the input. */
function errorOf(ctx: PageContext, state: FormState, name: string): { attrs: Record<string, string>; node: VNode | null } {
  const key = state.errors[name];
  if (!key) return { attrs: {}, node: null };
  return {
    attrs: { 'aria-invalid': 'true', 'aria-describedby': `${name}-error` },
    node: (
      <p class="error" id={`${name}-error`}>
        {ctx.t(key)}
      </p>
    ),
  };
}

function ShopperFields({ ctx, c, state }: { ctx: PageContext; c: Checkoutable; state: FormState }): VNode | null {
  const { t } = ctx;
  const fields: VNode[] = [];
  for (const info of c.shopperInfos) {
    if (info.requirementType === 'Hidden') continue;
    const spec = SHOPPER_FIELD_INPUT[info.field];
    if (!spec) continue;
    const id = `shopper-${info.field}`;
    const prefilled = info.requirementType === 'Prefilled';
    const required = info.requirementType === 'Required';
    const tag = prefilled ? t('readOnly') : required ? t('required') : t('optional');
    const value = prefilled ? (info.prefilledValue ?? '') : (state.values[info.field] ?? '');
    const err = errorOf(ctx, state, id);
    const common = {
      id,
      name: id,
      ...(required ? { required: true, 'aria-required': 'true' as const } : {}),
      ...(prefilled ? { readOnly: true } : {}),
      autocomplete: spec.autocomplete,
      ...err.attrs,
    };
    fields.push(
      <div class="field">
        <label for={id}>
          {t(spec.label)}
          <span class="tag">({tag})</span>
        </label>
        {spec.type === 'textarea' ? (
          <textarea {...common} rows={3} maxLength={500} value={value} />
        ) : (
          // The input's type is one of text, tel or email; Preact's typings want it fixed per element.
          <input type={spec.type as 'text'} {...common} inputMode={spec.inputmode} maxLength={500} value={value} />
        )}
        {err.node}
      </div>,
    );
  }
  if (c.shopperEmail !== null) {
    fields.push(
      <div class="field">
        <label for="shopper-contact">
          {t('email')}
          <span class="tag">({t('readOnly')})</span>
        </label>
        <input type="email" id="shopper-contact" readOnly value={c.shopperEmail} />
      </div>,
    );
  }
  if (fields.length === 0) return null;
  return (
    <fieldset>
      <legend>{t('yourDetails')}</legend>
      {fields}
    </fieldset>
  );
}

/**
 * The card fields. Each input carries its error message (data-error) for the page's script, which
 * checks the fields in the browser before the form is sent; the server checks them again. Expiry and
 * CVC sit side by side in a grid whose rows (label, input, hint or error) line up across both fields,
 * whatever the length of each label in each language.
 */
function CardFields({ ctx, state }: { ctx: PageContext; state: FormState }): VNode {
  const { t } = ctx;
  const num = errorOf(ctx, state, 'cardNumber');
  const exp = errorOf(ctx, state, 'expiryDate');
  const cvc = errorOf(ctx, state, 'cvc');
  // An input points at its error when it has one, else at its hint.
  const described = (name: string, err: { attrs: Record<string, string> }) =>
    Object.keys(err.attrs).length > 0 ? err.attrs : { 'aria-describedby': `${name}-hint` };
  return (
    <fieldset>
      <legend>{t('cardDetails')}</legend>
      <div class="field">
        <label for="cardNumber">{t('cardNumber')}</label>
        <input
          type="text"
          id="cardNumber"
          name="cardNumber"
          inputMode="numeric"
          autocomplete="cc-number"
          maxLength={23}
          required
          aria-required="true"
          data-error={t('errCardNumber')}
          {...num.attrs}
        />
        {num.node}
      </div>
      <div class="row">
        <div class="field">
          <label for="expiryDate">{t('expiryDate')}</label>
          <input
            type="text"
            id="expiryDate"
            name="expiryDate"
            inputMode="numeric"
            autocomplete="cc-exp"
            maxLength={7}
            required
            aria-required="true"
            data-error={t('errExpiryDate')}
            value={state.values.expiryDate ?? ''}
            {...described('expiryDate', exp)}
          />
          {exp.node ?? (
            <span class="hint" id="expiryDate-hint">
              {t('expiryHint')}
            </span>
          )}
        </div>
        <div class="field">
          <label for="cvc">{t('cvc')}</label>
          <input
            type="text"
            id="cvc"
            name="cvc"
            inputMode="numeric"
            autocomplete="cc-csc"
            maxLength={4}
            required
            aria-required="true"
            data-error={t('errCvc')}
            {...described('cvc', cvc)}
          />
          {cvc.node ?? (
            <span class="hint" id="cvc-hint">
              {t('cvcHint')}
            </span>
          )}
        </div>
      </div>
    </fieldset>
  );
}

function CancelLink({ ctx, c }: { ctx: PageContext; c: Checkoutable }): VNode | null {
  return c.cancelUrl ? (
    <a class="cancel" href={c.cancelUrl} rel="noreferrer">
      {ctx.t('cancel')}
    </a>
  ) : null;
}

/** The payment page with its form (a payable link or session). */
export function renderPayPage(ctx: PageContext, c: Checkoutable, csrf: string, state: FormState): string {
  const { t } = ctx;
  const saving = c.tokenize && c.amount === 0;
  const amount = formatMoney(c.amount, c.currency, ctx.lang);
  const body = (
    <>
      <h1>{heading(ctx, c)}</h1>
      <Summary ctx={ctx} c={c} />
      {state.alert ? (
        <div class="alert" role="alert">
          {state.alert}
        </div>
      ) : null}
      <form method="post" action={ctx.basePath} autocomplete="on" data-card-form="">
        <input type="hidden" name={FORM_TOKEN_FIELD} value={csrf} />
        <input type="hidden" name="lang" value={ctx.lang} />
        <ShopperFields ctx={ctx} c={c} state={state} />
        <CardFields ctx={ctx} state={state} />
        <button type="submit">{saving ? t('saveCard') : t('pay', { amount })}</button>
      </form>
      <CancelLink ctx={ctx} c={c} />
    </>
  );
  const title = saving ? t('htmlTitleSaveCard', { merchant: c.merchantName }) : t('htmlTitlePay', { amount, merchant: c.merchantName });
  return page(ctx, c, title, body, <script src="/assets/checkout.js" defer />);
}

/**
 * The payment page as the portal previews a theme: the same parts with sample data, above them a
 * note saying what this is, and a form that sends nothing (its button does not submit).
 */
export function renderPayPreview(ctx: PageContext, c: Checkoutable, note: ComponentChildren): string {
  const { t } = ctx;
  const amount = formatMoney(c.amount, c.currency, ctx.lang);
  const body = (
    <>
      <p class="notice" role="status">
        {note}
      </p>
      <h1>{heading(ctx, c)}</h1>
      <Summary ctx={ctx} c={c} />
      <form autocomplete="off">
        <ShopperFields ctx={ctx} c={c} state={EMPTY_FORM} />
        <CardFields ctx={ctx} state={EMPTY_FORM} />
        <button type="button">{t('pay', { amount })}</button>
      </form>
    </>
  );
  return page(ctx, c, t('htmlTitlePay', { amount, merchant: c.merchantName }), body);
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
  const body = (
    <>
      <h1>{heading(ctx, c)}</h1>
      <p class="notice" role="status" data-status={c.status}>
        {ctx.t(key)}
      </p>
      {back ? (
        <a class="button" href={back} rel="noreferrer">
          {ctx.t('returnToShop')}
        </a>
      ) : null}
    </>
  );
  return page(ctx, c, heading(ctx, c), body);
}

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

function BackToShop({ ctx, url }: { ctx: PageContext; url: string }): VNode {
  return (
    <>
      <p>{ctx.t('redirecting')}</p>
      <a class="button" href={url} rel="noreferrer">
        {ctx.t('continue')}
      </a>
    </>
  );
}

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

/** A page with a title, one sentence and an optional link back. */
export function renderMessage(
  ctx: PageContext,
  c: Checkoutable | null,
  title: MessageKey,
  message: MessageKey,
  back?: { href: string; label: MessageKey },
): string {
  const body = (
    <>
      <h1>{ctx.t(title)}</h1>
      <p class="notice">{ctx.t(message)}</p>
      {back ? (
        <a class="button" href={back.href}>
          {ctx.t(back.label)}
        </a>
      ) : null}
    </>
  );
  return page(ctx, c, ctx.t(title), body);
}
