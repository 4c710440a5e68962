import type { WebhookView } from '../../webhooks/service.js';
import type { View } from '../view.js';
import { Facts } from '../views/components.js';
import { ConfirmForm } from '../views/confirm.js';
import { aboutWebhook, hrefOf, words } from './common.js';
import { webhookFacts } from './panels.js';

// The confirmation before deleting a webhook (§Webhooks).

export function renderDelete(view: View, s: { webhook: WebhookView }): string {
  const t = words(view);
  const w = s.webhook;
  return aboutWebhook(view, t, w, {
    title: t('deleteTitle'),
    children: (
      <section class="panel">
        <Facts rows={webhookFacts(view, t, w, null).slice(0, 4)} />
        <p>{t('deleteIntro')}</p>
        <ConfirmForm view={view} action={`${hrefOf(w.webhookId)}/delete`} question={t('deleteConfirm')} button={t('deleteButton')} back={hrefOf(w.webhookId)} />
      </section>
    ),
  });
}
