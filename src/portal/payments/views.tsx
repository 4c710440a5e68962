import type { Html } from '../../html/jsx-runtime.js';
import { formatMoney } from '../../html/format.js';
import type { Headroom, ModificationHistory } from '../../payments/modifications/service.js';
import { REFUND_REASONS } from '../../payments/schemas.js';
import { PAYMENT_STATES, paymentState, type PaymentDetail, type PaymentListItem, type PaymentState, type PaymentSummary } from '../../payments/service.js';
import type { DeliveryView } from '../../webhooks/deliveries/service.js';
import { translator, type Translate } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import { Badge, Csrf, ErrorSummary, Facts, Field, Money, NothingToDo, Notice, Select, Time } from '../views/components.js';
import { DataTable, ListPager, Td } from '../views/table.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { ExpiredCapture, RefusedExpired, withExpiry } from './expiry.js';
import { Deliveries } from './deliveries.js';
import { Timeline, type Moment } from './timeline.js';
import { EXPIRED_BADGE, M, STATE_BADGE, type Key } from './messages.js';

// The payments pages (§The portal): every payment with its filters and the CSV export, and a
// payment's page with its card, its timeline, the webhooks it caused, and the capture, refund,
// adjust and reverse forms of the modifications API.

type T = Translate<Key>;

export const paymentPath = (payfacReference: string): string => `${PORTAL}/payments/${encodeURIComponent(payfacReference)}`;

type BadgeOf = Pick<PaymentSummary, 'success' | 'captureState' | 'refundedAmount' | 'capturedAmount' | 'authorisationExpired'>;

/** Where a payment stands, as its badge says it: an authorisation past its expiry is no longer `authorised`. */
function badgeOf(p: BadgeOf): (typeof STATE_BADGE)[PaymentState] | typeof EXPIRED_BADGE {
  const state = paymentState(p);
  return state === 'authorised' && p.authorisationExpired ? EXPIRED_BADGE : STATE_BADGE[state];
}

export function StateBadge({ view, p }: { view: View; p: BadgeOf }): Html {
  const [key, tone] = badgeOf(p);
  return <Badge tone={tone}>{translator(M, view.lang)(key)}</Badge>;
}

/** A list's payments: when, where each stands, how much, the card, and a link to the payment's page. */
export function PaymentsTable({ view, payments, label }: { view: View; payments: readonly (PaymentSummary | PaymentListItem)[]; label: string }): Html {
  const t = translator(M, view.lang);
  const withOrigin = payments.some((p) => 'byToken' in p);
  // The words of the badges, looked up once a table rather than once a row.
  const words = new Map<Key, string>();
  const word = (key: Key): string => {
    let w = words.get(key);
    if (w === undefined) words.set(key, (w = t(key)));
    return w;
  };
  const row = (p: PaymentSummary | PaymentListItem): Html => {
    const [key, tone] = badgeOf(p);
    return (
      <tr>
        <Td>
          <Time view={view} at={p.createdAt} />
        </Td>
        <Td>
          <Badge tone={tone}>{word(key)}</Badge>
          {!p.success && p.reason && p.reason.toLowerCase() !== 'refused' ? <div class="muted small">{p.reason}</div> : null}
        </Td>
        <Td class="num">
          {/* The amount the authorisation holds now: after an adjustment, what it was adjusted to. */}
          <Money view={view} minor={p.authorisedAmount} currency={p.currency} />
        </Td>
        <Td class="nowrap">
          {p.paymentMethod} •••• {p.cardSummary}
        </Td>
        {withOrigin ? <Td class="wrap">{'byToken' in p ? <Origin t={t} p={p} /> : null}</Td> : null}
        <Td>
          <a class="mono" href={paymentPath(p.payfacReference)}>
            {p.payfacReference}
          </a>
          {'merchantReference' in p && p.merchantReference ? <div class="muted small">{p.merchantReference}</div> : null}
        </Td>
      </tr>
    );
  };
  return (
    <DataTable
      view={view}
      label={label}
      columns={[t('date'), view.t('status'), { label: view.t('amount'), num: true }, t('card'), ...(withOrigin ? [t('origin')] : []), t('payment')]}
      rows={payments}
      row={row}
    />
  );
}

function Origin({ t, p }: { t: T; p: PaymentListItem }): Html {
  if (p.paymentLinkReference) return <a href={`${PORTAL}/links/${encodeURIComponent(p.paymentLinkReference)}`}>{t('originLink')}</a>;
  if (p.checkoutReference) return <a href={`${PORTAL}/sessions/${encodeURIComponent(p.checkoutReference)}`}>{t('originSession')}</a>;
  return <span>{t('originToken')}</span>;
}

// ---------------------------------------------------------------- list

export interface ListFilter {
  state: PaymentState | null;
  from: string;
  until: string;
  reference: string;
}

/** The filter as a query (empty values left out), for the pager and the export link. */
export function filterQuery(f: ListFilter): Record<string, string> {
  const q: Record<string, string> = {};
  if (f.state) q.state = f.state;
  if (f.from) q.from = f.from;
  if (f.until) q.until = f.until;
  if (f.reference) q.reference = f.reference;
  return q;
}

export function renderPaymentList(
  view: View,
  data: { filter: ListFilter; errors: FieldErrors; payments: readonly PaymentListItem[]; older: string | null; newer: string | null },
): string {
  const t = translator(M, view.lang);
  const query = filterQuery(data.filter);
  const filtered = Object.keys(query).length > 0;
  const exportQuery = new URLSearchParams(query).toString();
  return portalPage({
    view,
    title: view.t('navPayments'),
    section: 'payments',
    lead: t('lead'),
    actions: (
      <a class="button secondary" href={`${PORTAL}/payments/export.csv${exportQuery ? `?${exportQuery}` : ''}`} download>
        {t('exportCsv')}
      </a>
    ),
    children: (
      <>
        <ErrorSummary view={view} errors={data.errors} shownFields={['state', 'from', 'until']} />
        <form method="get" action={`${PORTAL}/payments`} class="filters" role="search" aria-label={t('filters')}>
          <Select
            view={view}
            name="state"
            label={view.t('status')}
            value={data.filter.state ?? ''}
            errors={data.errors}
            options={[
              { value: '', label: t('stateAll') },
              ...(Object.keys(PAYMENT_STATES) as PaymentState[]).map((s) => ({ value: s, label: t(STATE_BADGE[s][0]) })),
            ]}
          />
          <Field view={view} name="from" type="date" label={t('from')} value={data.filter.from} errors={data.errors} />
          <Field view={view} name="until" type="date" label={t('until')} value={data.filter.until} errors={data.errors} />
          <Field view={view} name="reference" type="search" label={t('reference')} hint={t('referenceHint')} value={data.filter.reference} maxLength={200} />
          <button type="submit" class="secondary">
            {t('filter')}
          </button>
          {filtered ? <a href={`${PORTAL}/payments`}>{view.t('clear')}</a> : null}
        </form>
        <p class="muted small">{t('exportHint')}</p>
        {data.payments.length === 0 ? (
          <p class="empty panel">{filtered || data.newer !== null ? t('noMatches') : t('none')}</p>
        ) : (
          <PaymentsTable view={view} payments={data.payments} label={view.t('navPayments')} />
        )}
        <ListPager view={view} paging={{ base: `${PORTAL}/payments`, query, older: data.older, newer: data.newer }} />
      </>
    ),
  });
}

// ---------------------------------------------------------------- detail

export type ModificationKind = 'capture' | 'refund' | 'reverse' | 'adjust';

export interface ModificationForm {
  kind: ModificationKind;
  amount: string;
  reference: string;
  refundReason: string;
  errors: FieldErrors;
}

export interface DetailData {
  payment: PaymentDetail;
  modifications: readonly ModificationHistory[];
  headroom: Headroom;
  deliveries: readonly DeliveryView[] | null;
  /** The name of each webhook of the deliveries (its description, else its address's host); a deleted one is missing. */
  webhookNames: ReadonlyMap<string, string>;
  /** The form shown again with its errors, if a post was refused. */
  form: ModificationForm | null;
  notice: ModificationKind | 'refused' | 'expired' | null;
  /** Whether an enabled webhook takes the event the noticed modification raises. */
  webhookFollows: boolean;
  /** The amounts the forms start with (major units, as typed). */
  defaults: { capture: string; refund: string; adjust: string; reference: string };
}

const KIND_KEY = { Capture: 'kindCapture', Refund: 'kindRefund', Reversal: 'kindReversal', Adjustment: 'kindAdjustment' } as const satisfies Record<
  ModificationHistory['kind'],
  Key
>;

/** A refund's reason in the reader's words (as stored: one of the API's reasons). */
function reasonText(t: T, reason: string): string {
  const known = REFUND_REASONS.find((r) => r === reason.toUpperCase());
  return known ? t(`reason${known}`) : reason;
}

/** The payment's story, oldest first: its authorisation, then each modification as requested and as completed. */
function timelineOf(view: View, t: T, p: PaymentDetail, mods: readonly ModificationHistory[]): Moment[] {
  const money = (minor: number | null): string => (minor === null ? '' : formatMoney(minor, p.currency, view.lang));
  const out: Moment[] = [
    p.success
      ? { at: p.createdAt, text: t('evAuthorised', { amount: money(p.amount) }), tone: 'ok' }
      : { at: p.createdAt, text: t('evRefused'), detail: p.reason ?? undefined, tone: 'bad' },
  ];
  // A payment captured when it was authorised has no capture modification: its capture is the part of
  // the captured amount no completed capture accounts for, at the moment of authorisation.
  const capturedLater = mods.reduce((sum, m) => (m.kind === 'Capture' && m.state === 'Succeeded' ? sum + (m.amount ?? 0) : sum), 0);
  if (p.success && p.capturedAmount > capturedLater) {
    out.push({ at: p.createdAt, text: t('evCaptured', { amount: money(p.capturedAmount - capturedLater) }), tone: 'ok' });
  }
  for (const m of mods) {
    const kind = t(KIND_KEY[m.kind]);
    const detail = [
      m.source === 'Scheduled' ? t('evScheduled') : null,
      m.reference ? t('evReference', { reference: m.reference }) : null,
      m.refundReason ? reasonText(t, m.refundReason) : null,
    ]
      .filter((x): x is string => !!x)
      .join(' · ');
    out.push({
      at: m.createdAt,
      text: m.kind === 'Reversal' ? t('evRequestedReversal') : t('evRequested', { kind, amount: money(m.amount) }),
      detail: m.state === 'Received' ? `${detail}${detail ? ' · ' : ''}${t('inProgress')}` : detail || undefined,
      tone: 'info',
    });
    if (m.completedAt) {
      const text =
        m.state === 'Failed'
          ? t('evFailed', { kind })
          : m.kind === 'Reversal'
            ? m.outcome === 'Cancelled'
              ? t('evReversedCancelled')
              : t('evReversedRefunded', { amount: money(m.amount) })
            : t('evSucceeded', { kind, amount: money(m.amount) });
      out.push({ at: m.completedAt, text, detail: m.state === 'Failed' ? (m.reason ?? undefined) : undefined, tone: m.state === 'Failed' ? 'bad' : 'ok' });
    }
  }
  return out;
}

/** The capture, adjust, refund and reverse forms: each only while the payment can take it, with what it can still take. */
function Modifications({ view, t, data }: { view: View; t: T; data: DetailData }): Html {
  const p = data.payment;
  const { capturable, refundable, reversible, adjustable, expiry } = data.headroom;
  const money = (minor: number): string => formatMoney(minor, p.currency, view.lang);
  const path = paymentPath(p.payfacReference);
  const shown = (kind: ModificationKind) => (data.form?.kind === kind ? data.form : null);
  const amountForm = (kind: 'capture' | 'refund' | 'adjust', max: number) => {
    const again = shown(kind);
    const errors = again?.errors;
    return (
      <form method="post" action={`${path}/${kind}`} class="panel" aria-labelledby={`${kind}-title`}>
        <h3 id={`${kind}-title`}>{t(kind)}</h3>
        <Csrf view={view} />
        {errors ? <ErrorSummary view={view} errors={errors} shownFields={['amount', 'reference', 'refundReason']} /> : null}
        <Field
          view={view}
          name="amount"
          label={t('amountLabel', { currency: p.currency })}
          value={again ? again.amount : data.defaults[kind]}
          inputmode="decimal"
          hint={t(`${kind}Hint`, { amount: money(max), least: money(adjustable?.least ?? 0) })}
          errors={errors}
          required
        />
        {kind === 'refund' ? (
          <Select
            view={view}
            name="refundReason"
            label={t('refundReason')}
            value={again?.refundReason ?? ''}
            errors={errors}
            options={[{ value: '', label: t('reasonNone') }, ...REFUND_REASONS.map((r) => ({ value: r, label: t(`reason${r}`) }))]}
          />
        ) : null}
        <Field
          view={view}
          name="reference"
          label={t('modReference')}
          hint={t('modReferenceHint')}
          value={again ? again.reference : data.defaults.reference}
          errors={errors}
          maxLength={200}
          required
        />
        <div class="form-actions">
          <button type="submit" class="primary">
            {t(`${kind}Button`)}
          </button>
        </div>
      </form>
    );
  };
  const expired = expiry?.expired ? <ExpiredCapture view={view} expiry={expiry} /> : null;
  if (capturable === 0 && refundable === 0 && reversible === 0 && !adjustable && !expired) return <p class="muted">{t('actionsNone')}</p>;
  return (
    <div class="grid">
      {capturable > 0 ? amountForm('capture', capturable) : expired}
      {adjustable ? amountForm('adjust', adjustable.authorised) : null}
      {refundable > 0 ? amountForm('refund', refundable) : null}
      {reversible > 0 ? (
        <div class="panel">
          <h3 id="reverse-title">{t('reverse')}</h3>
          <p class="small">{t('reverseHint', { amount: money(reversible) })}</p>
          <p>
            <a class="button danger" href={`${path}/reverse`}>
              {t('reverse')}…
            </a>
          </p>
        </div>
      ) : null}
    </div>
  );
}

export function renderPaymentDetail(view: View, data: DetailData): string {
  const t = translator(M, view.lang);
  const p = data.payment;
  const money = (minor: number) => <Money view={view} minor={minor} currency={p.currency} />;
  const received = data.webhookFollows ? 'received' : 'receivedNoWebhook';
  const noticed = { capture: 'kindCapture', refund: 'kindRefund', reverse: 'kindReversal', adjust: 'kindAdjustment' } as const;
  const notice = data.notice !== null && data.notice !== 'refused' && data.notice !== 'expired' ? t(received, { kind: t(noticed[data.notice]) }) : null;
  return portalPage({
    view,
    title: `${t('payment')} ${p.payfacReference}`,
    section: 'payments',
    lead: (
      <>
        <StateBadge view={view} p={p} /> {money(p.authorisedAmount)} · <Time view={view} at={p.createdAt} />
      </>
    ),
    notice,
    children: (
      <>
        {data.notice === 'refused' ? <Notice kind="warn">{t('actionsNone')}</Notice> : null}
        {data.notice === 'expired' ? <RefusedExpired view={view} expiry={data.headroom.expiry} /> : null}
        {view.can('payments.modify') && p.success ? (
          <section aria-labelledby="actions-title">
            <h2 id="actions-title">{t('actions')}</h2>
            <Modifications view={view} t={t} data={data} />
          </section>
        ) : null}
        <section class="panel" aria-labelledby="facts-title">
          <h2 id="facts-title">{t('facts')}</h2>
          <Facts
            rows={[
              [t('payfacReference'), <span class="mono">{p.payfacReference}</span>],
              p.merchantReference ? [t('merchantReference'), p.merchantReference] : null,
              // As it stands: an adjustment moves it, and the timeline below says from what to what.
              [t('authorised'), money(p.authorisedAmount)],
              p.success ? [t('captured'), money(p.capturedAmount)] : null,
              p.success ? [t('refunded'), money(p.refundedAmount)] : null,
              p.captureDueAt ? [t('captureDue'), <Time view={view} at={p.captureDueAt} />] : null,
              data.headroom.expiry ? [t(data.headroom.expiry.expired ? 'expiredAt' : 'expiresAt'), <Time view={view} at={data.headroom.expiry.at} />] : null,
              !p.success && p.reason ? [t('reason'), p.reason] : null,
              [t('cardNumber'), <span class="mono">{p.cardMasked}</span>],
              [t('cardExpiry'), p.cardExpiry],
              [t('method'), p.paymentMethod],
              [t('threeDS'), p.threeDAuthenticated ? t('threeDSYes') : t('threeDSNo')],
              p.authCode ? [t('authCode'), <span class="mono">{p.authCode}</span>] : null,
              p.isPreAuth ? [t('preAuth'), view.t('yes')] : null,
              p.paymentLinkReference
                ? [t('link'), <a href={`${PORTAL}/links/${encodeURIComponent(p.paymentLinkReference)}`}>{p.paymentLinkReference}</a>]
                : null,
              p.termsAcceptedAt ? [t('termsAccepted'), <Time view={view} at={p.termsAcceptedAt} seconds />] : null,
              // The answers to the link's custom fields, by key (the key names them in the API and the export too).
              p.customFieldAnswers !== null
                ? [
                    t('customAnswers'),
                    p.customFieldAnswers.length === 0 ? (
                      '–'
                    ) : (
                      <ul class="answers" data-custom-answers="">
                        {p.customFieldAnswers.map((a) => (
                          <li>
                            <span class="mono muted">{a.key}:</span> {a.value}
                          </li>
                        ))}
                      </ul>
                    ),
                  ]
                : null,
              p.chosenItems ? [t('chosenItems'), <ChosenItems lines={p.chosenItems} money={money} />] : null,
              p.promotionCode !== null ? [t('promotionCode'), <span class="mono">{p.promotionCode}</span>] : null,
              p.discountAmount !== null ? [t('discount'), <Money view={view} minor={p.discountAmount} currency={p.currency} />] : null,
              p.checkoutReference ? [t('session'), <a href={`${PORTAL}/sessions/${encodeURIComponent(p.checkoutReference)}`}>{p.checkoutReference}</a>] : null,
              p.byToken ? [t('origin'), t('originToken')] : null,
              p.token ? [t('savedCard'), <span class="mono break">{p.token}</span>] : null,
              p.recurringProcessingModel ? [t('recurring'), p.recurringProcessingModel] : null,
              [t('terminal'), <span class="mono">{p.terminalIdentifier}</span>],
            ]}
          />
        </section>
        <section class="panel" aria-labelledby="timeline-title">
          <h2 id="timeline-title">{t('timeline')}</h2>
          <Timeline view={view} moments={withExpiry(timelineOf(view, t, p, data.modifications), data.headroom.expiry, t('evExpired'))} />
        </section>
        {data.deliveries !== null ? (
          <section aria-labelledby="webhooks-title">
            <h2 id="webhooks-title">{t('webhooks')}</h2>
            {data.deliveries.length === 0 ? (
              <p class="empty panel">{t('noWebhooks')}</p>
            ) : (
              <Deliveries view={view} t={t} deliveries={data.deliveries} names={data.webhookNames} />
            )}
          </section>
        ) : null}
      </>
    ),
  });
}

export function renderReverse(view: View, data: { payment: PaymentDetail; headroom: Headroom }): string {
  const t = translator(M, view.lang);
  const p = data.payment;
  const path = paymentPath(p.payfacReference);
  const left = formatMoney(data.headroom.reversible, p.currency, view.lang);
  return portalPage({
    view,
    title: t('reverseTitle'),
    section: 'payments',
    children:
      data.headroom.reversible === 0 ? (
        <NothingToDo view={view} why={t('actionsNone')} back={path} />
      ) : (
        <div class="panel">
          <p>{t('reverseText', { reference: p.payfacReference, amount: formatMoney(p.amount, p.currency, view.lang), left })}</p>
          <form method="post" action={`${path}/reverse`} class="form-actions">
            <Csrf view={view} />
            <input type="hidden" name="reference" value={p.merchantReference ?? p.payfacReference} />
            <button type="submit" class="danger">
              {t('reverseConfirm')}
            </button>
            <a href={path}>{view.t('cancel')}</a>
          </form>
        </div>
      ),
  });
}

/** The quantities the shopper chose on the link's page (docs/rules.md, §Adjustable quantities), with each line's amount. */
/** The items at the quantities the shopper chose (a payment's page, a link's submissions). */
export function ChosenItems({ lines, money }: { lines: readonly { name: string; quantity: number; amount: number }[]; money: (minor: number) => Html }): Html {
  return (
    <ul class="answers" data-chosen-items="">
      {lines.map((l) => (
        <li>
          {l.quantity} × {l.name}: {money(l.amount)}
        </li>
      ))}
    </ul>
  );
}
