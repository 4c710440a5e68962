import type { Html } from '../../html/jsx-runtime.js';
import { formatNumber } from '../../html/format.js';
import type { SessionDetails, SessionSummary } from '../../checkout/service.js';
import type { SessionStatus } from '../../checkout/schemas.js';
import type { PaymentSummary } from '../../payments/service.js';
import { messages, translator, type Translate } from '../i18n.js';
import type { View } from '../view.js';
import { PaymentsTable } from '../payments/views.js';
import { Badge, CopyField, Facts, Money, Time } from '../views/components.js';
import { DataTable, ItemsSection, Td } from '../views/table.js';
import { PORTAL, portalPage } from '../views/layout.js';

// The checkout session pages: the list, newest first, and a session's page with its payment.

const M = messages(
  {
    lead: 'Hosted checkouts your shop has started: each is one order to pay, open for up to 24 hours.',
    none: 'No checkout sessions yet. Your shop makes one for each order paid here.',
    statusNew: 'Open',
    statusCompleted: 'Completed',
    statusExpired: 'Expired',
    merchantReference: 'Your reference',
    checkoutReference: 'Checkout reference',
    expires: 'Expires',
    completedAt: 'Completed',
    facts: 'Details',
    address: 'Address of the payment page',
    returnUrl: 'Return address',
    abandonUrl: 'Address on cancel',
    terminal: 'Terminal',
    culture: 'Language of the payment page',
    cultureIs: 'Icelandic',
    cultureEn: 'English',
    capture: 'Capture',
    captureAtOnce: 'At once',
    captureManual: 'By you, later',
    captureDelay: '{hours} hours after authorisation',
    preAuth: 'Pre-authorisation',
    shopperReference: 'Shopper reference',
    shopperEmail: 'Shopper’s e-mail',
    recurring: 'Saves the card for',
    theme: 'Theme',
    defaultTheme: 'default',
    items: 'Items',
    itemName: 'Name',
    quantity: 'Quantity',
    unitPrice: 'Unit price',
    noItems: 'The shop sent no item lines.',
    payment: 'Payment',
    paidWith: 'Paid: payment {reference}',
    payments: 'Payment attempts',
    noPayments: 'No one has tried to pay yet.',
  },
  {
    lead: 'Greiðslusíður sem verslunin þín hefur stofnað: hver er ein pöntun til greiðslu, opin í allt að sólarhring.',
    none: 'Engar greiðslusíður enn. Verslunin stofnar eina fyrir hverja pöntun sem greidd er hér.',
    statusNew: 'Opin',
    statusCompleted: 'Lokin',
    statusExpired: 'Útrunnin',
    merchantReference: 'Þín tilvísun',
    checkoutReference: 'Tilvísun greiðslusíðu',
    expires: 'Rennur út',
    completedAt: 'Lokið',
    facts: 'Upplýsingar',
    address: 'Vefslóð greiðslusíðunnar',
    returnUrl: 'Vefslóð að greiðslu lokinni',
    abandonUrl: 'Vefslóð ef hætt er við',
    terminal: 'Útstöð',
    culture: 'Tungumál greiðslusíðunnar',
    cultureIs: 'Íslenska',
    cultureEn: 'Enska',
    capture: 'Innheimta',
    captureAtOnce: 'Strax',
    captureManual: 'Af þér, síðar',
    captureDelay: '{hours} klst. eftir heimild',
    preAuth: 'Forheimild',
    shopperReference: 'Tilvísun kaupanda',
    shopperEmail: 'Netfang kaupanda',
    recurring: 'Vistar kortið fyrir',
    theme: 'Útlit',
    defaultTheme: 'sjálfgefið',
    items: 'Vörulínur',
    itemName: 'Heiti',
    quantity: 'Magn',
    unitPrice: 'Einingarverð',
    noItems: 'Verslunin sendi engar vörulínur.',
    payment: 'Greiðsla',
    paidWith: 'Greitt: greiðsla {reference}',
    payments: 'Greiðslutilraunir',
    noPayments: 'Enginn hefur reynt að greiða enn.',
  },
);

type T = Translate<keyof typeof M.en>;

const STATUS = {
  New: ['statusNew', 'info'],
  Completed: ['statusCompleted', 'ok'],
  Expired: ['statusExpired', 'warn'],
} as const satisfies Record<SessionStatus, readonly [keyof typeof M.en, 'ok' | 'info' | 'warn']>;

function StatusBadge({ t, status }: { t: T; status: SessionStatus }): Html {
  const [key, tone] = STATUS[status];
  return <Badge tone={tone}>{t(key)}</Badge>;
}

const sessionPath = (reference: string): string => `${PORTAL}/sessions/${encodeURIComponent(reference)}`;

export function renderSessionList(view: View, data: { sessions: readonly SessionSummary[]; older: string | null; newer: string | null }): string {
  const t = translator(M, view.lang);
  return portalPage({
    view,
    title: view.t('navSessions'),
    section: 'sessions',
    lead: t('lead'),
    children: (
      <>
        <DataTable
          view={view}
          label={view.t('navSessions')}
          columns={[t('merchantReference'), view.t('status'), { label: view.t('amount'), num: true }, view.t('created'), t('expires')]}
          rows={data.sessions}
          empty={t('none')}
          paging={{ base: `${PORTAL}/sessions`, older: data.older, newer: data.newer }}
          row={(s) => (
            <tr>
              <Td class="wrap min-col">
                <a href={sessionPath(s.checkoutReference)}>{s.merchantReference}</a>
                <div class="muted small mono">{s.checkoutReference}</div>
              </Td>
              <Td>
                <StatusBadge t={t} status={s.status} />
              </Td>
              <Td class="num">
                <Money view={view} minor={s.amount} currency={s.currency} />
              </Td>
              <Td>
                <Time view={view} at={s.createdAt} />
              </Td>
              <Td>
                <Time view={view} at={s.expiresAt} />
              </Td>
            </tr>
          )}
        />
      </>
    ),
  });
}

export function renderSessionDetail(view: View, data: { session: SessionDetails; url: string; payments: readonly PaymentSummary[] }): string {
  const t = translator(M, view.lang);
  const s = data.session;
  const money = (minor: number) => <Money view={view} minor={minor} currency={s.currency} />;
  const capture = s.isManualCapture
    ? t('captureManual')
    : s.captureHoursDelay !== null
      ? t('captureDelay', { hours: formatNumber(s.captureHoursDelay, view.lang) })
      : t('captureAtOnce');
  return portalPage({
    view,
    title: s.merchantReference,
    section: 'sessions',
    lead: (
      <>
        <StatusBadge t={t} status={s.status} /> {money(s.amount)}
      </>
    ),
    children: (
      <>
        {s.payfacReference ? (
          <section class="panel" aria-labelledby="payment-title">
            <h2 id="payment-title">{t('payment')}</h2>
            <p>
              <a href={`${PORTAL}/payments/${encodeURIComponent(s.payfacReference)}`}>{t('paidWith', { reference: s.payfacReference })}</a>
              {s.completedAt ? (
                <>
                  {' · '}
                  <Time view={view} at={s.completedAt} />
                </>
              ) : null}
            </p>
          </section>
        ) : null}
        <section class="panel" aria-labelledby="facts-title">
          <h2 id="facts-title">{t('facts')}</h2>
          {s.status === 'New' ? <CopyField view={view} label={t('address')} value={data.url} id="session-url" /> : null}
          <Facts
            rows={[
              [t('checkoutReference'), <span class="mono">{s.reference}</span>],
              [t('merchantReference'), s.merchantReference],
              [view.t('amount'), money(s.amount)],
              [view.t('created'), <Time view={view} at={s.createdAt} />],
              [t('expires'), <Time view={view} at={s.expiresAt} />],
              s.completedAt ? [t('completedAt'), <Time view={view} at={s.completedAt} />] : null,
              [t('returnUrl'), <span class="mono">{s.returnUrl}</span>],
              s.abandonUrl ? [t('abandonUrl'), <span class="mono">{s.abandonUrl}</span>] : null,
              [t('capture'), capture],
              s.isPreAuth ? [t('preAuth'), view.t('yes')] : null,
              [t('terminal'), <span class="mono">{s.terminalIdentifier}</span>],
              [t('culture'), s.culture === 'en' ? t('cultureEn') : t('cultureIs')],
              [t('theme'), s.themeKey ?? t('defaultTheme')],
              s.merchantShopperReference ? [t('shopperReference'), s.merchantShopperReference] : null,
              s.shopperEmail ? [t('shopperEmail'), s.shopperEmail] : null,
              s.recurringProcessingModel ? [t('recurring'), s.recurringProcessingModel] : null,
            ]}
          />
        </section>
        <ItemsSection
          view={view}
          label={t('items')}
          empty={{ text: t('noItems'), class: 'empty panel' }}
          currency={s.currency}
          words={{ item: t('itemName'), quantity: t('quantity'), unitPrice: t('unitPrice'), amount: view.t('amount') }}
          lines={s.items.map((i) => ({ ...i, amountWithoutDiscount: null }))}
        />
        <section>
          <h2 id="payments-title">{t('payments')}</h2>
          {data.payments.length === 0 ? (
            <p class="empty panel">{t('noPayments')}</p>
          ) : (
            <PaymentsTable view={view} payments={data.payments} label={t('payments')} />
          )}
        </section>
      </>
    ),
  });
}
