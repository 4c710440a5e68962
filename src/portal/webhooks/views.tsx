import type { ComponentChildren, VNode } from 'preact';
import { formatDateTime } from '../../html/format.js';
import { EVENT_TYPES, PAYMENT_EVENT_TYPES } from '../../webhooks/events.js';
import type { AttemptView, DeliveryView, RegisteredWebhook, WebhookView } from '../../webhooks/service.js';
import { translator, type Translate } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import { Badge, CheckGroup, CopyField, Csrf, ErrorSummary, Facts, Field, Notice, Pager, PostButton, Select, TableWrap, Time } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { M } from './messages.js';

// The webhook pages (§Webhooks, §Deliveries): the list, one webhook with its recent deliveries, the
// register and edit form, rotation and deletion with their confirmation, the deliveries of a webhook
// and one delivery with every attempt. Each page is built from small panels, so a new setting of a
// webhook is one more field in WebhookFields and one more row in webhookFacts, and a new panel (the
// endpoint's health) is one more section on the webhook's page.

type Key = keyof typeof M.en;
type T = Translate<Key>;

function words(view: View): T {
  return translator(M, view.lang);
}

const SECTION = 'webhooks';
export const hrefOf = (webhookId: string): string => `${PORTAL}/webhooks/${encodeURIComponent(webhookId)}`;
const deliveryHref = (d: { webhookId: string; deliveryId: string }): string => `${hrefOf(d.webhookId)}/deliveries/${encodeURIComponent(d.deliveryId)}`;
const at = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));

/** What the webhook form holds: the API's body fields, as typed (re-shown after a refusal). */
export interface WebhookFormValues {
  url: string;
  description: string;
  eventTypes: readonly string[];
  maxInFlight: string;
  rateLimit: string;
}

export function formValuesOf(w: WebhookView): WebhookFormValues {
  return {
    url: w.url,
    description: w.description,
    eventTypes: w.eventTypes,
    maxInFlight: String(w.maxInFlight),
    rateLimit: w.rateLimit === null ? '' : String(w.rateLimit),
  };
}

function StatusBadge({ t, webhook }: { t: T; webhook: WebhookView }): VNode {
  return webhook.enabled ? <Badge tone="ok">{t('enabled')}</Badge> : <Badge tone="neutral">{t('disabled')}</Badge>;
}

function EventList({ t, types }: { t: T; types: readonly string[] }): VNode {
  return types.length === 0 ? <span>{t('allEvents')}</span> : <span>{types.join(', ')}</span>;
}

function Back({ href, label }: { href: string; label: string }): VNode {
  return (
    <p class="back">
      <a href={href}>← {label}</a>
    </p>
  );
}

/** How a webhook is named on its pages: its URL, or what made it for a listener. */
const nameOf = (t: T, w: WebhookView): string => (w.kind === 'listener' ? t('listener') : w.url);

/** A page about one webhook (edit, rotate, delete, ...), with the way back to the webhook. */
function aboutWebhook(view: View, t: T, w: WebhookView, p: { title: string; lead?: string; back?: string; children: ComponentChildren }): string {
  return portalPage({
    view,
    title: p.title,
    section: SECTION,
    lead: p.lead,
    children: (
      <>
        <Back href={hrefOf(w.webhookId)} label={p.back ?? nameOf(t, w)} />
        {p.children}
      </>
    ),
  });
}

const STATE_TONE = { Pending: 'info', Delivered: 'ok', Failed: 'bad' } as const;
const STATE_KEY = { Pending: 'statePending', Delivered: 'stateDelivered', Failed: 'stateFailed' } as const satisfies Record<DeliveryView['state'], Key>;

function StateBadge({ t, state }: { t: T; state: DeliveryView['state'] }): VNode {
  return <Badge tone={STATE_TONE[state]}>{t(STATE_KEY[state])}</Badge>;
}

// ---------------------------------------------------------------- the list

export function renderWebhookList(
  view: View,
  s: { webhooks: readonly WebhookView[]; totalCount: number; page: number; pageSize: number; notice: 'deleted' | null },
): string {
  const t = words(view);
  return portalPage({
    view,
    title: view.t('navWebhooks'),
    section: SECTION,
    lead: t('lead'),
    actions: view.can('webhooks.write') ? (
      <a class="button primary" href={`${PORTAL}/webhooks/new`}>
        {t('newWebhook')}
      </a>
    ) : null,
    children: (
      <>
        {s.notice === 'deleted' ? <Notice>{t('deleted')}</Notice> : null}
        {s.webhooks.length === 0 ? (
          <p class="panel empty">{t('noWebhooks')}</p>
        ) : (
          <TableWrap label={t('listLabel')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('url')}</th>
                  <th scope="col">{t('events')}</th>
                  <th scope="col">{view.t('status')}</th>
                  <th scope="col">{view.t('created')}</th>
                </tr>
              </thead>
              <tbody>
                {s.webhooks.map((w) => (
                  <tr>
                    <td class="wrap">
                      <a href={hrefOf(w.webhookId)} class="mono">
                        {nameOf(t, w)}
                      </a>
                      {w.description ? <div class="muted small">{w.description}</div> : null}
                    </td>
                    <td>
                      <EventList t={t} types={w.eventTypes} />
                    </td>
                    <td>
                      <StatusBadge t={t} webhook={w} />
                    </td>
                    <td>
                      <Time view={view} at={at(w.createdAt)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        <Pager view={view} base={`${PORTAL}/webhooks`} query={{}} page={s.page} pageSize={s.pageSize} total={s.totalCount} />
      </>
    ),
  });
}

// ---------------------------------------------------------------- register and edit

/** The event types as checkboxes (none: all). */
function EventTypeChoice({ view, t, chosen, errors }: { view: View; t: T; chosen: readonly string[]; errors: FieldErrors }): VNode {
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
}): VNode {
  return (
    <>
      {urlEditable ? (
        <Field
          view={view}
          name="url"
          label={t('url')}
          type="url"
          value={values.url}
          errors={errors}
          required
          hint={t(devUrls ? 'urlHintDev' : 'urlHint')}
          maxLength={2048}
          autocomplete="off"
          placeholder="https://"
        />
      ) : null}
      <EventTypeChoice view={view} t={t} chosen={values.eventTypes} errors={errors} />
      <Field
        view={view}
        name="description"
        label={view.t('description')}
        value={values.description}
        errors={errors}
        hint={t('descriptionHint')}
        maxLength={500}
      />
      {urlEditable ? (
        <>
          <Field
            view={view}
            name="maxInFlight"
            label={t('maxInFlight')}
            value={values.maxInFlight}
            errors={errors}
            hint={t('maxInFlightHint')}
            inputmode="numeric"
            maxLength={3}
          />
          <Field
            view={view}
            name="rateLimit"
            label={t('rateLimit')}
            value={values.rateLimit}
            errors={errors}
            hint={t('rateLimitHint')}
            inputmode="numeric"
            maxLength={4}
          />
        </>
      ) : null}
    </>
  );
}

export const FORM_FIELDS = ['url', 'eventTypes', 'description', 'maxInFlight', 'rateLimit'] as const;

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

function ToWebhook({ t, w }: { t: T; w: WebhookView }): VNode {
  return (
    <p>
      <a class="button secondary" href={hrefOf(w.webhookId)}>
        {t('toWebhook')}
      </a>
    </p>
  );
}

/** Secrets shown once, each with a copy button. */
function Secrets({
  view,
  t,
  secrets,
  title,
}: {
  view: View;
  t: T;
  secrets: { apiKey: string; hmacKey: string; signingSecret: string };
  title?: string;
}): VNode {
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

// ---------------------------------------------------------------- one webhook

function webhookFacts(view: View, t: T, w: WebhookView, previousUntil: string | null): (readonly [string, VNode | string] | null)[] {
  return [
    [t('deliveredTo'), w.kind === 'listener' ? t('listener') : <span class="mono">{w.url}</span>],
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
    w.kind === 'url' ? [t('maxInFlight'), String(w.maxInFlight)] : null,
    w.kind === 'url' ? [t('rateLimit'), w.rateLimit === null ? t('noRateLimit') : t('perSecond', { n: w.rateLimit })] : null,
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

function DeliveryTable({ view, t, deliveries }: { view: View; t: T; deliveries: readonly DeliveryView[] }): VNode {
  return (
    <TableWrap label={t('deliveriesLabel')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{view.t('created')}</th>
            <th scope="col">{t('event')}</th>
            <th scope="col">{t('state')}</th>
            <th scope="col" class="num">
              {t('attempts')}
            </th>
            <th scope="col">{t('nextAttempt')}</th>
            <th scope="col">{t('payfacReference')}</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr>
              <td>
                <a href={deliveryHref(d)}>
                  <Time view={view} at={at(d.createdAt)} seconds />
                  <span class="visually-hidden">
                    {' '}
                    {t('delivery')} {d.deliveryId}
                  </span>
                </a>
              </td>
              <td>{d.eventType}</td>
              <td>
                <StateBadge t={t} state={d.state} />
              </td>
              <td class="num">{d.attemptCount}</td>
              <td>
                <Time view={view} at={at(d.nextAttemptAt)} />
              </td>
              <td class="mono">{d.payfacReference}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The sandbox's test event: a form only while the sandbox is on. */
function TestEvent({ view, t, webhook, errors }: { view: View; t: T; webhook: WebhookView; errors?: FieldErrors }): VNode | null {
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

// ---------------------------------------------------------------- rotate and delete

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

export function renderDelete(view: View, s: { webhook: WebhookView }): string {
  const t = words(view);
  const w = s.webhook;
  return aboutWebhook(view, t, w, {
    title: t('deleteTitle'),
    children: (
      <section class="panel">
        <Facts rows={webhookFacts(view, t, w, null).slice(0, 4)} />
        <p>{t('deleteIntro')}</p>
        <form method="post" action={`${hrefOf(w.webhookId)}/delete`} data-confirm={t('deleteConfirm')} class="form-actions">
          <Csrf view={view} />
          <button type="submit" class="danger">
            {t('deleteButton')}
          </button>
          <a href={hrefOf(w.webhookId)}>{view.t('cancel')}</a>
        </form>
      </section>
    ),
  });
}

// ---------------------------------------------------------------- deliveries

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
    totalCount: number;
    page: number;
    pageSize: number;
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
        {s.deliveries.length === 0 ? (
          <p class="panel empty">{s.state ? t('noMatching') : t('noDeliveries')}</p>
        ) : (
          <DeliveryTable view={view} t={t} deliveries={s.deliveries} />
        )}
        <Pager view={view} base={base} query={s.state ? { state: s.state } : {}} page={s.page} pageSize={s.pageSize} total={s.totalCount} />
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

function Attempt({ view, t, a }: { view: View; t: T; a: AttemptView }): VNode {
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
              d.nextAttemptAt ? [t('nextAttempt'), <Time view={view} at={at(d.nextAttemptAt)} seconds />] : null,
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

/** The area's own style rules: bodies in <pre>, attempts, narrow number inputs. */
export const WEBHOOK_STYLES = `
pre.body { margin: 0; padding: .6rem .75rem; background: var(--bg); border: 1px solid var(--border); border-radius: 6px; max-height: 24rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font: .85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.attempt h3 { display: flex; gap: .5rem; align-items: center; margin-top: 0; }
.attempt h4 { font-size: .9rem; margin: .75rem 0 .35rem; }
.field.narrow input { max-width: 10rem; }
.back { margin: -.5rem 0 1rem; font-size: .9rem; }
`;
