import type { Html } from '../../html/jsx-runtime.js';
import type { AttemptView, DeliveryView } from '../../webhooks/deliveries/service.js';
import type { WebhookView } from '../../webhooks/service.js';
import type { View } from '../view.js';
import { Badge, Facts, Notice, PostButton, Time } from '../views/components.js';
import { portalPage } from '../views/layout.js';
import { Back, SECTION, StateBadge, at, deliveryHref, hrefOf, nameOf, words, type T } from './common.js';

// One delivery with every attempt (§Deliveries).

function Attempt({ view, t, a }: { view: View; t: T; a: AttemptView }): Html {
  const bodyId = `attempt-${a.attemptNumber}-body`;
  return (
    <section class="panel attempt" aria-labelledby={`attempt-${a.attemptNumber}-h`}>
      <h3 id={`attempt-${a.attemptNumber}-h`}>
        {t('attemptN', { n: a.attemptNumber })}{' '}
        {a.errorKind === null ? <Badge tone="ok">{a.responseStatus ?? ''}</Badge> : <Badge tone="bad">{t(`err${a.errorKind}`)}</Badge>}
      </h3>
      <Facts
        rows={[
          [t('sentAt'), <Time view={view} at={at(a.sentAt)} seconds />],
          [t('responseStatus'), a.responseStatus === null ? <span class="muted">{t('noAnswer')}</span> : <span class="num">{a.responseStatus}</span>],
          [t('duration'), <span class="num">{t('ms', { ms: a.durationMs })}</span>],
          // The badge names the kind, and a status is in its own row; other failures say why here (a certificate or connection error).
          a.errorKind !== null && a.errorKind !== 'status' && a.errorDetail ? [t('error'), a.errorDetail] : null,
          [t('correlationId'), <span class="mono">{a.correlationId}</span>],
        ]}
      />
      {a.responseBody ? (
        <>
          <h4 id={bodyId}>{t('responseBody')}</h4>
          <pre class="body" aria-labelledby={bodyId} tabindex={0}>
            {a.responseBody}
          </pre>
        </>
      ) : null}
    </section>
  );
}

export function renderDelivery(
  view: View,
  s: { webhook: WebhookView; delivery: DeliveryView & { body: string; attempts: AttemptView[] }; notice: 'redelivered' | 'notReceiving' | null },
): string {
  const t = words(view);
  const d = s.delivery;
  return portalPage({
    view,
    title: `${t('deliveryTitle')} ${d.deliveryId}`,
    section: SECTION,
    lead: nameOf(t, s.webhook),
    actions: view.can('webhooks.write') ? <PostButton view={view} action={`${deliveryHref(d)}/redeliver`} label={t('redeliver')} /> : null,
    children: (
      <>
        <Back href={`${hrefOf(d.webhookId)}/deliveries`} label={t('deliveriesTitle')} />
        {s.notice === 'redelivered' ? <Notice>{t('redelivered')}</Notice> : null}
        {s.notice === 'notReceiving' ? <Notice kind="error">{t('notReceiving')}</Notice> : null}
        <section class="panel">
          <Facts
            rows={[
              [t('state'), <StateBadge t={t} state={d.state} />],
              [t('event'), d.eventType],
              [t('payfacReference'), <span class="mono">{d.payfacReference}</span>],
              [t('attempts'), <span class="num">{d.attemptCount}</span>],
              d.waitingBehind
                ? [
                    t('waitingBehind'),
                    <>
                      <a class="mono" href={deliveryHref({ webhookId: d.webhookId, deliveryId: d.waitingBehind })}>
                        {d.waitingBehind}
                      </a>{' '}
                      <span class="muted small">{t('waitingBehindHint')}</span>
                    </>,
                  ]
                : d.nextAttemptAt
                  ? [t('nextAttempt'), <Time view={view} at={at(d.nextAttemptAt)} seconds />]
                  : null,
              [view.t('created'), <Time view={view} at={at(d.createdAt)} seconds />],
              [t('eventId'), <span class="mono">{d.eventId}</span>],
            ]}
          />
          <p class="muted small">{t('redeliverHint')}</p>
        </section>
        <section class="panel" aria-labelledby="body-h">
          <h2 id="body-h">{t('body')}</h2>
          <pre class="body" aria-labelledby="body-h" tabindex={0}>
            {d.body}
          </pre>
        </section>
        <h2>{t('attempts')}</h2>
        {d.attempts.length === 0 ? <p class="muted">{t('noAttempts')}</p> : d.attempts.map((a) => <Attempt view={view} t={t} a={a} />)}
      </>
    ),
  });
}
