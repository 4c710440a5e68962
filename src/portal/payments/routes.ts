import { Readable } from 'node:stream';
import { keysetOf } from '../../db/keyset.js';
import { ApiError, validationError, type FieldError } from '../../errors.js';
import { formatMoney } from '../../html/format.js';
import { headroomOf, modificationsOf, requestModification, type Headroom } from '../../payments/modifications/service.js';
import { eachPayment, isPaymentState, paymentDetail, searchPayments, type PaymentDetail, type PaymentFilter } from '../../payments/service.js';
import { listDeliveries, type DeliveryView } from '../../webhooks/deliveries/service.js';
import { eventReachesWebhook, getWebhook } from '../../webhooks/service.js';
import { PAGE_SIZE, type PortalArea, type PortalDeps } from '../http.js';
import { portalRouter, type Outcome, type Ctx } from '../route.js';
import { translator } from '../i18n.js';
import { FieldErrors, type View } from '../view.js';
import { merchantPrincipal } from '../webhooks/routes.js';
import { majorText, minorOf } from '../links/form.js';
import { waitingAuthorisations, EXPIRES_SOON_MS } from '../../payments/authorisations/service.js';
import { renderAuthorisations } from './authorisationsPage.js';
import { csvLines } from './csv.js';
import { M } from './messages.js';
import {
  paymentPath,
  renderPaymentDetail,
  renderPaymentList,
  renderReverse,
  type DetailData,
  type ListFilter,
  type ModificationForm,
  type ModificationKind,
} from './views.js';

// Payments in the portal (§The portal): every payment of the merchant (links, sessions, token
// charges) with filters and a streamed CSV export, a payment's page, and capture, refund, adjust and reverse
// through the operation the API's /modification routes call, with the body the API takes: the
// operation checks it, so every rule and every error is the API's; an error is shown beside the input
// it names.

/** The webhooks a payment caused: its own events and its modifications' (a handful each). */
const DELIVERIES_SHOWN = 50;

type RefParams = { Params: { payfacReference: string } };
type ListQuery = { state?: string; from?: string; until?: string; reference?: string; before?: string; after?: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A YYYY-MM-DD date as the start of that day in UTC (the portal shows times in UTC), or null when it is none. */
function dayStart(text: string): Date | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== text ? null : at;
}

/** The filters of the list and the export; the list also takes its pager's keys. */
const FILTERS = ['state', 'from', 'until', 'reference'] as const;
const PAGER = ['before', 'after'] as const;

/**
 * The list's filter from its query. Each problem is an error beside its input, and filters nothing:
 * a date that is none, a status that is none, a filter given twice (`?from=…&from=…`), and, where
 * `strict` (the export), a parameter that is no filter. The export refuses any error, so that a
 * filter it did not understand never turns into an export of every payment.
 */
function filterOf(q: Record<string, unknown>, lang: View['lang'], strict = false): { shown: ListFilter; filter: PaymentFilter; errors: FieldErrors } {
  const errors = new FieldErrors();
  const t = translator(M, lang);
  const one = (name: string): string | undefined => {
    const v = q[name];
    if (Array.isArray(v)) {
      errors.add({ field: name, code: 'REPEATED', message: t('repeatedFilter') });
      return undefined;
    }
    return typeof v === 'string' ? v : undefined;
  };
  if (strict) {
    for (const name of Object.keys(q)) {
      if (!(FILTERS as readonly string[]).includes(name)) errors.add({ field: name, code: 'UNKNOWN', message: t('unknownFilter') });
    }
  } else for (const name of PAGER) one(name);
  const text = (name: string, max: number): string => (one(name) ?? '').trim().slice(0, max);
  const state = one('state') ?? '';
  if (state !== '' && !isPaymentState(state)) errors.add({ field: 'state', code: 'ENUM', message: t('badState') });
  const shown: ListFilter = {
    state: isPaymentState(state) ? state : null,
    from: text('from', 10),
    until: text('until', 10),
    reference: text('reference', 200),
  };
  const from = shown.from === '' ? null : dayStart(shown.from);
  const untilDay = shown.until === '' ? null : dayStart(shown.until);
  if (shown.from !== '' && from === null) errors.add({ field: 'from', code: 'DATE', message: t('badDate') });
  if (shown.until !== '' && untilDay === null) errors.add({ field: 'until', code: 'DATE', message: t('badDate') });
  // "To" names a whole day: payments made before the next one.
  const until = untilDay === null ? null : new Date(untilDay.getTime() + 86_400_000);
  return { shown, filter: { state: shown.state, from, until, reference: shown.reference === '' ? null : shown.reference }, errors };
}

const OPERATION = { capture: 'Capture', refund: 'Refund', reverse: 'Reversal', adjust: 'Adjustment' } as const satisfies Record<ModificationKind, string>;

export const paymentsArea: PortalArea = {
  styles: `
.timeline { list-style: none; margin: 0; padding: 0; }
.timeline li { position: relative; padding: 0 0 .9rem 1.4rem; border-left: 2px solid var(--border); margin-left: .4rem; }
.timeline li:last-child { border-left-color: transparent; padding-bottom: 0; }
.timeline time { display: block; font-size: .8rem; color: var(--muted); }
.timeline .dot { position: absolute; left: -.45rem; top: .25rem; width: .8rem; height: .8rem; border-radius: 50%; background: var(--muted); }
.timeline .dot-ok { background: var(--ok); }
.timeline .dot-bad { background: var(--error); }
.timeline .dot-info { background: var(--accent); }
`,
  routes(portal, deps: PortalDeps) {
    const { db, clock } = deps;
    const route = portalRouter(portal, deps);
    const svc = { config: deps.config, db, clock, sealer: deps.sealer };

    /**
     * The webhooks this payment caused, oldest first: its events, and those of its captures, refunds
     * and reversals (one query finds them all). Events of one moment follow the payment's own order
     * (`references`: the payment's, then its modifications' as they were asked).
     */
    const deliveriesOf = async (ctx: Ctx<RefParams>, references: readonly string[]): Promise<DeliveryView[]> => {
      const [payment = ''] = references;
      const list = await listDeliveries(svc, merchantPrincipal(ctx.session), { payfacReference: payment }, 0, DELIVERIES_SHOWN);
      const rank = (d: DeliveryView): number => references.indexOf(d.payfacReference);
      return list.data.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || rank(a) - rank(b));
    };

    /** Each webhook of the deliveries by the name the merchant gave it, else its address's host (a deleted one is left out). */
    const webhookNamesOf = async (ctx: Ctx<RefParams>, deliveries: readonly DeliveryView[]): Promise<Map<string, string>> => {
      const principal = merchantPrincipal(ctx.session);
      const ids = [...new Set(deliveries.map((d) => d.webhookId))];
      const found = await Promise.all(ids.map((id) => getWebhook(svc, principal, id).catch(() => null)));
      const names = new Map<string, string>();
      for (const w of found) if (w) names.set(w.webhookId, w.description.trim() || hostOf(w.url));
      return names;
    };

    const detailData = async (
      ctx: Ctx<RefParams>,
      payment: PaymentDetail,
      form: ModificationForm | null,
      notice: ModificationKind | 'refused' | 'expired' | null,
    ): Promise<DetailData> => {
      const { merchantId } = ctx;
      const [modifications, headroom] = await Promise.all([
        modificationsOf(deps, merchantId, payment.payfacReference),
        headroomOf(deps, merchantId, payment.payfacReference),
      ]);
      const deliveries = await deliveriesOf(ctx, [payment.payfacReference, ...modifications.map((m) => m.payfacReference)]);
      // A capture raises Capture, an adjustment Adjustment; a refund and a reversal raise Refund (src/payments/modifications/processor.ts).
      const EVENT = { capture: 'Capture', adjust: 'Adjustment', refund: 'Refund', reverse: 'Refund' } as const;
      const [webhookNames, webhookFollows] = await Promise.all([
        webhookNamesOf(ctx, deliveries),
        notice === null || notice === 'refused' || notice === 'expired' ? false : eventReachesWebhook(deps, merchantId, EVENT[notice]),
      ]);
      const lang = ctx.session.language;
      const defaults = {
        capture: majorText(headroom.capturable, lang),
        refund: majorText(headroom.refundable, lang),
        adjust: majorText(headroom.adjustable?.authorised ?? 0, lang),
        reference: payment.merchantReference ?? payment.payfacReference,
      };
      return { payment, modifications, headroom, deliveries, webhookNames, form, notice, webhookFollows, defaults };
    };

    route
      .get('/payments', { permission: 'payments.read', view: renderPaymentList })
      .handle(async ({ request, merchantId, session }: Ctx<{ Querystring: ListQuery }>) => {
        const { shown, filter, errors } = filterOf(request.query, session.language);
        const keyset = keysetOf(request.query);
        const found = await searchPayments(deps, merchantId, filter, keyset, PAGE_SIZE);
        return { status: errors.size > 0 ? 400 : 200, data: { filter: shown, errors, ...found } };
      });

    // Before '/payments/:payfacReference' in reading order; Fastify prefers the static path whatever the order.
    route
      .get('/payments/authorisations', { permission: 'payments.read', view: renderAuthorisations })
      .handle(async ({ request, merchantId }: Ctx<{ Querystring: { soon?: string; before?: string; after?: string } }>) => {
        const soon = request.query.soon === '1';
        const keyset = keysetOf(request.query);
        const page = await waitingAuthorisations(deps, merchantId, soon, keyset, PAGE_SIZE);
        const soonBefore = new Date(clock.now().getTime() + EXPIRES_SOON_MS);
        return { data: { soon, days: deps.config.authorisationExpiryDays, soonBefore, ...page } };
      });

    route
      .get('/payments/export.csv', { permission: 'payments.read' })
      .handle(async ({ request, reply, merchantId, session }: Ctx<{ Querystring: ListQuery }>) => {
        const { filter, errors } = filterOf(request.query, session.language, true);
        // A filter that is none is refused as the list refuses it: never an export of every payment.
        if (errors.size > 0) throw validationError(errors.all());
        const day = clock.now().toISOString().slice(0, 10);
        reply.header('Content-Disposition', `attachment; filename="payments-${day}.csv"`).header('Cache-Control', 'no-store').type('text/csv; charset=utf-8');
        return { sent: reply.send(Readable.from(csvLines(eachPayment(deps, merchantId, filter)))) };
      });

    route
      .get('/payments/:payfacReference', { permission: 'payments.read', view: renderPaymentDetail })
      .handle(async (ctx: Ctx<RefParams & { Querystring: { done?: string } }>) => {
        const payment = await paymentDetail(deps, ctx.merchantId, ctx.request.params.payfacReference);
        const done = ctx.request.query.done;
        const notice = done === 'capture' || done === 'refund' || done === 'reverse' || done === 'adjust' ? done : null;
        return { data: await detailData(ctx, payment, null, notice) };
      });

    /**
     * A capture, refund or reversal as the API takes it: the operation checks the body and applies
     * the ledger's rules. Refusals come back to the form, beside the input they name; amounts over
     * the limit are said in money, not in minor units.
     */
    const modification = async (ctx: Ctx<RefParams>, kind: ModificationKind): Promise<Outcome<DetailData>> => {
      const { merchantId, session, form, actor } = ctx;
      // Another merchant's payment is not found before anything in the form is looked at.
      const payment = await paymentDetail(deps, merchantId, ctx.request.params.payfacReference);
      const typed: ModificationForm = {
        kind,
        amount: form.text('amount').trim(),
        reference: form.text('reference').trim(),
        refundReason: form.text('refundReason'),
        errors: new FieldErrors(),
      };
      const minor = minorOf(typed.amount);
      const base = { reference: typed.reference, payfacReference: payment.payfacReference };
      const body: Record<string, unknown> =
        kind === 'reverse'
          ? base
          : {
              ...base,
              amount: minor ?? typed.amount,
              currency: payment.currency,
              ...(kind === 'refund' && typed.refundReason !== '' ? { refundReason: typed.refundReason } : {}),
            };
      try {
        await requestModification({ ...deps, actor }, merchantId, OPERATION[kind], body);
        return { seeOther: `${paymentPath(payment.payfacReference)}?done=${kind}` };
      } catch (err) {
        if (err instanceof ApiError && err.code === 'AUTHORISATION_EXPIRED') return { status: 409, data: await detailData(ctx, payment, null, 'expired') };
        if (err instanceof ApiError && err.code === 'INVALID_STATE') return { status: 409, data: await detailData(ctx, payment, null, 'refused') };
        if (!(err instanceof ApiError && err.errors)) throw err;
        if (kind === 'reverse') return { status: 400, data: await detailData(ctx, payment, null, 'refused') };
        const headroom = await headroomOf(deps, merchantId, payment.payfacReference);
        typed.errors = new FieldErrors(err.errors.map((e) => inMoney(e, typed.amount, minor, headroom, payment.currency, session.language)));
        return { status: 400, data: await detailData(ctx, payment, typed, null) };
      }
    };

    for (const kind of ['capture', 'refund', 'reverse', 'adjust'] as const) {
      route
        .post(`/payments/:payfacReference/${kind}`, { permission: 'payments.modify', view: renderPaymentDetail })
        .handle((ctx: Ctx<RefParams>) => modification(ctx, kind));
    }

    route
      .get('/payments/:payfacReference/reverse', { permission: 'payments.modify', view: renderReverse })
      .handle(async ({ request, merchantId }: Ctx<RefParams>) => {
        const payment = await paymentDetail(deps, merchantId, request.params.payfacReference);
        return { data: { payment, headroom: await headroomOf(deps, merchantId, payment.payfacReference) } };
      });
  },
};

/** An address's host ("shop.example"), or the address as it is when it has none. */
function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/**
 * The API's amount errors as a merchant reads them in the portal: the API speaks in minor units
 * ("must be at most 12345"), the form in money ("At most €123.45 can be refunded"); text that is no
 * amount is said to be none. Every other error is the API's own.
 */
function inMoney(e: FieldError, typed: string, minor: number | undefined, headroom: Headroom, currency: string, lang: View['lang']): FieldError {
  if (e.field !== 'amount') return e;
  const t = translator(M, lang);
  if (e.code === 'EXCEEDS_CAPTURABLE') return { ...e, message: t('exceedsCapturable', { amount: formatMoney(headroom.capturable, currency, lang) }) };
  if (e.code === 'BELOW_CAPTURED') return { ...e, message: t('belowCaptured', { amount: formatMoney(headroom.adjustable?.least ?? 0, currency, lang) }) };
  if (e.code === 'EXCEEDS_REFUNDABLE') return { ...e, message: t('exceedsRefundable', { amount: formatMoney(headroom.refundable, currency, lang) }) };
  if (typed !== '' && minor === undefined) return { ...e, code: 'AMOUNT', message: t('notAnAmount') };
  return e;
}
