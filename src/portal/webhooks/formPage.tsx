import type { Html } from '../../html/jsx-runtime.js';
import { EVENT_TYPES } from '../../webhooks/events.js';
import type { RegisteredWebhook, WebhookView } from '../../webhooks/service.js';
import type { FieldErrors, View } from '../view.js';
import { CheckGroup, Csrf, ErrorSummary, Facts, formScope } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { Back, SECTION, hrefOf, nameOf, words, type T } from './common.js';
import { Secrets, ToWebhook, webhookFacts } from './panels.js';

// The register and edit form of a webhook (§Webhooks), and the page after registering that shows its
// secrets once. A new setting of a webhook is one more field in WebhookFields.

/** What the webhook form holds: the API's body fields, as typed (re-shown after a refusal). */
export interface WebhookFormValues {
  url: string;
  description: string;
  eventTypes: readonly string[];
  maxInFlight: string;
  rateLimit: string;
  /** `unordered` or `fifo` (anything else as posted, for the API's error). */
  ordering: string;
}

export function formValuesOf(w: WebhookView): WebhookFormValues {
  return {
    url: w.url,
    description: w.description,
    eventTypes: w.eventTypes,
    maxInFlight: String(w.maxInFlight),
    rateLimit: w.rateLimit === null ? '' : String(w.rateLimit),
    ordering: w.ordering,
  };
}

/** The event types as checkboxes (none: all). */
function EventTypeChoice({ view, t, chosen, errors }: { view: View; t: T; chosen: readonly string[]; errors: FieldErrors }): Html {
  const options = EVENT_TYPES.map((type) => ({ value: type, label: type, hint: t(`ev${type}`) }));
  return <CheckGroup view={view} name="eventTypes" legend={t('events')} hint={t('eventTypesHint')} options={options} chosen={chosen} errors={errors} />;
}

/** The fields a webhook is registered and edited with, named by the API's JSON paths. */
function WebhookFields({
  view,
  t,
  values,
  errors,
  urlEditable,
  devUrls,
}: {
  view: View;
  t: T;
  values: WebhookFormValues;
  errors: FieldErrors;
  urlEditable: boolean;
  devUrls: boolean;
}): Html {
  const { Field, Select } = formScope(view, errors, values);
  // The two delivery limits: whole numbers, with their hint.
  const limit = (name: 'maxInFlight' | 'rateLimit', hint: 'maxInFlightHint' | 'rateLimitHint', maxLength: number): Html => (
    <Field name={name} label={t(name)} hint={t(hint)} inputmode="numeric" maxLength={maxLength} />
  );
  const orderings = [
    { value: 'unordered', label: t('orderingUnordered') },
    { value: 'fifo', label: t('orderingFifo') },
  ];
  return (
    <>
      {urlEditable ? (
        <Field
          name="url"
          label={t('url')}
          type="url"
          required
          hint={t(devUrls ? 'urlHintDev' : 'urlHint')}
          maxLength={2048}
          autocomplete="off"
          placeholder="https://"
        />
      ) : null}
      <EventTypeChoice view={view} t={t} chosen={values.eventTypes} errors={errors} />
      <Field name="description" label={view.t('description')} hint={t('descriptionHint')} maxLength={500} />
      {urlEditable ? (
        <>
          {limit('maxInFlight', 'maxInFlightHint', 3)}
          {limit('rateLimit', 'rateLimitHint', 4)}
          <Select name="ordering" label={t('ordering')} hint={t('orderingHint')} options={orderings} />
        </>
      ) : null}
    </>
  );
}

export const FORM_FIELDS = ['url', 'eventTypes', 'description', 'maxInFlight', 'rateLimit', 'ordering'] as const;

export function renderWebhookForm(view: View, s: { webhook: WebhookView | null; values: WebhookFormValues; errors: FieldErrors; devUrls: boolean }): string {
  const t = words(view);
  const w = s.webhook;
  return portalPage({
    view,
    title: w ? t('editTitle') : t('newWebhook'),
    section: SECTION,
    children: (
      <>
        {w ? <Back href={hrefOf(w.webhookId)} label={nameOf(t, w)} /> : <Back href={`${PORTAL}/webhooks`} label={view.t('navWebhooks')} />}
        <form method="post" action={w ? `${hrefOf(w.webhookId)}/edit` : `${PORTAL}/webhooks`} class="panel" novalidate>
          <Csrf view={view} />
          <ErrorSummary view={view} errors={s.errors} shownFields={FORM_FIELDS} />
          <WebhookFields view={view} t={t} values={s.values} errors={s.errors} urlEditable={!w || w.kind === 'url'} devUrls={s.devUrls} />
          <div class="form-actions">
            <button type="submit" class="primary">
              {w ? view.t('save') : t('register')}
            </button>
            <a href={w ? hrefOf(w.webhookId) : `${PORTAL}/webhooks`}>{view.t('cancel')}</a>
          </div>
        </form>
      </>
    ),
  });
}

export function renderWebhookCreated(view: View, w: RegisteredWebhook): string {
  const t = words(view);
  return portalPage({
    view,
    title: t('createdTitle'),
    section: SECTION,
    children: (
      <>
        <section class="panel">
          <Facts rows={webhookFacts(view, t, w, null)} />
        </section>
        <Secrets view={view} t={t} secrets={w} title={t('secretsTitle')} />
        <ToWebhook t={t} w={w} />
      </>
    ),
  });
}
