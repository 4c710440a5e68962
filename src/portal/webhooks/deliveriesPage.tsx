import type { DeliveryView } from '../../webhooks/deliveries/service.js';
import type { WebhookView } from '../../webhooks/service.js';
import type { FieldErrors, View } from '../view.js';
import { Csrf, ErrorSummary, Field, Notice, Select } from '../views/components.js';
import { aboutWebhook, hrefOf, nameOf, words } from './common.js';
import { DeliveryTable, TestEvent } from './panels.js';

// The deliveries of a webhook (§Deliveries), with the form that queues its failed deliveries of a time
// range again.

export interface RecoverForm {
  since: string;
  until: string;
  errors: FieldErrors;
  outcome: { requeued: number; repeated: boolean } | null;
  /** The webhook takes no deliveries now (disabled). */
  problem: 'notReceiving' | null;
}

export function renderDeliveries(
  view: View,
  s: {
    webhook: WebhookView;
    deliveries: readonly DeliveryView[];
    older: string | null;
    newer: string | null;
    state: DeliveryView['state'] | null;
    recover: RecoverForm;
    notice: 'tested' | null;
    sandbox: boolean;
  },
): string {
  const t = words(view);
  const w = s.webhook;
  const base = `${hrefOf(w.webhookId)}/deliveries`;
  const write = view.can('webhooks.write');
  const r = s.recover;
  return aboutWebhook(view, t, w, {
    title: t('deliveriesTitle'),
    lead: nameOf(t, w),
    back: w.description || t('webhookTitle'),
    children: (
      <>
        {s.notice === 'tested' ? <Notice>{t('tested')}</Notice> : null}
        {r.outcome ? (
          <Notice>{r.outcome.repeated ? t('recoveredBefore', { count: r.outcome.requeued }) : t('recovered', { count: r.outcome.requeued })}</Notice>
        ) : null}
        <form method="get" action={base} class="filters">
          <Select
            view={view}
            name="state"
            label={t('state')}
            value={s.state ?? ''}
            options={[
              { value: '', label: view.t('all') },
              { value: 'Pending', label: t('statePending') },
              { value: 'Delivered', label: t('stateDelivered') },
              { value: 'Failed', label: t('stateFailed') },
            ]}
          />
          <button type="submit" class="secondary">
            {view.t('filter')}
          </button>
        </form>
        <DeliveryTable
          view={view}
          t={t}
          deliveries={s.deliveries}
          empty={s.state ? t('noMatching') : t('noDeliveries')}
          paging={{ base, query: s.state ? { state: s.state } : {}, older: s.older, newer: s.newer }}
        />
        {write ? (
          <section class="panel" id="recover" aria-labelledby="recover-h">
            <h2 id="recover-h">{t('recoverTitle')}</h2>
            <p class="muted">{t('recoverIntro')}</p>
            {/* The fragment brings a refused window back into view. */}
            <form method="post" action={`${hrefOf(w.webhookId)}/recover#recover`} novalidate>
              <Csrf view={view} />
              <ErrorSummary view={view} errors={r.errors} shownFields={['since', 'until']} />
              {r.problem ? <Notice kind="error">{t(r.problem)}</Notice> : null}
              <div class="row-form">
                <Field view={view} name="since" label={t('since')} type="datetime-local" value={r.since} errors={r.errors} required />
                <Field view={view} name="until" label={t('until')} type="datetime-local" value={r.until} errors={r.errors} />
                <button type="submit" class="secondary">
                  {t('recover')}
                </button>
              </div>
            </form>
          </section>
        ) : null}
        {s.sandbox && write ? <TestEvent view={view} t={t} webhook={w} /> : null}
      </>
    ),
  });
}
