import { formatDateTime } from '../../html/format.js';
import type { DeliveryView } from '../../webhooks/deliveries/service.js';
import type { WebhookView } from '../../webhooks/service.js';
import type { FieldErrors, View } from '../view.js';
import { Facts, Notice, PostButton } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { Back, SECTION, hrefOf, nameOf, words } from './common.js';
import { DeliveryTable, TestEvent, webhookFacts } from './panels.js';

// One webhook's page (§Webhooks): its facts, its recent deliveries and the sandbox's test event. A new
// panel (the endpoint's health) is one more section here.

export type WebhookNotice = 'saved' | 'enabled' | 'disabled' | 'tested';

export function renderWebhook(
  view: View,
  s: {
    webhook: WebhookView;
    previousUntil: string | null;
    recent: readonly DeliveryView[];
    notice: WebhookNotice | null;
    sandbox: boolean;
    testErrors: FieldErrors;
  },
): string {
  const t = words(view);
  const w = s.webhook;
  const base = hrefOf(w.webhookId);
  const write = view.can('webhooks.write');
  const notices: Record<WebhookNotice, string> = { saved: view.t('saved'), enabled: t('wasEnabled'), disabled: t('wasDisabled'), tested: t('tested') };
  return portalPage({
    view,
    title: w.description || t('webhookTitle'),
    section: SECTION,
    lead: nameOf(t, w),
    actions: write ? (
      <>
        <a class="button secondary" href={`${base}/edit`}>
          {t('edit')}
        </a>
        {w.enabled ? (
          <PostButton view={view} action={`${base}/disable`} label={t('disable')} />
        ) : (
          <PostButton view={view} action={`${base}/enable`} label={t('enable')} kind="primary" />
        )}
        <a class="button secondary" href={`${base}/rotate`}>
          {t('rotate')}
        </a>
        <a class="button danger" href={`${base}/delete`}>
          {t('delete')}
        </a>
      </>
    ) : null,
    children: (
      <>
        <Back href={`${PORTAL}/webhooks`} label={view.t('navWebhooks')} />
        {s.notice ? <Notice>{notices[s.notice]}</Notice> : null}
        {!w.enabled ? (
          <Notice kind="warn">
            {w.disabledReason === 'failing' && w.disabledAt !== null
              ? t('autoDisabledNote', { at: formatDateTime(new Date(w.disabledAt), view.lang) }) + ' '
              : ''}
            {t('disabledNote')}
          </Notice>
        ) : null}
        {w.kind === 'listener' ? <p class="muted">{t('listenerNote')}</p> : null}
        <section class="panel">
          <Facts rows={webhookFacts(view, t, w, s.previousUntil)} />
        </section>
        <section class="panel" aria-labelledby="recent-h">
          <h2 id="recent-h">{t('recentDeliveries')}</h2>
          {s.recent.length === 0 ? <p class="muted">{t('noDeliveries')}</p> : <DeliveryTable view={view} t={t} deliveries={s.recent} />}
          <p>
            <a href={`${base}/deliveries`}>{t('allDeliveries')}</a>
          </p>
        </section>
        {s.sandbox && write ? <TestEvent view={view} t={t} webhook={w} errors={s.testErrors} /> : null}
      </>
    ),
  });
}
