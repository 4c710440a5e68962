import type { Children, Html } from '../../html/jsx-runtime.js';
import type { Checkoutable } from '../shopper.js';
import { formatMoney } from '../../html/format.js';
import type { MessageKey } from './i18n.js';
import { FORM_TOKEN_FIELD } from '../../web/formTokens.js';
import { Summary, heading, page, type PageContext } from './layout.js';
import type { AnswerProblem } from '../../paymentLinks/shopper.js';
import { CustomFieldsSection } from './customFieldsSection.js';
import { QuantityChoice } from './quantityChoice.js';
import { PromotionCodeCarried, PromotionCodeForm, PromotionTotal, payableAmount, type PromotionView } from './promotionCode.js';

// The payment page: the order, the shopper's fields and the card form, and the same page as a
// preview (what the portal's theme editor shows).

export interface FormState {
  /** Shopper field values to show again (never the card number or CVC; the expiry may come back). */
  values: Record<string, string>;
  /** Field name → message; card fields are cardNumber, expiryDate, cvc. */
  errors: Partial<Record<string, MessageKey>>;
  /** A refusal or a summary of the errors. */
  alert: string | null;
  /** The problems of the answers to the link's custom fields, by key (customFieldsSection.tsx says them). */
  customProblems?: Readonly<Record<string, AnswerProblem>>;
  /** What the last post did that is not an error (the total updated to the chosen quantities). */
  status?: string;
  /** The promotion code on the page, when the shopper gave one (a link that takes codes). */
  promotion?: PromotionView;
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

/** The error of one field: its message, and the attributes that tie it to the input. */
function errorOf(ctx: PageContext, state: FormState, name: string): { attrs: Record<string, string>; node: Html | null } {
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

function ShopperFields({ ctx, c, state }: { ctx: PageContext; c: Checkoutable; state: FormState }): Html | null {
  const { t } = ctx;
  const fields: Html[] = [];
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
          // The input's type is one of text, tel or email; the element types want it fixed per element.
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
 * One card input with its label, and its error or else its hint. It carries its error message
 * (data-error) for the page's script; an input points at its error when it has one, else at its hint.
 */
function CardInput(p: {
  ctx: PageContext;
  state: FormState;
  name: 'cardNumber' | 'expiryDate' | 'cvc';
  autocomplete: string;
  maxLength: number;
  error: MessageKey;
  hint?: MessageKey;
}): Html {
  const { t } = p.ctx;
  const err = errorOf(p.ctx, p.state, p.name);
  const described = Object.keys(err.attrs).length > 0 || p.hint === undefined ? err.attrs : { 'aria-describedby': `${p.name}-hint` };
  return (
    <div class="field">
      <label for={p.name}>{t(p.name)}</label>
      <input
        type="text"
        id={p.name}
        name={p.name}
        inputMode="numeric"
        autocomplete={p.autocomplete}
        maxLength={p.maxLength}
        required
        aria-required="true"
        data-error={t(p.error)}
        // The card number is never shown back; the expiry is.
        value={p.name === 'expiryDate' ? (p.state.values.expiryDate ?? '') : undefined}
        {...described}
      />
      {err.node ??
        (p.hint !== undefined ? (
          <span class="hint" id={`${p.name}-hint`}>
            {t(p.hint)}
          </span>
        ) : null)}
    </div>
  );
}

/**
 * The card fields. The page's script tells the shopper of a mistyped one before the form is sent
 * (the check digit, shared with payments/card.ts); what decides is the payment's check. Expiry and CVC sit side by side in a grid whose rows (label, input, hint or
 * error) line up across both fields, whatever the length of each label in each language.
 */
function CardFields({ ctx, state }: { ctx: PageContext; state: FormState }): Html {
  return (
    <fieldset>
      <legend>{ctx.t('cardDetails')}</legend>
      <CardInput ctx={ctx} state={state} name="cardNumber" autocomplete="cc-number" maxLength={23} error="errCardNumber" />
      <div class="row">
        <CardInput ctx={ctx} state={state} name="expiryDate" autocomplete="cc-exp" maxLength={7} error="errExpiryDate" hint="expiryHint" />
        <CardInput ctx={ctx} state={state} name="cvc" autocomplete="cc-csc" maxLength={4} error="errCvc" hint="cvcHint" />
      </div>
    </fieldset>
  );
}

/**
 * The link's terms, when it has them: a link to read them and the box the shopper ticks to accept them
 * (docs/api.md, Messages and terms). The box is required in the browser, and the server refuses a
 * payment without it whatever the browser did.
 */
function TermsConsent({ ctx, c, state }: { ctx: PageContext; c: Checkoutable; state: FormState }): Html | null {
  if (c.termsUrl === null) return null;
  const { t } = ctx;
  const err = errorOf(ctx, state, 'acceptTerms');
  return (
    <fieldset class="terms">
      <legend>{t('termsLegend')}</legend>
      <p>
        <a href={c.termsUrl} target="_blank" rel="noopener noreferrer" data-terms="">
          {t('termsRead', { merchant: c.merchantName })}
        </a>{' '}
        <span class="hint">{t('termsNewWindow')}</span>
      </p>
      <div class="field consent">
        <input
          type="checkbox"
          id="acceptTerms"
          name="acceptTerms"
          value="yes"
          required
          aria-required="true"
          checked={state.values.acceptTerms === 'yes'}
          {...err.attrs}
        />
        <label for="acceptTerms">{t('termsAccept')}</label>
      </div>
      {err.node}
    </fieldset>
  );
}

function CancelLink({ ctx, c }: { ctx: PageContext; c: Checkoutable }): Html | null {
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
  const amount = formatMoney(payableAmount(c, state.promotion), c.currency, ctx.lang);
  const body = (
    <>
      <h1>{heading(ctx, c)}</h1>
      <Summary ctx={ctx} c={c} />
      <PromotionTotal ctx={ctx} c={c} promotion={state.promotion} />
      <PromotionCodeForm ctx={ctx} c={c} csrf={csrf} promotion={state.promotion} />
      {state.alert ? (
        <div class="alert" role="alert">
          {state.alert}
        </div>
      ) : null}
      {state.status !== undefined ? (
        <p class="notice" role="status" data-total-updated="">
          {state.status}
        </p>
      ) : null}
      <form method="post" action={ctx.basePath} autocomplete="on" data-card-form="">
        <input type="hidden" name={FORM_TOKEN_FIELD} value={csrf} />
        <input type="hidden" name="lang" value={ctx.lang} />
        <QuantityChoice ctx={ctx} c={c} state={state} />
        <PromotionCodeCarried promotion={state.promotion} />
        <ShopperFields ctx={ctx} c={c} state={state} />
        <CustomFieldsSection ctx={ctx} fields={c.customFields} values={state.values} problems={state.customProblems} />
        <CardFields ctx={ctx} state={state} />
        <TermsConsent ctx={ctx} c={c} state={state} />
        {/* data-pay: the button's words with a place for the amount, for the script that follows the quantities. */}
        <button type="submit" data-pay={saving ? undefined : t('pay', { amount: '{amount}' })}>
          {saving ? t('saveCard') : t('pay', { amount })}
        </button>
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
export function renderPayPreview(ctx: PageContext, c: Checkoutable, note: Children): string {
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
