import type { Html } from '../../html/jsx-runtime.js';
import type { Checkoutable } from '../shopper.js';
import { unitAmount, type QuantityProblem } from '../quantities.js';
import { moneySample } from '../../html/format.js';
import type { MessageKey } from './i18n.js';
import type { PageForm } from './form.js';
import type { PageContext } from './layout.js';
import type { FormState } from './payPage.js';

// The quantities the shopper may change on a link's payment page (docs/rules.md, §Adjustable
// quantities): a number input per adjustable item and an "Update total" button. It works without
// JavaScript: the button posts the form, and the page comes back with the lines and the total at the
// new quantities (the page's policy allows no inline script, so the total follows on that post). The
// pay post carries the same inputs and the total the shopper was shown (`shownTotal`); the payment
// charges only that total.

/** The name of the button that asks for the total again instead of paying. */
export const UPDATE_FIELD = 'updateTotal';

export function quantityName(index: number): string {
  return `qty-${index}`;
}

/** The quantities as the shopper typed them, to show again on a page with an error. */
export function typedQuantities(c: Checkoutable, form: PageForm): Record<string, string> {
  const values: Record<string, string> = {};
  c.choice?.forEach((item, i) => {
    const typed = form.get(quantityName(i));
    if (item.adjustableQuantity !== undefined && typed !== undefined) values[quantityName(i)] = typed.trim().slice(0, 10);
  });
  return values;
}

/** Each problem beside the input it names; an order with nothing left, or nothing to pay, above them all. */
export function quantityErrors(problems: readonly QuantityProblem[]): Partial<Record<string, MessageKey>> {
  const errors: Partial<Record<string, MessageKey>> = {};
  for (const p of problems) {
    if (p.kind === 'outOfRange' || p.kind === 'notAdjustable') errors[quantityName(p.index)] = 'errQuantity';
    else errors.quantities = p.kind === 'nothingLeft' ? 'errNothingLeft' : 'errZeroTotal';
  }
  return errors;
}

/** The shopper's inputs and the Update total button, inside the payment form; nothing for a checkout without a choice. */
export function QuantityChoice({ ctx, c, state }: { ctx: PageContext; c: Checkoutable; state: FormState }): Html | null {
  if (c.choice === null) return null;
  const { t } = ctx;
  const general = state.errors.quantities;
  // For the page's script (assets.ts followQuantities): the currency and how the page writes it, the
  // items that cannot change (their amount as it is), and an applied code's terms.
  const fixed = c.choice.reduce((sum, item) => sum + (item.adjustableQuantity === undefined ? item.amount : 0), 0);
  const terms = state.promotion?.applied?.terms;
  return (
    <fieldset
      class="quantities"
      data-quantities=""
      data-currency={c.currency}
      data-money={JSON.stringify(moneySample(c.currency, ctx.lang))}
      data-fixed={String(fixed)}
      data-terms={terms ? JSON.stringify(terms) : undefined}
    >
      <legend>{t('quantitiesLegend')}</legend>
      {general ? (
        <p class="error" id="quantities-error">
          {t(general)}
        </p>
      ) : null}
      {c.choice.map((item, i) => {
        const range = item.adjustableQuantity;
        if (range === undefined) return null;
        const name = quantityName(i);
        const key = state.errors[name];
        const described = [`${name}-hint`, ...(key ? [`${name}-error`] : []), ...(general ? ['quantities-error'] : [])].join(' ');
        const value = state.values[name] ?? String(c.chosen?.[i] ?? item.quantity);
        return (
          <div class="field quantity">
            <label for={name}>{t('quantityOf', { item: item.name })}</label>
            <input
              type="number"
              id={name}
              name={name}
              inputMode="numeric"
              min={range.minimum}
              max={range.maximum}
              step={1}
              value={value}
              required
              data-index={String(i)}
              data-unit-amount={String(unitAmount(item))}
              data-unit-price={String(item.unitPrice)}
              data-error={t('errQuantity')}
              aria-describedby={described}
              {...(key ? { 'aria-invalid': 'true' } : {})}
            />
            <span class="hint" id={`${name}-hint`}>
              {t('quantityRange', { minimum: String(range.minimum), maximum: String(range.maximum) })}
            </span>
            {key ? (
              <p class="error" id={`${name}-error`}>
                {t(key)}
              </p>
            ) : null}
          </div>
        );
      })}
      <input type="hidden" name="shownTotal" value={String(c.amount)} />
      <button type="submit" class="secondary" name={UPDATE_FIELD} value="yes" formNoValidate data-update-total="">
        {t('updateTotal')}
      </button>
    </fieldset>
  );
}
