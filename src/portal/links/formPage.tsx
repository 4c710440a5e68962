import type { Html } from '../../html/jsx-runtime.js';
import type { FieldError } from '../../errors.js';
import { formatNumber, moneySample } from '../../html/format.js';
import { CULTURES, CURRENCIES, RECURRING_MODELS, REQUIREMENT_TYPES, type LinkType } from '../../paymentLinks/schemas.js';
import type { PaymentLinkView } from '../../paymentLinks/service.js';
import { translator } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import { Checkbox, Csrf, ErrorSummary, Field, FieldMessages, Money, NothingToDo, Notice, fieldId, formScope, type Option } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { CREATE_NAMES, EMAIL_RECEIPTS_SHOWN, UPDATE_NAMES, minorOf, type FieldNames, type ItemEntry, type LinkEntry, type ShopperEntry } from './form.js';
import { M } from './messages.js';
import { SHOPPER_TEXT_FIELDS, ShopperTextsSection } from './textsSection.js';
import { CUSTOM_FIELD_SHOWN, CustomFieldsSection } from './customFieldsSection.js';
import { RECURRING_KEY, REQUIREMENT_KEY, TYPE_KEY, fieldLabel, linkPath, recurringLabel, type T } from './labels.js';

// The create and edit forms of a payment link: its amount, items, shopper fields and settings.

export interface FormData {
  mode: 'create' | 'edit';
  type: LinkType;
  entry: LinkEntry;
  errors: FieldErrors;
  /** Create: the merchant's terminals, the chosen one and the recurring model chosen. */
  terminals?: readonly string[];
  terminalIdentifier?: string;
  recurringProcessingModel?: string;
  /** Edit: the link as stored. */
  link?: PaymentLinkView;
  /** Edit: whether amount, currency and items may change (nothing sold yet). */
  withMoney: boolean;
  /** A sentence instead of the form (edit of a Disabled or Completed link). */
  blocked?: string;
}

function ItemRow({
  view,
  t,
  row,
  i,
  errors,
  currency,
  disabled,
}: {
  view: View;
  t: T;
  row: ItemEntry;
  i: number;
  errors: FieldErrors;
  currency: string;
  disabled: boolean;
}): Html {
  const name = (f: string): string => `items[${i}].${f}`;
  const price = minorOf(row.unitPrice);
  const quantity = /^\d+$/.test(row.quantity.trim()) ? Number(row.quantity) : undefined;
  const discount = row.discount.trim() === '' ? 0 : minorOf(row.discount);
  const line =
    price !== undefined && quantity !== undefined && discount !== undefined && !inPartKronur(currency, price, discount)
      ? price * quantity - discount
      : undefined;
  /** One input of the row: its name in the API's body, its label, and the hook the row's script reads it by (data-item). */
  const field = (
    key: 'name' | 'quantity' | 'unitPrice' | 'discount' | 'minQuantity' | 'maxQuantity',
    label: 'itemName' | 'quantity' | 'unitPrice' | 'discount' | 'minQuantity' | 'maxQuantity',
    cls: string,
    input: { maxLength?: number; inputmode?: 'numeric' | 'decimal' },
  ): Html => (
    <Field view={view} name={name(key)} label={t(label)} value={row[key]} errors={errors} {...input} disabled={disabled} class={cls} data={{ item: key }} />
  );
  return (
    <fieldset class="item-row" data-item-row="">
      <legend>{t('itemLegend', { n: i + 1 })}</legend>
      {field('name', 'itemName', 'item-name', { maxLength: 500 })}
      {field('quantity', 'quantity', 'item-quantity', { inputmode: 'numeric' })}
      {field('unitPrice', 'unitPrice', 'item-price', { inputmode: 'decimal' })}
      {field('discount', 'discount', 'item-discount', { inputmode: 'decimal' })}
      {field('minQuantity', 'minQuantity', 'item-min', { inputmode: 'numeric', maxLength: 2 })}
      {field('maxQuantity', 'maxQuantity', 'item-max', { inputmode: 'numeric', maxLength: 2 })}
      <p class="item-line">
        <span class="muted small">{t('lineAmount')}</span>{' '}
        <output data-line="" for={`${fieldId(name('quantity'))} ${fieldId(name('unitPrice'))} ${fieldId(name('discount'))}`}>
          {line === undefined ? '–' : <Money view={view} minor={line} currency={currency} />}
        </output>
      </p>
    </fieldset>
  );
}

/**
 * How the page's language writes each currency, for the form's script to write the totals as the
 * server does (src/portal/links/browser.ts): 1 234 567 whole and with 89 cents, as JSON.
 */
function moneySamples(view: View): string {
  return JSON.stringify(Object.fromEntries(CURRENCIES.map((c) => [c, moneySample(c, view.lang)])));
}

/** ISK is charged in whole krónur: a row priced in part krónur has no line total to show (the form says why beside it). */
function inPartKronur(currency: string, price: number | undefined, discount: number | undefined): boolean {
  return currency === 'ISK' && ((price ?? 0) % 100 !== 0 || (discount ?? 0) % 100 !== 0);
}

function totalOf(rows: readonly ItemEntry[], currency: string): number | undefined {
  let sum = 0;
  for (const r of rows) {
    if (r.name.trim() === '' && r.unitPrice.trim() === '' && r.discount.trim() === '') continue;
    const price = minorOf(r.unitPrice);
    const discount = r.discount.trim() === '' ? 0 : minorOf(r.discount);
    if (price === undefined || discount === undefined || !/^\d+$/.test(r.quantity.trim()) || inPartKronur(currency, price, discount)) return undefined;
    sum += price * Number(r.quantity) - discount;
  }
  return sum;
}

function ItemsSection({
  view,
  t,
  entry,
  errors,
  disabled,
  reason,
}: {
  view: View;
  t: T;
  entry: LinkEntry;
  errors: FieldErrors;
  disabled: boolean;
  reason?: string;
}): Html {
  const currency = (CURRENCIES as readonly string[]).includes(entry.currency) ? entry.currency : 'ISK';
  const total = totalOf(entry.items, currency);
  return (
    <fieldset
      class="items"
      aria-describedby={[reason ? 'items-why' : '', errors.of('items').length > 0 ? `${fieldId('items')}-error` : ''].filter(Boolean).join(' ') || undefined}
    >
      <legend>{t('sectionItems')}</legend>
      {reason ? (
        <p class="hint" id="items-why">
          {reason}
        </p>
      ) : (
        <p class="hint">
          {currency === 'ISK' ? t('amountHintIsk') : t('amountHint', { currency })} {t('rowsHint')} {t('quantityRangeHint')}
        </p>
      )}
      <FieldMessages view={view} id={fieldId('items')} errors={errors.of('items')} />
      <div
        class="item-rows"
        data-item-rows=""
        data-legend={t('itemLegend', { n: '{n}' })}
        data-remove={t('removeRow')}
        data-max="200"
        data-whole-kronur={t('wholeKronur')}
      >
        {entry.items.map((row, i) => (
          <ItemRow view={view} t={t} row={row} i={i} errors={errors} currency={currency} disabled={disabled} />
        ))}
      </div>
      {disabled ? null : (
        <button type="submit" name="_action" value="addRow" class="secondary small" formnovalidate>
          {t('addRow')}
        </button>
      )}
      <div class="total">
        <span id="total-label">{t('total')}</span>{' '}
        <output
          id={fieldId('amount')}
          data-total=""
          data-money={moneySamples(view)}
          aria-labelledby="total-label"
          aria-describedby={`total-hint${errors.of('amount').length > 0 ? ` ${fieldId('amount')}-error` : ''}`}
        >
          {total === undefined ? '–' : <Money view={view} minor={total} currency={currency} />}
        </output>
        <span class="hint" id="total-hint">
          {t('totalHint')}
        </span>
        <FieldMessages view={view} id={fieldId('amount')} errors={errors.of('amount')} />
      </div>
    </fieldset>
  );
}

function ShopperSection({
  view,
  t,
  rows,
  errors,
  prefix,
}: {
  view: View;
  t: T;
  rows: readonly ShopperEntry[];
  errors: FieldErrors;
  prefix: FieldNames['shopper'];
}): Html {
  const options: Option[] = [{ value: '', label: t('reqNone') }, ...REQUIREMENT_TYPES.map((r) => ({ value: r, label: t(REQUIREMENT_KEY[r]) }))];
  // A table: each input is named by its row's and its column's headers (aria-labelledby), which are
  // on screen; on a narrow screen each cell shows its column's name above its input instead.
  const described = (name: string): { id: string; errors: readonly FieldError[]; attrs: Record<string, string> } => {
    const id = fieldId(name);
    const list = errors.of(name);
    return { id, errors: list, attrs: list.length > 0 ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-error` } : {} };
  };
  return (
    <fieldset class="shopper">
      <legend>{t('sectionShopper')}</legend>
      <p class="hint">{t('shopperLead')}</p>
      <table class="shopper-table">
        <thead>
          <tr>
            <th scope="col">{t('shopperField')}</th>
            <th scope="col" id="shopper-ask">
              {t('requirement')}
            </th>
            <th scope="col" id="shopper-value">
              {t('prefilledValue')}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s, i) => {
            const rowId = `shopper-${s.field}`;
            const req = described(`${prefix}[${i}].requirementType`);
            const val = described(`${prefix}[${i}].prefilledValue`);
            const field = `${prefix}[${i}].field`;
            return (
              <tr>
                <th scope="row" id={rowId}>
                  {fieldLabel(t, s.field)}
                  <FieldMessages view={view} id={fieldId(field)} errors={errors.of(field)} />
                </th>
                <td data-label={t('requirement')}>
                  <select id={req.id} name={`${prefix}[${i}].requirementType`} aria-labelledby={`${rowId} shopper-ask`} {...req.attrs}>
                    {options.map((o) => (
                      <option value={o.value} selected={o.value === s.requirementType}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                  <FieldMessages view={view} id={req.id} errors={req.errors} />
                </td>
                <td data-label={t('prefilledValue')}>
                  <input
                    type="text"
                    id={val.id}
                    name={`${prefix}[${i}].prefilledValue`}
                    value={s.prefilledValue}
                    maxLength={500}
                    aria-labelledby={`${rowId} shopper-value`}
                    {...val.attrs}
                  />
                  <FieldMessages view={view} id={val.id} errors={val.errors} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </fieldset>
  );
}

/** Every field a form shows an error beside (errors of any other go to the summary at its top). */
function shownFields(names: FieldNames): string[] {
  return [
    'terminalIdentifier',
    'currency',
    'description',
    'culture',
    'themeKey',
    'returnUrl',
    names.expiry,
    names.salesCap,
    'recurringProcessingModel',
    'amount',
    'items',
    names.shopper,
    ...SHOPPER_TEXT_FIELDS,
    ...CUSTOM_FIELD_SHOWN,
  ];
}

export function renderLinkForm(view: View, data: FormData): string {
  const t = translator(M, view.lang);
  const { entry, errors, type } = data;
  const names = data.mode === 'create' ? CREATE_NAMES : UPDATE_NAMES;
  const title = data.mode === 'edit' ? t('editTitle') : type === 'PayByLink' ? t('newPayTitle') : t('newTokenizeTitle');
  const back = data.link ? linkPath(data.link.paymentLinkReference) : `${PORTAL}/links`;
  const fixedReason = t('fixedReason');
  const soldReason = data.link && !data.withMoney ? t('soldReason', { count: formatNumber(data.link.salesCount, view.lang) }) : undefined;
  const lead =
    data.mode === 'edit' ? (
      t('editLead')
    ) : (
      <>
        {type === 'PayByLink' ? t('newPayLead') : t('newTokenizeLead')}{' '}
        <a href={`${PORTAL}/links/new?type=${type === 'PayByLink' ? 'TokenizeByLink' : 'PayByLink'}`}>
          {type === 'PayByLink' ? t('otherKindTokenize') : t('otherKindPay')}
        </a>
      </>
    );
  if (data.blocked) {
    return portalPage({
      view,
      title,
      section: 'links',
      children: <NothingToDo view={view} why={data.blocked} back={back} />,
    });
  }
  const terminals = data.terminals ?? [];
  const currencyOptions = CURRENCIES.map((c) => ({ value: c, label: c }));
  const cultureOptions = CULTURES.map((c) => ({ value: c, label: c === 'is' ? t('cultureIs') : t('cultureEn') }));
  const action = data.link ? `${linkPath(data.link.paymentLinkReference)}/edit` : `${PORTAL}/links`;
  const { Field, Select } = formScope(view, errors, entry);
  return portalPage({
    view,
    title,
    section: 'links',
    lead,
    children: (
      <form method="post" action={action} class="link-form" novalidate>
        {/* Enter in a text input submits with the form's first button: this one, not "Add a row". */}
        <button type="submit" class="visually-hidden" tabindex={-1} aria-hidden="true">
          {data.mode === 'edit' ? t('save') : t('create')}
        </button>
        <Csrf view={view} />
        {data.mode === 'create' ? <input type="hidden" name="type" value={type} /> : null}
        <ErrorSummary view={view} errors={errors} shownFields={shownFields(names)} />
        <fieldset>
          <legend>{t('sectionLink')}</legend>
          <div class="two">
            {data.link ? (
              <Field name="terminalIdentifier" label={t('terminal')} value={data.link.terminalIdentifier} disabled disabledReason={fixedReason} />
            ) : terminals.length === 0 ? (
              <div class="field">
                <Notice kind="warn">{t('noTerminals')}</Notice>
                <FieldMessages view={view} id={fieldId('terminalIdentifier')} errors={errors.of('terminalIdentifier')} />
              </div>
            ) : (
              <Select
                name="terminalIdentifier"
                label={t('terminal')}
                options={terminals.map((x) => ({ value: x, label: x }))}
                value={data.terminalIdentifier ?? terminals[0]}
              />
            )}
            {data.link ? <Field name="type" label={t('type')} value={t(TYPE_KEY[type])} disabled disabledReason={fixedReason} /> : null}
            <Select name="currency" label={view.t('currency')} options={currencyOptions} disabled={!data.withMoney} disabledReason={soldReason} />
            <Select name="culture" label={t('culture')} options={cultureOptions} />
          </div>
          <Field name="description" label={view.t('description')} hint={t('descriptionHint')} maxLength={500} multiline />
          {type === 'TokenizeByLink' ? (
            data.link ? (
              <Field
                name="recurringProcessingModel"
                label={t('recurring')}
                value={recurringLabel(t, data.link.recurringProcessingModel)}
                disabled
                disabledReason={fixedReason}
              />
            ) : (
              <Select
                name="recurringProcessingModel"
                label={t('recurring')}
                options={[{ value: '', label: t('chooseOne') }, ...RECURRING_MODELS.map((r) => ({ value: r, label: t(RECURRING_KEY[r]) }))]}
                value={data.recurringProcessingModel ?? ''}
                required
              />
            )
          ) : null}
        </fieldset>
        {data.withMoney ? <input type="hidden" name="money" value="1" /> : null}
        {type === 'PayByLink' ? <ItemsSection view={view} t={t} entry={entry} errors={errors} disabled={!data.withMoney} reason={soldReason} /> : null}
        <fieldset>
          <legend>{t('sectionOptions')}</legend>
          <div class="two">
            <Field name={names.expiry} type="datetime-local" label={t(names.expiry)} value={entry.expiry} hint={t('expiresHint')} step={60} />
            <Field name={names.salesCap} label={t(names.salesCap)} value={entry.salesCap} hint={t('salesHint')} inputmode="numeric" />
            <Field name="returnUrl" type="url" label={t('returnUrl')} hint={t('returnUrlHint')} maxLength={2048} />
            <Field name="themeKey" label={t('themeKey')} hint={t('themeKeyHint')} maxLength={64} />
          </div>
          {type === 'PayByLink' ? (
            <Checkbox name="allowPromotionCodes" label={t('allowPromotionCodes')} checked={entry.allowPromotionCodes} hint={t('allowPromotionCodesHint')} />
          ) : null}
          {type === 'PayByLink' ? (
            <>
              <input type="hidden" name={EMAIL_RECEIPTS_SHOWN} value="1" />
              <Checkbox name="emailReceipts" label={t('emailReceipts')} checked={entry.emailReceipts !== false} hint={t('emailReceiptsHint')} />
            </>
          ) : null}
        </fieldset>
        <ShopperSection view={view} t={t} rows={entry.shopper} errors={errors} prefix={names.shopper} />
        <ShopperTextsSection view={view} t={t} entry={entry} errors={errors} />
        <CustomFieldsSection view={view} rows={entry.customFields} errors={errors} />
        <div class="form-actions">
          <button type="submit" class="primary">
            {data.mode === 'edit' ? t('save') : t('create')}
          </button>
          <a href={back}>{view.t('cancel')}</a>
        </div>
      </form>
    ),
  });
}
