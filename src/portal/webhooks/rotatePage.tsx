import { formatDateTime } from '../../html/format.js';
import type { WebhookView } from '../../webhooks/service.js';
import type { FieldErrors, View } from '../view.js';
import { Csrf, ErrorSummary, Field, Notice } from '../views/components.js';
import { aboutWebhook, at, hrefOf, words } from './common.js';
import { Secrets, ToWebhook } from './panels.js';

// Rotating a webhook's secrets (§Webhooks): the form, and the page that shows the new secrets once.

export function renderRotate(view: View, s: { webhook: WebhookView; overlapHours: string; errors: FieldErrors }): string {
  const t = words(view);
  const w = s.webhook;
  return aboutWebhook(view, t, w, {
    title: t('rotateTitle'),
    children: (
      <form method="post" action={`${hrefOf(w.webhookId)}/rotate`} class="panel" novalidate>
        <Csrf view={view} />
        <ErrorSummary view={view} errors={s.errors} shownFields={['overlapHours']} />
        <p>{t('rotateIntro')}</p>
        <Field
          view={view}
          name="overlapHours"
          label={t('overlapHours')}
          type="number"
          inputmode="numeric"
          min={0}
          max={168}
          step={1}
          value={s.overlapHours}
          errors={s.errors}
          hint={t('overlapHint')}
          class="narrow"
        />
        <div class="form-actions">
          <button type="submit" class="primary">
            {t('rotate')}
          </button>
          <a href={hrefOf(w.webhookId)}>{view.t('cancel')}</a>
        </div>
      </form>
    ),
  });
}

export function renderRotated(
  view: View,
  s: { webhook: WebhookView; secrets: { apiKey: string; hmacKey: string; signingSecret: string; previousSecretValidUntil: string | null } },
): string {
  const t = words(view);
  const w = s.webhook;
  const until = at(s.secrets.previousSecretValidUntil);
  return aboutWebhook(view, t, w, {
    title: t('rotatedTitle'),
    children: (
      <>
        <Notice>{until ? t('overlapUntil', { at: formatDateTime(until, view.lang) }) : t('noOverlap')}</Notice>
        <Secrets view={view} t={t} secrets={s.secrets} />
        <ToWebhook t={t} w={w} />
      </>
    ),
  });
}
