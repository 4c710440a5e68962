import type { Html } from '../../html/jsx-runtime.js';
import { formatMoney, formatNumber } from '../../html/format.js';
import { LINK_STATUSES, type LinkStatus } from '../../paymentLinks/schemas.js';
import type { LinkSummary } from '../../paymentLinks/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { Badge, Field, Pager, Select, Time } from '../views/components.js';
import { DataTable, Td } from '../views/table.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { M } from './messages.js';
import { STATUS_KEY, STATUS_TONE, TYPE_KEY, linkPath } from './labels.js';

// The payment link list: every link of the merchant a page at a time, or a search by status and text.

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
  const actions = view.can('links.write') ? (
    <>
      <a class="button primary" href={`${PORTAL}/links/new?type=PayByLink`}>
        {t('newPayLink')}
      </a>
      <a class="button secondary" href={`${PORTAL}/links/new?type=TokenizeByLink`}>
        {t('newTokenizeLink')}
      </a>
    </>
  ) : undefined;
  const filters = (
    <form method="get" action={`${PORTAL}/links`} class="filters" role="search">
      <Select
        view={view}
        name="status"
        label={view.t('status')}
        value={status ?? ''}
        options={[{ value: '', label: t('statusAll') }, ...LINK_STATUSES.map((s) => ({ value: s, label: t(STATUS_KEY[s]) }))]}
      />
      <Field view={view} name="q" type="search" label={t('searchLabel')} value={q} maxLength={200} />
      <button type="submit" class="secondary">
        {view.t('search')}
      </button>
      {data.kind === 'search' ? <a href={`${PORTAL}/links`}>{view.t('clear')}</a> : null}
    </form>
  );
  // The busiest page of the portal: its rows' words are looked up once a page.
  const row = (l: LinkSummary): Html => (
    <tr>
      <Td class="wrap min-col">
        <a href={linkPath(l.paymentLinkReference)}>{l.description || l.paymentLinkReference}</a>
        {l.description ? <div class="muted small mono">{l.paymentLinkReference}</div> : null}
      </Td>
      <Td>
        <Badge tone={STATUS_TONE[l.status]}>{statusWord[l.status]}</Badge>
      </Td>
      <Td class="num">{l.type === 'PayByLink' ? formatMoney(l.amount, l.currency, view.lang) : '–'}</Td>
      <Td class="num">
        {l.maxSalesCount === null
          ? formatNumber(l.salesCount, view.lang)
          : t('salesOf', { sales: formatNumber(l.salesCount, view.lang), max: formatNumber(l.maxSalesCount, view.lang) })}
      </Td>
      <Td>{typeWord[l.type]}</Td>
      <Td>
        <Time view={view} at={l.createdAt} />
      </Td>
    </tr>
  );
  const empty = data.kind === 'all' && data.page === 0 ? t('noLinks') : t('noMatches');
  return portalPage({
    view,
    title: view.t('navLinks'),
    section: 'links',
    actions,
    lead: t('listLead'),
    children: (
      <>
        {filters}
        {data.kind === 'all' ? <p class="muted small">{t('linksTotal', { count: formatNumber(data.totalCount, view.lang) })}</p> : null}
        <DataTable
          view={view}
          label={view.t('navLinks')}
          columns={[
            view.t('description'),
            view.t('status'),
            { label: view.t('amount'), num: true },
            { label: t('sales'), num: true },
            t('type'),
            view.t('created'),
          ]}
          rows={data.links}
          row={row}
          empty={empty}
          emptyClass="empty panel"
          paging={data.kind === 'search' ? { base: `${PORTAL}/links`, query, older: data.older, newer: data.newer } : undefined}
        />
        {data.kind === 'all' ? (
          <Pager view={view} base={`${PORTAL}/links`} query={{}} page={data.page} pageSize={data.pageSize} total={data.totalCount} />
        ) : null}
      </>
    ),
  });
}
