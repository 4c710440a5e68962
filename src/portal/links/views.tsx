import type { VNode } from 'preact';
import type { FieldError } from '../../errors.js';
import { formatDateTime, formatMoney, formatNumber, isoTime } from '../../html/format.js';
import { html } from '../../html/template.js';
import { CULTURES, CURRENCIES, LINK_STATUSES, RECURRING_MODELS, REQUIREMENT_TYPES, type LinkStatus, type LinkType } from '../../paymentLinks/schemas.js';
import type { LinkSummary, PaymentLinkView } from '../../paymentLinks/service.js';
import type { PaymentSummary } from '../../payments/service.js';
import { translator, type Translate } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import {
  Badge,
  CopyField,
  Csrf,
  ErrorSummary,
  Facts,
  Field,
  FieldMessages,
  Money,
  Notice,
  Pager,
  Select,
  TableWrap,
  Time,
  fieldId,
  type Option,
} from '../views/components.js';
import { KeysetPager } from '../views/keysetPager.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { CREATE_NAMES, UPDATE_NAMES, minorOf, type FieldNames, type ItemEntry, type LinkEntry, type ShopperEntry } from './form.js';
import { M, type LinkKey } from './messages.js';
import { PaymentsTable } from '../payments/views.js';

// The payment link pages: the list, the create and edit forms, a link's page, and the confirmation
// before disabling.

type T = Translate<LinkKey>;

const STATUS_KEY = {
  Active: 'statusActive',
  Expired: 'statusExpired',
  Used: 'statusUsed',
  Disabled: 'statusDisabled',
  Completed: 'statusCompleted',
} as const satisfies Record<LinkStatus, LinkKey>;
const STATUS_TONE = { Active: 'ok', Expired: 'warn', Used: 'neutral', Disabled: 'bad', Completed: 'info' } as const satisfies Record<LinkStatus, string>;
const TYPE_KEY = { PayByLink: 'typePayByLink', TokenizeByLink: 'typeTokenizeByLink' } as const satisfies Record<LinkType, LinkKey>;
const RECURRING_KEY = {
  CardOnFile: 'recurringCardOnFile',
  Subscription: 'recurringSubscription',
  UnscheduledCardOnFile: 'recurringUnscheduledCardOnFile',
} as const satisfies Record<(typeof RECURRING_MODELS)[number], LinkKey>;
const REQUIREMENT_KEY = { Hidden: 'reqHidden', Optional: 'reqOptional', Required: 'reqRequired', Prefilled: 'reqPrefilled' } as const satisfies Record<
  (typeof REQUIREMENT_TYPES)[number],
  LinkKey
>;
const FIELD_KEY = {
  Ssn: 'fieldSsn',
  FullName: 'fieldFullName',
  Address: 'fieldAddress',
  PostCode: 'fieldPostCode',
  City: 'fieldCity',
  Country: 'fieldCountry',
  Telephone: 'fieldTelephone',
  EmailAddress: 'fieldEmailAddress',
  Comments: 'fieldComments',
} as const satisfies Record<ShopperEntry['field'], LinkKey>;

const linkPath = (reference: string): string => `${PORTAL}/links/${encodeURIComponent(reference)}`;

function StatusBadge({ t, status }: { t: T; status: string }): VNode {
  const s = (LINK_STATUSES as readonly string[]).includes(status) ? (status as LinkStatus) : 'Active';
  return <Badge tone={STATUS_TONE[s]}>{t(STATUS_KEY[s])}</Badge>;
}

const recurringLabel = (t: T, model: string | null): string =>
  model !== null && model in RECURRING_KEY ? t(RECURRING_KEY[model as keyof typeof RECURRING_KEY]) : (model ?? '–');
const fieldLabel = (t: T, field: string): string => (field in FIELD_KEY ? t(FIELD_KEY[field as keyof typeof FIELD_KEY]) : field);
const requirementLabel = (t: T, r: string): string => (r in REQUIREMENT_KEY ? t(REQUIREMENT_KEY[r as keyof typeof REQUIREMENT_KEY]) : r);

// ---------------------------------------------------------------- list

export type ListData =
  | { kind: 'all'; links: LinkSummary[]; page: number; pageSize: number; totalCount: number }
  | { kind: 'search'; links: LinkSummary[]; status: LinkStatus | null; q: string; older: string | null; newer: string | null };

export function renderLinkList(view: View, data: ListData): string {
  const t = translator(M, view.lang);
  const status = data.kind === 'search' ? data.status : null;
  const q = data.kind === 'search' ? data.q : '';
  const query: Record<string, string> = { ...(status ? { status } : {}), ...(q ? { q } : {}) };
  const statusWord = Object.fromEntries(LINK_STATUSES.map((s) => [s, t(STATUS_KEY[s])])) as Record<LinkStatus, string>;
  const typeWord = { PayByLink: t(TYPE_KEY.PayByLink), TokenizeByLink: t(TYPE_KEY.TokenizeByLink) };
  const actions = view.can('links.write')
    ? html`
        <a class="button primary" href="${PORTAL}/links/new?type=PayByLink">${t('newPayLink')}</a>
        <a class="button secondary" href="${PORTAL}/links/new?type=TokenizeByLink">${t('newTokenizeLink')}</a>`
    : undefined;
  // The busiest page of the portal: a template (src/html/template.ts), its rows' words looked up once a page.
  const filters = html`
    <form method="get" action="${PORTAL}/links" class="filters" role="search">
      ${Select({
        view,
        name: 'status',
        label: view.t('status'),
        value: status ?? '',
        options: [{ value: '', label: t('statusAll') }, ...LINK_STATUSES.map((s) => ({ value: s, label: t(STATUS_KEY[s]) }))],
      })}
      ${Field({ view, name: 'q', type: 'search', label: t('searchLabel'), value: q, maxLength: 200 })}
      <button type="submit" class="secondary">${view.t('search')}</button>
      ${data.kind === 'search' ? html`<a href="${PORTAL}/links">${view.t('clear')}</a>` : null}
    </form>`;
  const table = TableWrap({
    label: view.t('navLinks'),
    children: html`
      <table>
        <thead>
          <tr>
            <th scope="col">${view.t('description')}</th>
            <th scope="col">${view.t('status')}</th>
            <th scope="col" class="num">${view.t('amount')}</th>
            <th scope="col" class="num">${t('sales')}</th>
            <th scope="col">${t('type')}</th>
            <th scope="col">${view.t('created')}</th>
          </tr>
        </thead>
        <tbody>
          ${data.links.map(
            (l) => html`
              <tr>
                <td class="wrap min-col">
                  <a href="${linkPath(l.paymentLinkReference)}">${l.description || l.paymentLinkReference}</a>
                  ${l.description ? html`<div class="muted small mono">${l.paymentLinkReference}</div>` : null}
                </td>
                <td><span class="badge badge-${STATUS_TONE[l.status]}">${statusWord[l.status]}</span></td>
                <td class="num">${l.type === 'PayByLink' ? formatMoney(l.amount, l.currency, view.lang) : '–'}</td>
                <td class="num">${l.maxSalesCount === null ? formatNumber(l.salesCount, view.lang) : t('salesOf', { sales: formatNumber(l.salesCount, view.lang), max: formatNumber(l.maxSalesCount, view.lang) })}</td>
                <td>${typeWord[l.type]}</td>
                <td><time datetime="${isoTime(l.createdAt)}">${formatDateTime(l.createdAt, view.lang)}</time></td>
              </tr>`,
          )}
        </tbody>
      </table>`,
  });
  const empty = data.kind === 'all' && data.page === 0 ? t('noLinks') : t('noMatches');
  return portalPage({
    view,
    title: view.t('navLinks'),
    section: 'links',
    actions,
    lead: t('listLead'),
    children: html`
      ${filters}
      ${data.kind === 'all' ? html`<p class="muted small">${t('linksTotal', { count: formatNumber(data.totalCount, view.lang) })}</p>` : null}
      ${data.links.length === 0 ? html`<p class="empty panel">${empty}</p>` : table}
      ${
        data.kind === 'all'
          ? Pager({ view, base: `${PORTAL}/links`, query: {}, page: data.page, pageSize: data.pageSize, total: data.totalCount })
          : KeysetPager({
              base: `${PORTAL}/links`,
              query,
              older: data.older,
              newer: data.newer,
              words: { newer: t('newer'), older: t('older'), newest: t('newest') },
            })
      }`,
  });
}

// ---------------------------------------------------------------- create and edit

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
}): VNode {
  const name = (f: string): string => `items[${i}].${f}`;
  const price = minorOf(row.unitPrice);
  const quantity = /^\d+$/.test(row.quantity.trim()) ? Number(row.quantity) : undefined;
  const discount = row.discount.trim() === '' ? 0 : minorOf(row.discount);
  const line = price !== undefined && quantity !== undefined && discount !== undefined ? price * quantity - discount : undefined;
  return (
    <fieldset class="item-row" data-item-row="">
      <legend>{t('itemLegend', { n: i + 1 })}</legend>
      <Field
        view={view}
        name={name('name')}
        label={t('itemName')}
        value={row.name}
        errors={errors}
        maxLength={500}
        disabled={disabled}
        class="item-name"
        data={{ item: 'name' }}
      />
      <Field
        view={view}
        name={name('quantity')}
        label={t('quantity')}
        value={row.quantity}
        errors={errors}
        inputmode="numeric"
        disabled={disabled}
        class="item-quantity"
        data={{ item: 'quantity' }}
      />
      <Field
        view={view}
        name={name('unitPrice')}
        label={t('unitPrice')}
        value={row.unitPrice}
        errors={errors}
        inputmode="decimal"
        disabled={disabled}
        class="item-price"
        data={{ item: 'unitPrice' }}
      />
      <Field
        view={view}
        name={name('discount')}
        label={t('discount')}
        value={row.discount}
        errors={errors}
        inputmode="decimal"
        disabled={disabled}
        class="item-discount"
        data={{ item: 'discount' }}
      />
      <p class="item-line">
        <span class="muted small">{t('lineAmount')}</span>{' '}
        <output data-line="" for={`${fieldId(name('quantity'))} ${fieldId(name('unitPrice'))} ${fieldId(name('discount'))}`}>
          {line === undefined ? '–' : <Money view={view} minor={line} currency={currency} />}
        </output>
      </p>
    </fieldset>
  );
}

function totalOf(rows: readonly ItemEntry[]): number | undefined {
  let sum = 0;
  for (const r of rows) {
    if (r.name.trim() === '' && r.unitPrice.trim() === '' && r.discount.trim() === '') continue;
    const price = minorOf(r.unitPrice);
    const discount = r.discount.trim() === '' ? 0 : minorOf(r.discount);
    if (price === undefined || discount === undefined || !/^\d+$/.test(r.quantity.trim())) return undefined;
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
}): VNode {
  const currency = (CURRENCIES as readonly string[]).includes(entry.currency) ? entry.currency : 'ISK';
  const total = totalOf(entry.items);
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
          {t('amountHint', { currency })} {t('rowsHint')}
        </p>
      )}
      <FieldMessages view={view} id={fieldId('items')} errors={errors.of('items')} />
      <div class="item-rows" data-item-rows="" data-legend={t('itemLegend', { n: '{n}' })} data-remove={t('removeRow')} data-max="200">
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
}): VNode {
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
      children: (
        <>
          <Notice kind="warn">{data.blocked}</Notice>
          <p>
            <a href={back}>{view.t('back')}</a>
          </p>
        </>
      ),
    });
  }
  const terminals = data.terminals ?? [];
  const currencyOptions = CURRENCIES.map((c) => ({ value: c, label: c }));
  const cultureOptions = CULTURES.map((c) => ({ value: c, label: c === 'is' ? t('cultureIs') : t('cultureEn') }));
  const action = data.link ? `${linkPath(data.link.paymentLinkReference)}/edit` : `${PORTAL}/links`;
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
              <Field
                view={view}
                name="terminalIdentifier"
                label={t('terminal')}
                value={data.link.terminalIdentifier}
                disabled
                disabledReason={fixedReason}
                errors={errors}
              />
            ) : terminals.length === 0 ? (
              <div class="field">
                <Notice kind="warn">{t('noTerminals')}</Notice>
                <FieldMessages view={view} id={fieldId('terminalIdentifier')} errors={errors.of('terminalIdentifier')} />
              </div>
            ) : (
              <Select
                view={view}
                name="terminalIdentifier"
                label={t('terminal')}
                options={terminals.map((x) => ({ value: x, label: x }))}
                value={data.terminalIdentifier ?? terminals[0]}
                errors={errors}
              />
            )}
            {data.link ? (
              <Field view={view} name="type" label={t('type')} value={t(TYPE_KEY[type])} disabled disabledReason={fixedReason} errors={errors} />
            ) : null}
            <Select
              view={view}
              name="currency"
              label={view.t('currency')}
              options={currencyOptions}
              value={entry.currency}
              errors={errors}
              disabled={!data.withMoney}
              disabledReason={soldReason}
            />
            <Select view={view} name="culture" label={t('culture')} options={cultureOptions} value={entry.culture} errors={errors} />
          </div>
          <Field
            view={view}
            name="description"
            label={view.t('description')}
            value={entry.description}
            errors={errors}
            hint={t('descriptionHint')}
            maxLength={500}
            multiline
          />
          {type === 'TokenizeByLink' ? (
            data.link ? (
              <Field
                view={view}
                name="recurringProcessingModel"
                label={t('recurring')}
                value={recurringLabel(t, data.link.recurringProcessingModel)}
                disabled
                disabledReason={fixedReason}
                errors={errors}
              />
            ) : (
              <Select
                view={view}
                name="recurringProcessingModel"
                label={t('recurring')}
                options={[{ value: '', label: t('chooseOne') }, ...RECURRING_MODELS.map((r) => ({ value: r, label: t(RECURRING_KEY[r]) }))]}
                value={data.recurringProcessingModel ?? ''}
                errors={errors}
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
            <Field
              view={view}
              name={names.expiry}
              type="datetime-local"
              label={t(names.expiry)}
              value={entry.expiry}
              errors={errors}
              hint={t('expiresHint')}
              step={60}
            />
            <Field
              view={view}
              name={names.salesCap}
              label={t(names.salesCap)}
              value={entry.salesCap}
              errors={errors}
              hint={t('salesHint')}
              inputmode="numeric"
            />
            <Field
              view={view}
              name="returnUrl"
              type="url"
              label={t('returnUrl')}
              value={entry.returnUrl}
              errors={errors}
              hint={t('returnUrlHint')}
              maxLength={2048}
            />
            <Field view={view} name="themeKey" label={t('themeKey')} value={entry.themeKey} errors={errors} hint={t('themeKeyHint')} maxLength={64} />
          </div>
        </fieldset>
        <ShopperSection view={view} t={t} rows={entry.shopper} errors={errors} prefix={names.shopper} />
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

// ---------------------------------------------------------------- a link's page

export type DetailNotice = 'created' | 'updated' | 'disabled' | null;

export function renderLinkDetail(
  view: View,
  data: { link: PaymentLinkView; payments: readonly PaymentSummary[]; paymentsLimit: number; notice: DetailNotice },
): string {
  const t = translator(M, view.lang);
  const { link } = data;
  const path = linkPath(link.paymentLinkReference);
  const canWrite = view.can('links.write');
  const editable = link.status !== 'Disabled' && link.status !== 'Completed';
  const money = (minor: number) => <Money view={view} minor={minor} currency={link.currency} />;
  const actions = canWrite ? (
    <>
      {editable ? (
        <a class="button secondary" href={`${path}/edit`}>
          {t('edit')}
        </a>
      ) : null}
      {link.status !== 'Disabled' ? (
        <a class="button danger" href={`${path}/disable`}>
          {t('disable')}
        </a>
      ) : null}
    </>
  ) : undefined;
  const notice =
    data.notice === 'created' ? t('createdNotice') : data.notice === 'updated' ? t('updatedNotice') : data.notice === 'disabled' ? t('disabledNotice') : null;
  return portalPage({
    view,
    title: link.description || link.paymentLinkReference,
    section: 'links',
    actions,
    lead: (
      <>
        <StatusBadge t={t} status={link.status} /> {t(TYPE_KEY[link.type as LinkType])}
      </>
    ),
    children: (
      <>
        {notice ? <Notice>{notice}</Notice> : null}
        <section class="panel share" aria-labelledby="share-title">
          <h2 id="share-title">{t('share')}</h2>
          <div class="share-body">
            <div>
              <CopyField view={view} label={t('linkAddress')} value={link.url} id="link-url" />
              <p>
                <a href={`${path}/qr.svg?download=1`} download={`paylink-${link.paymentLinkReference}.svg`}>
                  {t('qrDownload')}
                </a>
              </p>
            </div>
            <img class="qr" src={`${path}/qr.svg`} alt={t('qrAlt')} width={160} height={160} />
          </div>
        </section>
        <div class="grid">
          <section class="panel" aria-labelledby="facts-title">
            <h2 id="facts-title">{t('facts')}</h2>
            <Facts
              rows={[
                [view.t('reference'), <span class="mono">{link.paymentLinkReference}</span>],
                link.type === 'PayByLink' ? [view.t('amount'), money(link.amount)] : [view.t('currency'), link.currency],
                [
                  t('salesCount'),
                  link.maxSalesCount === null
                    ? `${formatNumber(link.salesCount, view.lang)} (${t('unlimited')})`
                    : t('salesOf', { sales: formatNumber(link.salesCount, view.lang), max: formatNumber(link.maxSalesCount, view.lang) }),
                ],
                [t('visits'), formatNumber(link.visitCount, view.lang)],
                [view.t('created'), <Time view={view} at={new Date(link.createdAt)} />],
                [t('validUntil'), link.validUntil ? <Time view={view} at={new Date(link.validUntil)} /> : view.t('never')],
                [t('terminalIdentifier'), <span class="mono">{link.terminalIdentifier}</span>],
                [t('culture'), link.culture === 'en' ? t('cultureEn') : t('cultureIs')],
                [t('theme'), link.themeKey ?? t('defaultTheme')],
                [t('returnUrl'), link.returnUrl ? <span class="mono">{link.returnUrl}</span> : '–'],
                link.type === 'TokenizeByLink' ? [t('recurringModel'), recurringLabel(t, link.recurringProcessingModel)] : null,
              ]}
            />
          </section>
          <section class="panel" aria-labelledby="shopper-title">
            <h2 id="shopper-title">{t('shopperFields')}</h2>
            {link.shopperInfos.length === 0 ? (
              <p class="muted">{t('noShopperFields')}</p>
            ) : (
              <Facts
                rows={link.shopperInfos.map(
                  (s) =>
                    [fieldLabel(t, s.field), `${requirementLabel(t, s.requirementType)}${s.prefilledValue !== null ? `: ${s.prefilledValue}` : ''}`] as const,
                )}
              />
            )}
          </section>
        </div>
        {link.type === 'PayByLink' ? (
          <section>
            <h2 id="items-title">{t('sectionItems')}</h2>
            {link.items.length === 0 ? (
              <p class="muted">{t('noItems')}</p>
            ) : (
              <TableWrap label={t('sectionItems')}>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('itemName')}</th>
                      <th scope="col" class="num">
                        {t('quantity')}
                      </th>
                      <th scope="col" class="num">
                        {t('unitPrice')}
                      </th>
                      <th scope="col" class="num">
                        {t('discount')}
                      </th>
                      <th scope="col" class="num">
                        {t('lineAmount')}
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {link.items.map((i) => (
                      <tr>
                        <td class="wrap">{i.name}</td>
                        <td class="num">{formatNumber(i.quantity, view.lang)}</td>
                        <td class="num">{money(i.unitPrice)}</td>
                        <td class="num">{i.amountWithoutDiscount === i.amount ? '–' : money(i.amountWithoutDiscount - i.amount)}</td>
                        <td class="num">{money(i.amount)}</td>
                      </tr>
                    ))}
                  </tbody>
                  <tfoot>
                    <tr>
                      <th scope="row" colspan={4}>
                        {t('total')}
                      </th>
                      <td class="num">
                        <strong>{money(link.amount)}</strong>
                      </td>
                    </tr>
                  </tfoot>
                </table>
              </TableWrap>
            )}
          </section>
        ) : null}
        <section>
          <h2 id="submissions-title">{t('submissions')}</h2>
          <p class="muted small">{t('submissionsLead')}</p>
          {link.submissions.length === 0 ? (
            <p class="empty panel">{t('noSubmissions')}</p>
          ) : (
            <TableWrap label={t('submissions')}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('answers')}</th>
                    <th scope="col">{t('completed')}</th>
                    <th scope="col" class="num">
                      {view.t('amount')}
                    </th>
                    <th scope="col">{t('payment')}</th>
                  </tr>
                </thead>
                <tbody>
                  {link.submissions.map((s) => (
                    <tr>
                      <td class="wrap">
                        {s.answers.length === 0 ? (
                          <span class="muted">–</span>
                        ) : (
                          <ul class="answers">
                            {s.answers.map((a) => (
                              <li>
                                <span class="muted">{fieldLabel(t, a.field)}:</span> {a.value}
                              </li>
                            ))}
                          </ul>
                        )}
                      </td>
                      <td>{s.completed ? <Badge tone="ok">{view.t('yes')}</Badge> : <Badge tone="neutral">{view.t('no')}</Badge>}</td>
                      <td class="num">
                        <Money view={view} minor={s.amount} currency={s.currency} />
                      </td>
                      <td>
                        {s.payfacReference ? (
                          <a class="mono" href={`${PORTAL}/payments/${encodeURIComponent(s.payfacReference)}`}>
                            {s.payfacReference}
                          </a>
                        ) : (
                          '–'
                        )}
                        {s.token ? (
                          <div class="muted small">
                            {t('savedCard')} <span class="mono break">{s.token}</span>
                          </div>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </section>
        <section>
          <h2 id="payments-title">{t('payments')}</h2>
          {data.payments.length === 0 ? (
            <p class="empty panel">{t('noPayments')}</p>
          ) : (
            <>
              {data.payments.length >= data.paymentsLimit ? <p class="muted small">{t('paymentsLead', { count: data.paymentsLimit })}</p> : null}
              <PaymentsTable view={view} payments={data.payments} label={t('payments')} />
            </>
          )}
        </section>
      </>
    ),
  });
}

// ---------------------------------------------------------------- disable

export function renderDisable(view: View, link: PaymentLinkView): string {
  const t = translator(M, view.lang);
  const path = linkPath(link.paymentLinkReference);
  const already = link.status === 'Disabled';
  return portalPage({
    view,
    title: t('disableTitle'),
    section: 'links',
    children: already ? (
      <>
        <Notice kind="warn">{t('alreadyDisabled')}</Notice>
        <p>
          <a href={path}>{view.t('back')}</a>
        </p>
      </>
    ) : (
      <div class="panel">
        <p>{t('disableText', { description: link.description ? `“${link.description}”` : t('thisLink') })}</p>
        <p class="mono small break">{link.url}</p>
        <form method="post" action={`${path}/disable`} class="form-actions" data-confirm={t('disableTitle')}>
          <Csrf view={view} />
          <button type="submit" class="danger">
            {t('disableConfirm')}
          </button>
          <a href={path}>{view.t('cancel')}</a>
        </form>
      </div>
    ),
  });
}
