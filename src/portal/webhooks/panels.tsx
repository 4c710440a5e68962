import type { Html } from '../../html/jsx-runtime.js';
import { EVENT_TYPES, PAYMENT_EVENT_TYPES } from '../../webhooks/events.js';
import type { DeliveryView } from '../../webhooks/deliveries/service.js';
import type { WebhookView } from '../../webhooks/service.js';
import type { FieldErrors, View } from '../view.js';
import { CopyField, Csrf, Notice, Select, Time } from '../views/components.js';
import { DataTable, Td, type Paging } from '../views/table.js';
import { EventList, StateBadge, StatusBadge, at, deliveryHref, hrefOf, type T } from './common.js';

// The panels more than one webhook page shows: a webhook's facts, its recent deliveries, the
// sandbox's test event, and secrets shown once. A new setting of a webhook is one more row in
// webhookFacts.

export function ToWebhook({ t, w }: { t: T; w: WebhookView }): Html {
  return (
    <p>
      <a class="button secondary" href={hrefOf(w.webhookId)}>
        {t('toWebhook')}
      </a>
    </p>
  );
}

/** Secrets shown once, each with a copy button. */
export function Secrets({
  view,
  t,
  secrets,
  title,
}: {
  view: View;
  t: T;
  secrets: { apiKey: string; hmacKey: string; signingSecret: string };
  title?: string;
}): Html {
  return (
    <section class="panel" aria-labelledby={title ? 'secrets-h' : undefined}>
      {title ? <h2 id="secrets-h">{title}</h2> : null}
      <Notice kind="warn">
        <strong>{view.t('shownOnce')}</strong> {t('secretsIntro')}
      </Notice>
      <CopyField view={view} label={t('apiKey')} value={secrets.apiKey} id="secret-apiKey" secret />
      <CopyField view={view} label={t('hmacKey')} value={secrets.hmacKey} id="secret-hmacKey" secret />
      <CopyField view={view} label={t('signingSecret')} value={secrets.signingSecret} id="secret-signingSecret" secret />
      <p class="muted small">{t('verifyHow')}</p>
    </section>
  );
}

export function webhookFacts(view: View, t: T, w: WebhookView, previousUntil: string | null): (readonly [string, Html | string] | null)[] {
  return [
    [t('deliveredTo'), w.kind === 'listener' ? t('listener') : <span class="mono break">{w.url}</span>],
    [t('events'), <EventList t={t} types={w.eventTypes} />],
    [view.t('status'), <StatusBadge t={t} webhook={w} />],
    w.description ? [view.t('description'), w.description] : null,
    [t('lastSuccess'), w.lastSuccessAt === null ? t('never') : <Time view={view} at={at(w.lastSuccessAt)} />],
    w.failingSince !== null
      ? [
          t('failingSince'),
          <span>
            <Time view={view} at={at(w.failingSince)} /> <span class="muted small">{t('failedDeliveries', { n: w.failedDeliveries })}</span>
          </span>,
        ]
      : null,
    // A webhook in order gets one delivery at a time, whatever its limit says for unordered delivery.
    w.kind === 'url' ? [t('maxInFlight'), String(w.ordering === 'fifo' ? 1 : w.maxInFlight)] : null,
    w.kind === 'url' ? [t('rateLimit'), w.rateLimit === null ? t('noRateLimit') : t('perSecond', { n: w.rateLimit })] : null,
    w.kind === 'url' ? [t('ordering'), t(w.ordering === 'fifo' ? 'orderingFifo' : 'orderingUnordered')] : null,
    previousUntil !== null
      ? [
          t('previousUntil'),
          <span>
            <Time view={view} at={at(previousUntil)} /> <span class="muted small">{t('previousUntilNote')}</span>
          </span>,
        ]
      : null,
    [view.t('created'), <Time view={view} at={at(w.createdAt)} />],
    [t('changed'), <Time view={view} at={at(w.updatedAt)} />],
    [t('id'), <span class="mono">{w.webhookId}</span>],
  ];
}

/** A webhook's deliveries: the latest few on its page, a page of them on its deliveries page (with `empty` and `paging`). */
export function DeliveryTable(p: { view: View; t: T; deliveries: readonly DeliveryView[]; empty?: string; paging?: Paging }): Html {
  const { view, t } = p;
  return (
    <DataTable
      view={view}
      label={t('deliveriesLabel')}
      columns={[view.t('created'), t('event'), t('state'), { label: t('attempts'), num: true }, t('nextAttempt'), t('payfacReference')]}
      rows={p.deliveries}
      empty={p.empty}
      paging={p.paging}
      row={(d) => (
        <tr>
          <Td>
            <a href={deliveryHref(d)}>
              <Time view={view} at={at(d.createdAt)} seconds />
              <span class="visually-hidden">
                {' '}
                {t('delivery')} {d.deliveryId}
              </span>
            </a>
          </Td>
          <Td>{d.eventType}</Td>
          <Td>
            <StateBadge t={t} state={d.state} />
          </Td>
          <Td class="num">{d.attemptCount}</Td>
          <Td>
            {d.waitingBehind ? (
              <>
                {t('waitingBehind')} <span class="mono">{d.waitingBehind}</span>
              </>
            ) : (
              <Time view={view} at={at(d.nextAttemptAt)} />
            )}
          </Td>
          <Td class="mono">{d.payfacReference}</Td>
        </tr>
      )}
    />
  );
}

/** The sandbox's test event: a form only while the sandbox is on. */
export function TestEvent({ view, t, webhook, errors }: { view: View; t: T; webhook: WebhookView; errors?: FieldErrors }): Html | null {
  // The sandbox makes payment events only.
  const types = (webhook.eventTypes.length > 0 ? webhook.eventTypes : EVENT_TYPES).filter((x) => (PAYMENT_EVENT_TYPES as readonly string[]).includes(x));
  if (types.length === 0) return null;
  const preferred = types.includes('Adjustment') ? 'Adjustment' : (types[0] ?? 'Adjustment');
  return (
    <section class="panel" aria-labelledby="test-h">
      <h2 id="test-h">{t('testTitle')}</h2>
      <p class="muted">{t('testIntro')}</p>
      <form method="post" action={`${hrefOf(webhook.webhookId)}/test`} class="row-form">
        <Csrf view={view} />
        <Select view={view} name="eventType" label={t('eventType')} options={types.map((x) => ({ value: x, label: x }))} value={preferred} errors={errors} />
        <button type="submit" class="secondary">
          {t('sendTest')}
        </button>
      </form>
    </section>
  );
}
