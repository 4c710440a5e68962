import type { Html } from '../../html/jsx-runtime.js';
import { formatDate, formatMoney, formatNumber } from '../../html/format.js';
import type { DailySales, PaymentListItem } from '../../payments/service.js';
import type { FailingWebhook } from '../../webhooks/deliveries/service.js';
import { messages, translator, type Translate } from '../i18n.js';
import type { View } from '../view.js';
import { Badge, Notice, Time } from '../views/components.js';
import { DataTable } from '../views/table.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { PaymentsTable } from '../payments/views.js';
import type { MerchantWaiting } from '../../payments/authorisations/service.js';
import { WaitingAuthorisations } from './authorisations.js';
import { Kept } from '../../kept.js';

// The overview, the portal's first page: sales of the last 7 or 30 days per currency with a chart
// drawn on the server (an SVG of bars, its figures also as a table), the newest payments, and the
// webhooks whose deliveries are failing.

const M = messages(
  {
    lead: 'How {merchant} is doing.',
    period: 'Period',
    last7: 'Last 7 days',
    last30: 'Last 30 days',
    sales: 'Sales',
    payments: 'Payments',
    refused: 'Refused',
    refunded: 'Refunded',
    chartLabel: 'Sales in {currency} per day, {from} to {to}: {total} in all.',
    showFigures: 'Show the figures as a table',
    day: 'Day',
    noSales: 'No payments in this period yet.',
    startHint: 'Make a payment link and send it to a customer: their payment shows here at once.',
    makeLink: 'Make a payment link',
    recent: 'Newest payments',
    allPayments: 'All payments',
    noPayments: 'No payments yet.',
    webhooks: 'Webhooks',
    webhooksFine: 'Every webhook is delivering: no failed deliveries in the last 7 days.',
    webhooksNone: 'There is no webhook yet: no event of your payments is sent anywhere.',
    webhookAdd: 'Add a webhook',
    webhooksFailing: 'Deliveries of these webhooks failed in the last 7 days:',
    failed: '{count} failed',
    retrying: '{count} being retried',
    disabled: 'Disabled',
    lastFailure: 'last {at}',
    deliveries: 'Deliveries',
  },
  {
    lead: 'Staðan hjá {merchant}.',
    period: 'Tímabil',
    last7: 'Síðustu 7 dagar',
    last30: 'Síðustu 30 dagar',
    sales: 'Sala',
    payments: 'Greiðslur',
    refused: 'Hafnað',
    refunded: 'Endurgreitt',
    chartLabel: 'Sala í {currency} á dag, {from} til {to}: {total} alls.',
    showFigures: 'Sýna tölurnar sem töflu',
    day: 'Dagur',
    noSales: 'Engar greiðslur á þessu tímabili enn.',
    startHint: 'Búðu til greiðsluhlekk og sendu viðskiptavini: greiðslan hans birtist hér strax.',
    makeLink: 'Búa til greiðsluhlekk',
    recent: 'Nýjustu greiðslur',
    allPayments: 'Allar greiðslur',
    noPayments: 'Engar greiðslur enn.',
    webhooks: 'Vefkrókar',
    webhooksFine: 'Allir vefkrókar skila sér: engar misheppnaðar sendingar síðustu 7 daga.',
    webhooksNone: 'Enginn vefkrókur er skráður enn: engir atburðir greiðslnanna eru sendir neitt.',
    webhookAdd: 'Skrá vefkrók',
    webhooksFailing: 'Sendingar þessara vefkróka mistókust síðustu 7 daga:',
    failed: '{count} mistókust',
    retrying: '{count} í endurtekningu',
    disabled: 'Óvirkur',
    lastFailure: 'síðast {at}',
    deliveries: 'Sendingar',
  },
);

type T = Translate<keyof typeof M.en>;

export const PERIODS = [7, 30] as const;
export type Period = (typeof PERIODS)[number];

interface CurrencySales {
  currency: string;
  days: { day: string; sales: number }[];
  sales: number;
  payments: number;
  refused: number;
  refunded: number;
}

/** Per currency (the largest first), every day of the period with its sales, days without any as 0. */
export function salesByCurrency(rows: readonly DailySales[], since: Date, period: number): CurrencySales[] {
  const days = Array.from({ length: period }, (_, i) => new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10));
  const by = new Map<string, CurrencySales>();
  for (const r of rows) {
    let c = by.get(r.currency);
    if (!c) {
      c = { currency: r.currency, days: days.map((day) => ({ day, sales: 0 })), sales: 0, payments: 0, refused: 0, refunded: 0 };
      by.set(r.currency, c);
    }
    const slot = c.days.find((d) => d.day === r.day);
    if (slot) slot.sales += r.sales;
    c.sales += r.sales;
    c.payments += r.payments;
    c.refused += r.refused;
    c.refunded += r.refunded;
  }
  return [...by.values()].sort((a, b) => b.payments - a.payments || a.currency.localeCompare(b.currency));
}

const dayDate = (day: string): Date => new Date(`${day}T00:00:00Z`);

/** The bars of one currency's sales: drawn to scale, each with its day and amount as a tooltip; the figures are in the table beside it. */
function Chart({ view, t, c }: { view: View; t: T; c: CurrencySales }): Html {
  const width = 700;
  const height = 190;
  // Room above the bars for the scale's label, also at the larger size it has on a phone.
  const top = 30;
  const bottom = 22;
  const plot = height - top - bottom;
  const max = Math.max(1, ...c.days.map((d) => d.sales));
  const step = width / c.days.length;
  const bar = Math.max(2, step * 0.7);
  const money = (minor: number) => formatMoney(minor, c.currency, view.lang);
  const first = c.days[0]?.day ?? '';
  const last = c.days.at(-1)?.day ?? '';
  const label = t('chartLabel', {
    currency: c.currency,
    from: formatDate(dayDate(first), view.lang),
    to: formatDate(dayDate(last), view.lang),
    total: money(c.sales),
  });
  const labelled = new Set([0, Math.floor((c.days.length - 1) / 2), c.days.length - 1]);
  return (
    <svg class="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label} preserveAspectRatio="none">
      <line class="axis" x1={0} y1={top + plot} x2={width} y2={top + plot} />
      <text x={0} y={22}>
        {money(max)}
      </text>
      {c.days.map((d, i) => {
        const h = d.sales === 0 ? 0 : Math.max(1, (d.sales / max) * plot);
        return (
          <g>
            <rect class="bar" x={i * step + (step - bar) / 2} y={top + plot - h} width={bar} height={h}>
              <title>{`${formatDate(dayDate(d.day), view.lang)}: ${money(d.sales)}`}</title>
            </rect>
            {labelled.has(i) ? (
              <text
                x={i === 0 ? 0 : i === c.days.length - 1 ? width : i * step + step / 2}
                y={height - 6}
                text-anchor={i === 0 ? 'start' : i === c.days.length - 1 ? 'end' : 'middle'}
              >
                {formatDate(dayDate(d.day), view.lang)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

function CurrencyPanel({ view, t, c }: { view: View; t: T; c: CurrencySales }): Html {
  const money = (minor: number) => formatMoney(minor, c.currency, view.lang);
  const id = `sales-${c.currency}`;
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>
        {t('sales')} · {c.currency}
      </h2>
      <div class="grid figures">
        <div>
          <p class="stat">{money(c.sales)}</p>
          <p class="stat-label">{t('sales')}</p>
        </div>
        <div>
          <p class="stat">{formatNumber(c.payments, view.lang)}</p>
          <p class="stat-label">{t('payments')}</p>
        </div>
        <div>
          <p class="stat">{formatNumber(c.refused, view.lang)}</p>
          <p class="stat-label">{t('refused')}</p>
        </div>
        <div>
          <p class="stat">{money(c.refunded)}</p>
          <p class="stat-label">{t('refunded')}</p>
        </div>
      </div>
      <Chart view={view} t={t} c={c} />
      <details>
        <summary>{t('showFigures')}</summary>
        <DataTable
          view={view}
          label={`${t('sales')} · ${c.currency}`}
          columns={[t('day'), { label: t('sales'), num: true }]}
          rows={c.days}
          row={(d) => (
            <tr>
              <td>{formatDate(dayDate(d.day), view.lang, true)}</td>
              <td class="num">{money(d.sales)}</td>
            </tr>
          )}
        />
      </details>
    </section>
  );
}

function Webhooks({ view, t, failing, hasWebhook }: { view: View; t: T; failing: readonly FailingWebhook[]; hasWebhook: boolean }): Html {
  return (
    <section class="panel" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">{t('webhooks')}</h2>
      {!hasWebhook ? (
        <p>
          {t('webhooksNone')}
          {view.can('webhooks.write') ? (
            <>
              {' '}
              <a href={`${PORTAL}/webhooks/new`}>{t('webhookAdd')}</a>
            </>
          ) : null}
        </p>
      ) : failing.length === 0 ? (
        <p>{t('webhooksFine')}</p>
      ) : (
        <>
          <p>{t('webhooksFailing')}</p>
          <ul class="failing">
            {failing.map((w) => (
              <li>
                <a class="break" href={`${PORTAL}/webhooks/${encodeURIComponent(w.webhookId)}/deliveries`}>
                  {w.description || w.url}
                </a>{' '}
                {w.failed > 0 ? <Badge tone="bad">{t('failed', { count: formatNumber(w.failed, view.lang) })}</Badge> : null}{' '}
                {w.retrying > 0 ? <Badge tone="warn">{t('retrying', { count: formatNumber(w.retrying, view.lang) })}</Badge> : null}{' '}
                {w.enabled ? null : <Badge tone="neutral">{t('disabled')}</Badge>}
                <div class="muted small">
                  {w.description ? <span class="mono break">{w.url} · </span> : null}
                  {t('lastFailure', { at: '' })}
                  <Time view={view} at={w.lastFailureAt} />
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

// A sales panel is the same markup for the same figures in the same language, and a merchant's
// figures change only with a payment: the panels are kept, so that the 30 days' chart and table (a
// bar, a tooltip and a row a day) are drawn once per change rather than at every visit.
const panels = new Kept<string, Html>(256);

function KeptCurrencyPanel(props: { view: View; t: T; c: CurrencySales }): Html {
  return panels.get(`${props.view.lang}\n${JSON.stringify(props.c)}`, () => CurrencyPanel(props));
}

export function renderOverview(
  view: View,
  data: {
    period: Period;
    since: Date;
    /** Authorisations waiting for capture, per currency. */
    waiting: readonly MerchantWaiting[];
    sales: readonly DailySales[];
    recent: readonly PaymentListItem[];
    failing: readonly FailingWebhook[] | null;
    /** Whether invitations to other merchants wait for the reader's answer. */
    invitationsWaiting: boolean;
    hasWebhook: boolean;
  },
): string {
  const t = translator(M, view.lang);
  const currencies = salesByCurrency(data.sales, data.since, data.period);
  return portalPage({
    view,
    title: view.t('navOverview'),
    section: 'overview',
    lead: t('lead', { merchant: view.merchant.name }),
    children: (
      <>
        {data.invitationsWaiting ? (
          <Notice kind="warn">
            {view.t('invitationsWaiting')} <a href={`${PORTAL}/invitations`}>{view.t('seeInvitations')}</a>
          </Notice>
        ) : null}
        <nav class="period" aria-label={t('period')}>
          {PERIODS.map((p) => (
            <a href={p === 7 ? PORTAL : `${PORTAL}?days=${p}`} aria-current={p === data.period ? 'page' : undefined}>
              {t(p === 7 ? 'last7' : 'last30')}
            </a>
          ))}
        </nav>
        {currencies.length === 0 ? (
          <div class="panel">
            <p>{t('noSales')}</p>
            {view.can('links.write') ? (
              <>
                <p class="muted">{t('startHint')}</p>
                <p>
                  <a class="button" href={`${PORTAL}/links/new`}>
                    {t('makeLink')}
                  </a>
                </p>
              </>
            ) : null}
          </div>
        ) : (
          currencies.map((c) => <KeptCurrencyPanel view={view} t={t} c={c} />)
        )}
        <WaitingAuthorisations view={view} waiting={data.waiting} />
        <section aria-labelledby="recent-title">
          <h2 id="recent-title">{t('recent')}</h2>
          {data.recent.length === 0 ? (
            <p class="empty panel">{t('noPayments')}</p>
          ) : (
            <>
              <PaymentsTable view={view} payments={data.recent} label={t('recent')} />
              <p>
                <a href={`${PORTAL}/payments`}>{t('allPayments')}</a>
              </p>
            </>
          )}
        </section>
        {data.failing !== null ? <Webhooks view={view} t={t} failing={data.failing} hasWebhook={data.hasWebhook} /> : null}
      </>
    ),
  });
}

export const OVERVIEW_STYLES = `
.period { display: flex; gap: .5rem; margin-bottom: 1rem; flex-wrap: wrap; }
.period a { padding: .3rem .8rem; border: 1px solid var(--border); border-radius: 999px; text-decoration: none; background: var(--panel); }
.period a[aria-current="page"] { background: var(--info-bg); color: var(--accent-dark); font-weight: 600; border-color: var(--accent); }
.figures { grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); margin-bottom: 1rem; }
.figures .stat { font-size: 1.4rem; overflow-wrap: anywhere; }
/* The chart is drawn 700 units wide: on a phone its labels are drawn larger to stay readable. */
@media (max-width: 600px) { .chart text { font-size: 24px; } }
.failing { padding-left: 1.1rem; }
.failing li { margin-bottom: .5rem; }
details summary { cursor: pointer; color: var(--accent-dark); margin-top: .5rem; }
`;
