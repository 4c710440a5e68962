import type { Html } from '../../html/jsx-runtime.js';
import { formatNumber } from '../../html/format.js';
import type { MerchantWaiting } from '../../payments/authorisations/service.js';
import { messages, translator } from '../i18n.js';
import type { View } from '../view.js';
import { Badge, Money } from '../views/components.js';
import { PORTAL } from '../views/layout.js';

// The overview's panel of authorisations waiting for capture (docs/portal.md): how many and how much
// per currency, how many expire within a day, and the way to the list of them. Nothing when none waits:
// a merchant who captures at once never sees it.

const M = messages(
  {
    title: 'Waiting for capture',
    count: '{count} authorisations',
    countOne: '1 authorisation',
    expiring: '{count} expire within a day',
    expiringOne: '1 expires within a day',
    hint: 'What is not captured when an authorisation expires is released to the shopper.',
    list: 'See the authorisations waiting',
    listSoon: 'See those that expire soon',
  },
  {
    title: 'Bíða innheimtu',
    count: '{count} heimildir',
    countOne: '1 heimild',
    expiring: '{count} renna út innan sólarhrings',
    expiringOne: '1 rennur út innan sólarhrings',
    hint: 'Það sem er ekki innheimt þegar heimild rennur út losnar aftur til kaupandans.',
    list: 'Sjá heimildirnar sem bíða',
    listSoon: 'Sjá þær sem renna brátt út',
  },
);

const LIST = `${PORTAL}/payments/authorisations`;

export function WaitingAuthorisations({ view, waiting }: { view: View; waiting: readonly MerchantWaiting[] }): Html | null {
  if (waiting.length === 0) return null;
  const t = translator(M, view.lang);
  const soon = waiting.reduce((n, w) => n + w.expiringSoon, 0);
  return (
    <section class="panel" aria-labelledby="waiting-title">
      <h2 id="waiting-title">{t('title')}</h2>
      <div class="grid figures">
        {waiting.map((w) => (
          <div>
            <p class="stat">
              <Money view={view} minor={w.amount} currency={w.currency} />
            </p>
            <p class="stat-label">{w.count === 1 ? t('countOne') : t('count', { count: formatNumber(w.count, view.lang) })}</p>
            {w.expiringSoon > 0 ? (
              <Badge tone="warn">{w.expiringSoon === 1 ? t('expiringOne') : t('expiring', { count: formatNumber(w.expiringSoon, view.lang) })}</Badge>
            ) : null}
          </div>
        ))}
      </div>
      <p class="muted small">{t('hint')}</p>
      <p>
        <a href={LIST}>{t('list')}</a>
        {soon > 0 ? (
          <>
            {' · '}
            <a href={`${LIST}?soon=1`}>{t('listSoon')}</a>
          </>
        ) : null}
      </p>
    </section>
  );
}
