import type { Html } from '../../html/jsx-runtime.js';
import { formatMoney } from '../../html/format.js';
import type { WaitingAuthorisation } from '../../payments/authorisations/service.js';
import { messages, translator } from '../i18n.js';
import type { View } from '../view.js';
import { Badge, Money, Time } from '../views/components.js';
import { DataTable, Td } from '../views/table.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { paymentPath } from './views.js';

// The authorisations waiting for capture (docs/portal.md): payments with manual capture and
// pre-authorisations not captured in full, not reversed and not expired, newest first, each with what
// it still holds and when it expires; the overview links here, and to those that expire within a day.

export const AUTHORISATIONS_PATH = `${PORTAL}/payments/authorisations`;

const M = messages(
  {
    title: 'Authorisations waiting for capture',
    lead: 'Payments authorised with manual capture or as a pre-authorisation and not yet captured in full. What is not captured when one expires, {days} days after it was authorised, is released to the shopper.',
    show: 'Show',
    all: 'All',
    soon: 'Expiring within a day',
    authorised: 'Authorised',
    expires: 'Expires',
    waiting: 'Not captured',
    card: 'Card',
    payment: 'Payment',
    expiresSoon: 'Within a day',
    preAuth: 'Pre-authorisation',
    none: 'No authorisation waits for capture.',
    noneSoon: 'No authorisation expires within a day.',
    of: 'of {amount}',
  },
  {
    title: 'Heimildir sem bíða innheimtu',
    lead: 'Greiðslur sem voru heimilaðar með handvirkri innheimtu eða sem forheimild og eru ekki fullinnheimtar. Það sem er ekki innheimt þegar heimild rennur út, {days} dögum eftir að hún var veitt, losnar aftur til kaupandans.',
    show: 'Sýna',
    all: 'Allar',
    soon: 'Renna út innan sólarhrings',
    authorised: 'Heimilað',
    expires: 'Rennur út',
    waiting: 'Óinnheimt',
    card: 'Kort',
    payment: 'Greiðsla',
    expiresSoon: 'Innan sólarhrings',
    preAuth: 'Forheimild',
    none: 'Engin heimild bíður innheimtu.',
    noneSoon: 'Engin heimild rennur út innan sólarhrings.',
    of: 'af {amount}',
  },
);

export interface AuthorisationsData {
  soon: boolean;
  /** The setting the expiry is computed with. */
  days: number;
  /** Where "within a day" ends: an authorisation expiring by then is flagged. */
  soonBefore: Date;
  authorisations: readonly WaitingAuthorisation[];
  older: string | null;
  newer: string | null;
}

export function renderAuthorisations(view: View, data: AuthorisationsData): string {
  const t = translator(M, view.lang);
  const query: Record<string, string> = data.soon ? { soon: '1' } : {};
  const row = (a: WaitingAuthorisation): Html => (
    <tr>
      <Td>
        <Time view={view} at={a.authorisedAt} />
      </Td>
      <Td>
        <Time view={view} at={a.expiresAt} />
        {a.expiresAt.getTime() <= data.soonBefore.getTime() ? (
          <>
            {' '}
            <Badge tone="warn">{t('expiresSoon')}</Badge>
          </>
        ) : null}
      </Td>
      <Td class="num">
        <Money view={view} minor={a.remaining} currency={a.currency} />
        {a.capturedAmount > 0 ? <div class="muted small">{t('of', { amount: formatMoney(a.authorised, a.currency, view.lang) })}</div> : null}
      </Td>
      <Td class="nowrap">
        {a.paymentMethod} •••• {a.cardSummary}
      </Td>
      <Td>
        <a class="mono" href={paymentPath(a.payfacReference)}>
          {a.payfacReference}
        </a>
        {a.merchantReference || a.isPreAuth ? (
          <div class="muted small">{[a.merchantReference, a.isPreAuth ? t('preAuth') : null].filter((x) => x).join(' · ')}</div>
        ) : null}
      </Td>
    </tr>
  );
  return portalPage({
    view,
    title: t('title'),
    section: 'payments',
    lead: t('lead', { days: String(data.days) }),
    children: (
      <>
        <nav class="period" aria-label={t('show')}>
          <a href={AUTHORISATIONS_PATH} aria-current={data.soon ? undefined : 'page'}>
            {t('all')}
          </a>
          <a href={`${AUTHORISATIONS_PATH}?soon=1`} aria-current={data.soon ? 'page' : undefined}>
            {t('soon')}
          </a>
        </nav>
        <DataTable
          view={view}
          label={t('title')}
          columns={[t('authorised'), t('expires'), { label: t('waiting'), num: true }, t('card'), t('payment')]}
          rows={data.authorisations}
          row={row}
          empty={data.soon ? t('noneSoon') : t('none')}
          paging={{ base: AUTHORISATIONS_PATH, query, older: data.older, newer: data.newer }}
        />
      </>
    ),
  });
}
