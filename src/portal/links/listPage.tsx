import { formatDateTime, formatMoney, formatNumber, isoTime } from '../../html/format.js';
import { html } from '../../html/template.js';
import { LINK_STATUSES, type LinkStatus } from '../../paymentLinks/schemas.js';
import type { LinkSummary } from '../../paymentLinks/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { Field, Pager, Select, TableWrap } from '../views/components.js';
import { KeysetPager } from '../views/keysetPager.js';
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
