import type { Html } from '../../html/jsx-runtime.js';
import { formatDateTime, formatNumber } from '../../html/format.js';
import type { Batch, Line } from '../../settlements/schemas.js';
import type { SettlementDetails } from '../../settlements/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { Badge, Facts, Money, Pager, Time } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { DataTable, Td } from '../views/table.js';
import { paymentPath } from '../payments/views.js';
import { M } from './messages.js';

// The settlements pages: the merchant's batches a page at a time, and a batch with its lines and its CSV.

export const settlementPath = (settlementId: string): string => `${PORTAL}/settlements/${encodeURIComponent(settlementId)}`;

export type ListData = { settlements: Batch[]; page: number; pageSize: number; totalCount: number };

export function renderSettlementList(view: View, data: ListData): string {
  const t = translator(M, view.lang);
  const row = (s: Batch): Html => (
    <tr>
      <Td>
        <a href={settlementPath(s.settlementId)}>
          <Time view={view} at={new Date(s.cutoffAt)} />
        </a>
        <div class="muted small mono">{s.settlementId}</div>
      </Td>
      <Td>{s.currency}</Td>
      <Td class="num">{formatNumber(s.lineCount, view.lang)}</Td>
      <Td class="num">
        <Money view={view} minor={s.grossAmount} currency={s.currency} />
      </Td>
      <Td class="num">
        <Money view={view} minor={s.feeAmount} currency={s.currency} />
      </Td>
      <Td class="num">
        <strong>
          <Money view={view} minor={s.netAmount} currency={s.currency} />
        </strong>
      </Td>
    </tr>
  );
  return portalPage({
    view,
    title: view.t('navSettlements'),
    section: 'settlements',
    lead: t('lead'),
    children: (
      <>
        <p class="muted small">{data.totalCount === 1 ? t('totalOne') : t('total', { count: formatNumber(data.totalCount, view.lang) })}</p>
        <DataTable
          view={view}
          label={view.t('navSettlements')}
          columns={[
            t('cutoff'),
            view.t('currency'),
            { label: t('lines'), num: true },
            { label: t('gross'), num: true },
            { label: t('fees'), num: true },
            { label: t('net'), num: true },
          ]}
          rows={data.settlements}
          row={row}
          empty={t('none')}
          emptyClass="empty panel"
        />
        <Pager view={view} base={`${PORTAL}/settlements`} query={{}} page={data.page} pageSize={data.pageSize} total={data.totalCount} />
      </>
    ),
  });
}

export function renderSettlementDetail(view: View, s: SettlementDetails): string {
  const t = translator(M, view.lang);
  const money = (minor: number) => <Money view={view} minor={minor} currency={s.currency} />;
  const row = (l: Line): Html => (
    <tr>
      <Td>
        <Badge tone={l.type === 'Capture' ? 'ok' : 'warn'}>{l.type === 'Capture' ? t('capture') : t('refund')}</Badge>
      </Td>
      <Td class="mono">{l.payfacReference}</Td>
      <Td>
        <a class="mono" href={paymentPath(l.originalPayfacReference)}>
          {l.originalPayfacReference}
        </a>
      </Td>
      <Td>
        <Time view={view} at={new Date(l.bookedAt)} />
      </Td>
      <Td class="num">{money(l.amount)}</Td>
      <Td class="num">{money(l.fee)}</Td>
    </tr>
  );
  return portalPage({
    view,
    title: t('settlementTitle', { date: formatDateTime(new Date(s.cutoffAt), view.lang) }),
    section: 'settlements',
    actions: (
      <a class="button secondary" href={`${settlementPath(s.settlementId)}/export.csv`} download>
        {t('downloadCsv')}
      </a>
    ),
    lead: <a href={`${PORTAL}/settlements`}>{t('backToList')}</a>,
    children: (
      <>
        <section class="panel" aria-labelledby="settlement-facts">
          <h2 id="settlement-facts">{t('settlement')}</h2>
          <Facts
            rows={[
              [view.t('reference'), <span class="mono">{s.settlementId}</span>],
              [t('cutoff'), <Time view={view} at={new Date(s.cutoffAt)} />],
              [view.t('currency'), s.currency],
              [t('lines'), formatNumber(s.lineCount, view.lang)],
              [t('gross'), money(s.grossAmount)],
              [t('fees'), money(s.feeAmount)],
              [t('net'), <strong>{money(s.netAmount)}</strong>],
            ]}
          />
          <p class="muted small">{t('csvHint')}</p>
        </section>
        <section aria-labelledby="settlement-lines">
          <h2 id="settlement-lines">{t('batchLines')}</h2>
          <DataTable
            view={view}
            label={t('batchLines')}
            columns={[t('type'), view.t('reference'), t('payment'), t('booked'), { label: view.t('amount'), num: true }, { label: t('fee'), num: true }]}
            rows={s.lines}
            row={row}
            empty={t('none')}
          />
        </section>
      </>
    ),
  });
}
