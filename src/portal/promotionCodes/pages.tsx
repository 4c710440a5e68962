import type { Html } from '../../html/jsx-runtime.js';
import { formatMoney, formatNumber } from '../../html/format.js';
import { CURRENCIES } from '../../paymentLinks/schemas.js';
import type { PromotionCodeView } from '../../promotionCodes/service.js';
import { translator } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import { Badge, Checkbox, Csrf, ErrorSummary, Facts, formScope, Pager, Time } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { listPage } from '../views/listPage.js';
import { Td } from '../views/table.js';
import { M } from './messages.js';

// The promotion codes pages: the list (a page at a time), the form that makes a code, and the form that
// changes whether it is active, its expiry and its cap.

export const codePath = (id: string): string => `${PORTAL}/promotion-codes/${encodeURIComponent(id)}`;

/** What the form shows: the values as typed, or as stored. */
export interface CodeFormValues {
  code: string;
  kind: 'percent' | 'amount';
  percentOff: string;
  amountOff: string;
  currency: string;
  expiresAt: string;
  maxRedemptions: string;
  active: boolean;
}

export const NEW_CODE: CodeFormValues = {
  code: '',
  kind: 'percent',
  percentOff: '',
  amountOff: '',
  currency: 'ISK',
  expiresAt: '',
  maxRedemptions: '',
  active: true,
};

function discountText(view: View, c: PromotionCodeView): string {
  return c.percentOff !== null ? `${formatNumber(c.percentOff, view.lang)} %` : formatMoney(c.amountOff ?? 0, c.currency ?? 'ISK', view.lang);
}

function StatusBadge({ view, c, now }: { view: View; c: PromotionCodeView; now: Date }): Html {
  const t = translator(M, view.lang);
  if (!c.active) return <Badge tone="neutral">{t('statusInactive')}</Badge>;
  if (c.expiresAt !== null && Date.parse(c.expiresAt) <= now.getTime()) return <Badge tone="warn">{t('statusExpired')}</Badge>;
  if (c.maxRedemptions !== null && c.redemptionCount >= c.maxRedemptions) return <Badge tone="warn">{t('statusUsedUp')}</Badge>;
  return <Badge tone="ok">{t('statusActive')}</Badge>;
}

function uses(view: View, c: PromotionCodeView): string {
  const n = formatNumber(c.redemptionCount, view.lang);
  return c.maxRedemptions !== null ? `${n} / ${formatNumber(c.maxRedemptions, view.lang)}` : n;
}

export type ListData = { codes: PromotionCodeView[]; page: number; pageSize: number; totalCount: number; now: Date };

export function renderCodeList(view: View, data: ListData): string {
  const t = translator(M, view.lang);
  return listPage(view, t, {
    section: 'promotionCodes',
    actions: view.can('links.write') ? (
      <a class="button primary" href={`${PORTAL}/promotion-codes/new`}>
        {t('newCode')}
      </a>
    ) : undefined,
    table: {
      columns: [t('code'), t('discount'), t('status'), t('expiresAt'), { label: t('uses'), num: true }],
      rows: data.codes,
      row: (c) => (
        <tr>
          <Td>
            <a href={codePath(c.promotionCodeId)} class="mono">
              {c.code}
            </a>
          </Td>
          <Td>{discountText(view, c)}</Td>
          <Td>
            <StatusBadge view={view} c={c} now={data.now} />
          </Td>
          <Td>{c.expiresAt !== null ? <Time view={view} at={new Date(c.expiresAt)} /> : t('never')}</Td>
          <Td class="num">{uses(view, c)}</Td>
        </tr>
      ),
      empty: t('none'),
      emptyClass: 'empty panel',
    },
    after: <Pager view={view} base={`${PORTAL}/promotion-codes`} query={{}} page={data.page} pageSize={data.pageSize} total={data.totalCount} />,
  });
}

const NEW_FIELDS = ['code', 'kind', 'percentOff', 'amountOff', 'currency', 'expiresAt', 'maxRedemptions', 'active'];

function CommonFields({ view, values, errors }: { view: View; values: CodeFormValues; errors: FieldErrors }): Html {
  const t = translator(M, view.lang);
  const { Field } = formScope(view, errors, values);
  return (
    <>
      <Field name="expiresAt" type="datetime-local" label={t('expiresAt')} hint={t('expiresHint')} />
      <Field name="maxRedemptions" type="number" min={1} label={t('maxRedemptions')} hint={t('maxHint')} inputmode="numeric" />
      <Checkbox name="active" label={t('active')} checked={values.active} hint={t('activeHint')} />
    </>
  );
}

/** The form that makes a code. */
export function renderNewCode(view: View, data: { values: CodeFormValues; errors: FieldErrors }): string {
  const t = translator(M, view.lang);
  const { values, errors } = data;
  const { Field, Select } = formScope(view, errors, values);
  const kinds = [
    { value: 'percent', label: t('kindPercent') },
    { value: 'amount', label: t('kindAmount') },
  ];
  return portalPage({
    view,
    title: t('newCode'),
    section: 'promotionCodes',
    children: (
      <form method="post" action={`${PORTAL}/promotion-codes`} class="panel">
        <Csrf view={view} />
        <ErrorSummary view={view} errors={errors} shownFields={NEW_FIELDS} />
        <Field name="code" label={t('code')} hint={t('codeHint')} required maxLength={40} autocomplete="off" />
        <Select name="kind" label={t('kind')} options={kinds} />
        <div class="two">
          <Field name="percentOff" type="number" min={1} max={100} label={t('percentOff')} hint={t('percentHint')} inputmode="numeric" />
          <Field name="amountOff" label={t('amountOff')} hint={t('amountHint')} inputmode="decimal" />
        </div>
        <Select name="currency" label={t('currency')} options={CURRENCIES.map((c) => ({ value: c, label: c }))} />
        <CommonFields view={view} values={values} errors={errors} />
        <button type="submit" class="primary">
          {t('create')}
        </button>
      </form>
    ),
  });
}

/** A code: what it is, and the form that changes whether it is active, its expiry and its cap. */
export function renderEditCode(
  view: View,
  data: { code: PromotionCodeView; values: CodeFormValues; errors: FieldErrors; notice: 'created' | 'saved' | null; now: Date },
): string {
  const t = translator(M, view.lang);
  const { code: c, values, errors } = data;
  return portalPage({
    view,
    title: t('editTitle', { code: c.code }),
    section: 'promotionCodes',
    notice: data.notice ? t(data.notice) : null,
    children: (
      <>
        <Facts
          rows={[
            [t('code'), <span class="mono">{c.code}</span>],
            [t('discount'), discountText(view, c)],
            [t('status'), <StatusBadge view={view} c={c} now={data.now} />],
            [t('uses'), uses(view, c)],
          ]}
        />
        <p class="muted small">{t('fixedNote')}</p>
        {view.can('links.write') ? (
          <form method="post" action={codePath(c.promotionCodeId)} class="panel">
            <Csrf view={view} />
            <ErrorSummary view={view} errors={errors} shownFields={['expiresAt', 'maxRedemptions', 'active']} />
            <CommonFields view={view} values={values} errors={errors} />
            <button type="submit" class="primary">
              {t('save')}
            </button>
          </form>
        ) : null}
        <p>
          <a href={`${PORTAL}/promotion-codes`}>{t('backToList')}</a>
        </p>
      </>
    ),
  });
}
