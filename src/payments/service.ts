import type { PoolClient } from 'pg';
import type { Database } from '../db/database.js';
import { keysetPage, type Keyset } from '../db/keyset.js';
import { readOne, type Read } from '../db/together.js';
import { notFound } from '../errors.js';
import { newPayfacReference, newReference, prefixedId } from '../ids.js';
import { enqueueEvent, type EventDeps, type PaymentEvent } from '../webhooks/events.js';
import type { FinalAuthoriseResult } from './acquirer.js';
import type { CardSummary } from './card.js';
import * as sql from './sql.js';
import { hasExpired, type ExpiryDeps } from './authorisations/service.js';

// Recording a card payment (a link's or a checkout session's) once the acquirer has answered: the
// payment, the saved card, and every event with its deliveries, inside the caller's transaction, so
// that they commit together with what the payment changes on the link or session, or not at all.
// The caller (the checkout module, which knows links and sessions) locks what is paid and asks the
// acquirer; this module knows payments only.

/** What is being paid, as far as the payment and its events need to know. */
export interface PaymentIntent {
  merchantId: string;
  terminalIdentifier: string;
  /** The session's reference; null for a link, whose paying visit gets a checkout reference of its own. */
  sessionReference: string | null;
  /** The link's reference; null for a session. */
  paymentLinkReference: string | null;
  merchantReference: string;
  /** Minor units charged; 0 when the card is only saved. */
  amount: number;
  currency: string;
  /** Save the card for later payments. */
  tokenize: boolean;
  recurringProcessingModel: string | null;
  merchantShopperReference: string | null;
  preAuth: boolean;
  manualCapture: boolean;
  captureHoursDelay: number | null;
  /** When the shopper accepted the link's terms; null when the link asks for none. */
  termsAcceptedAt: Date | null;
  /** The shopper's answers to the link's custom fields (docs/api.md, Custom fields); null when it asks for none. */
  customFieldAnswers: { key: string; value: string }[] | null;
  /** The items at the quantities the shopper chose (docs/rules.md, Adjustable quantities); null: no choice offered. */
  chosenItems: sql.ChosenItem[] | null;
  /** The promotion code the shopper used and what it took off `amount` (docs/api.md, Promotion codes); absent or null: none. */
  promotion?: { code: string; discountAmount: number } | null;
}

type RecordedPayment =
  | { success: true; payfacReference: string; card: CardSummary; amount: number; currency: string; token: string | null }
  | { success: false; payfacReference: string; card: CardSummary; amount: number; currency: string; reason: string };

type CaptureState = sql.NewPayment['captureState'];

/** What happens to the money after a successful authorisation. */
function capturePlan(p: PaymentIntent, now: Date): { state: CaptureState; dueAt: Date | null } {
  if (p.amount === 0) return { state: 'None', dueAt: null };
  // A pre-authorisation may still be adjusted, so it is never captured automatically.
  if (p.manualCapture || p.preAuth) return { state: 'Manual', dueAt: null };
  if (p.captureHoursDelay !== null) return { state: 'Scheduled', dueAt: new Date(now.getTime() + p.captureHoursDelay * 3_600_000) };
  return { state: 'Captured', dueAt: null };
}

/** Records the acquirer's final answer: the payment, the card when saved, and its events. */
export async function recordPayment(tx: PoolClient, deps: EventDeps, p: PaymentIntent, result: FinalAuthoriseResult): Promise<RecordedPayment> {
  const now = deps.clock.now();
  const payfacReference = newPayfacReference();
  const success = result.outcome === 'Authorised';
  const token = success ? result.token : null;
  const plan = success ? capturePlan(p, now) : { state: 'None' as const, dueAt: null };
  const card = result.card;
  // Every event of the payment carries a checkout reference: the session's, or for a payment on a
  // link a new one, since each visit that pays is a checkout of its own.
  const eventCheckoutReference = p.sessionReference ?? newReference('cs');

  await recordAuthorisation(
    tx,
    deps,
    {
      payfacReference,
      merchantId: p.merchantId,
      terminalIdentifier: p.terminalIdentifier,
      checkoutReference: p.sessionReference,
      eventCheckoutReference,
      paymentLinkReference: p.paymentLinkReference,
      merchantReference: p.merchantReference,
      amount: p.amount,
      currency: p.currency,
      isPreAuth: p.preAuth,
      token,
      captureState: plan.state,
      capturedAmount: plan.state === 'Captured' ? p.amount : 0,
      captureDueAt: plan.dueAt,
      createdAt: now,
      termsAcceptedAt: p.termsAcceptedAt,
      customFieldAnswers: p.customFieldAnswers,
      chosenItems: p.chosenItems,
      promotionCode: p.promotion?.code ?? null,
      discountAmount: p.promotion?.discountAmount ?? null,
    },
    card,
    result,
  );
  if (token !== null) {
    await sql.insertToken(tx, {
      token,
      merchantId: p.merchantId,
      payfacReference,
      recurringProcessingModel: p.recurringProcessingModel ?? 'CardOnFile',
      merchantShopperReference: p.merchantShopperReference,
      cardMasked: card.masked,
      cardSummary: card.last4,
      cardExpiry: card.expiry,
      paymentMethod: card.paymentMethod,
      createdAt: now,
    });
  }
  if (!success) return { success: false, payfacReference, card, amount: p.amount, currency: p.currency, reason: result.reason };
  if (token !== null) {
    await enqueueEvent(tx, deps, {
      ...eventBase(p, eventCheckoutReference, payfacReference),
      eventType: 'Tokenization',
      success: true,
      // Clients in the field read the card's expiry from the third part.
      reason: `Tokenized:${card.last4}:${card.expiry}`,
      additionalData: { ...cardDataOf(card), token, authCode: result.authCode, threeDAuthenticated: String(result.threeDAuthenticated) },
    });
  }
  return { success: true, payfacReference, card, amount: p.amount, currency: p.currency, token };
}

/** A payment as its caller has it before the acquirer answers; the answer fills in the rest. */
type PaymentBeforeOutcome = Omit<
  sql.NewPayment,
  'success' | 'reason' | 'cardMasked' | 'cardSummary' | 'cardExpiry' | 'paymentMethod' | 'threeDAuthenticated' | 'authCode'
>;

/** What every event of a payment carries. */
function eventBase(
  p: { merchantId: string; merchantReference: string | null; amount: number; currency: string },
  checkoutReference: string,
  payfacReference: string,
): Omit<PaymentEvent, 'eventType' | 'reason' | 'success' | 'additionalData'> {
  return { merchantId: p.merchantId, checkoutReference, payfacReference, merchantReference: p.merchantReference, amount: p.amount, currency: p.currency };
}

function cardDataOf(card: CardSummary): Record<string, string> {
  return { cardNumber: card.masked, cardSummary: card.last4, paymentMethod: card.paymentMethod };
}

/**
 * Records the acquirer's answer on a payment (a page's or a charge of a saved card): the payment, its
 * Authorization event and, when it was captured at once, its Capture event (§Events).
 */
export async function recordAuthorisation(
  tx: PoolClient,
  deps: EventDeps,
  p: PaymentBeforeOutcome,
  card: CardSummary,
  result: FinalAuthoriseResult,
): Promise<void> {
  const success = result.outcome === 'Authorised';
  await sql.insertPayment(tx, {
    ...p,
    success,
    reason: success ? null : result.reason,
    cardMasked: card.masked,
    cardSummary: card.last4,
    cardExpiry: card.expiry,
    paymentMethod: card.paymentMethod,
    threeDAuthenticated: result.threeDAuthenticated,
    authCode: success ? result.authCode : null,
  });
  const base = eventBase(p, p.eventCheckoutReference, p.payfacReference);
  const cardData = cardDataOf(card);
  await enqueueEvent(tx, deps, {
    ...base,
    eventType: 'Authorization',
    success,
    reason: success ? null : result.reason,
    additionalData: {
      ...cardData,
      threeDAuthenticated: String(result.threeDAuthenticated),
      ...(success ? { authCode: result.authCode } : {}),
    },
  });
  if (success && p.captureState === 'Captured') {
    await enqueueEvent(tx, deps, { ...base, eventType: 'Capture', success: true, reason: null, additionalData: cardData });
  }
}

// ---------------------------------------------------------------- 3-D Secure steps of a page

const CHALLENGE_TTL_MS = 15 * 60 * 1000;

type SavedChallenge = Pick<sql.ChallengeInput, 'answers' | 'acquirerState' | 'termsAcceptedAt' | 'customFieldAnswers' | 'itemQuantities' | 'promotionCode'>;

/** Keeps a 3-D Secure step of a link's or session's page until the shopper confirms or cancels it. */
export async function saveChallenge(tx: PoolClient, c: sql.ChallengeInput & { now: Date }): Promise<string> {
  const id = prefixedId('3ds');
  await sql.insertChallenge(tx, {
    id,
    targetKind: c.targetKind,
    targetReference: c.targetReference,
    answers: c.answers,
    acquirerState: c.acquirerState,
    termsAcceptedAt: c.termsAcceptedAt,
    customFieldAnswers: c.customFieldAnswers,
    itemQuantities: c.itemQuantities,
    promotionCode: c.promotionCode ?? null,
    createdAt: c.now,
    expiresAt: new Date(c.now.getTime() + CHALLENGE_TTL_MS),
  });
  return id;
}

/** Takes a step for finishing: it must be this page's, unused and not expired; it is taken once. */
export async function takeChallenge(
  tx: PoolClient,
  id: string,
  targetKind: 'link' | 'session',
  targetReference: string,
  now: Date,
): Promise<SavedChallenge | undefined> {
  const row = await sql.takeChallenge(tx, id, targetKind, targetReference, now);
  return (
    row && {
      answers: row.answers,
      acquirerState: row.acquirerState,
      termsAcceptedAt: row.termsAcceptedAt,
      customFieldAnswers: row.customFieldAnswers,
      itemQuantities: row.itemQuantities,
      promotionCode: row.promotionCode,
    }
  );
}

/** A finished payment for its receipt page. */
export async function receiptOf(deps: { db: Database }, payfacReference: string) {
  return sql.findPayment(deps.db.pool, payfacReference);
}

/** What the portal shows of a payment: with whether its authorisation has expired uncaptured (docs/api.md, Authorisations expire). */
export type PaymentSummary = sql.PaymentSummaryRow & { authorisationExpired: boolean };

/** Each payment with whether it waits for a capture that its authorisation's expiry no longer allows. */
function withExpiry<R extends sql.PaymentSummaryRow>(deps: ExpiryDeps, rows: readonly R[]): (R & { authorisationExpired: boolean })[] {
  const now = deps.clock.now();
  return rows.map((r) => ({ ...r, authorisationExpired: r.success && r.captureState === 'Manual' && hasExpired(deps.config, r.createdAt, now) }));
}

/** The payment made in a checkout that is not a session's (a link payment's, a saved-card charge's), by the reference its events carry. */
export async function paymentOfEventCheckout(
  deps: { db: Database },
  merchantId: string,
  checkoutReference: string,
): Promise<{ payfacReference: string; success: boolean } | undefined> {
  return sql.paymentOfEventCheckout(deps.db.pool, merchantId, checkoutReference);
}

/**
 * The payments made on a link or a session of the merchant, newest first, at most `limit` (the
 * portal's link and session pages). Another merchant's link or session has none.
 */
export async function paymentsOf(
  deps: ExpiryDeps & { db: Database },
  merchantId: string,
  of: { paymentLinkReference: string } | { checkoutReference: string },
  limit: number,
): Promise<PaymentSummary[]> {
  return withExpiry(deps, await sql.paymentsOf(deps.db.pool, merchantId, of, limit));
}

// ---------------------------------------------------------------- the portal's payments pages

export { PAYMENT_STATES, type PaymentFilter, type PaymentState } from './sql.js';
/** A payment as the CSV export writes it. */
export type PaymentExportRow = sql.PaymentListRow;
export type PaymentListItem = sql.PaymentListRow & { authorisationExpired: boolean };
export type PaymentDetail = sql.PaymentDetailRow & { authorisationExpired: boolean };

/** Where a payment stands (the same words as the payments list's filter, §The portal). */
export function paymentState(p: Pick<PaymentSummary, 'success' | 'captureState' | 'refundedAmount' | 'capturedAmount'>): sql.PaymentState {
  if (!p.success) return 'refused';
  if (p.captureState === 'Cancelled') return 'cancelled';
  if (p.refundedAmount > 0) return p.refundedAmount >= p.capturedAmount ? 'refunded' : 'partlyRefunded';
  if (p.captureState === 'Captured') return 'captured';
  if (p.captureState === 'Scheduled') return 'scheduled';
  if (p.captureState === 'Manual') return 'authorised';
  return 'cardSaved';
}

export function isPaymentState(raw: unknown): raw is sql.PaymentState {
  return typeof raw === 'string' && Object.hasOwn(sql.PAYMENT_STATES, raw);
}

/** A page of the merchant's payments (links, sessions and token charges) under a filter, newest first, paged by keyset. */
export async function searchPayments(
  deps: ExpiryDeps & { db: Database },
  merchantId: string,
  filter: sql.PaymentFilter,
  keyset: Keyset | null,
  limit: number,
): Promise<{ payments: PaymentListItem[]; older: string | null; newer: string | null }> {
  const rows = await sql.searchPayments(deps.db.pool, merchantId, filter, keyset, limit + 1);
  const page = keysetPage(rows, limit, keyset);
  return { payments: withExpiry(deps, page.rows), older: page.older, newer: page.newer };
}

/** One payment of the merchant; another merchant's is not found. */
export async function paymentDetail(deps: ExpiryDeps & { db: Database }, merchantId: string, payfacReference: string): Promise<PaymentDetail> {
  const row = await sql.paymentDetail(deps.db.pool, merchantId, payfacReference);
  if (!row) throw notFound('payment');
  return withExpiry(deps, [row])[0] as PaymentDetail;
}

/**
 * Every payment under a filter, newest first, read in batches of `batch` rows by keyset: a caller
 * streaming them (the CSV export) holds one batch at a time, however many there are.
 */
export async function* eachPayment(deps: { db: Database }, merchantId: string, filter: sql.PaymentFilter, batch = 1000): AsyncGenerator<PaymentExportRow> {
  let keyset: Keyset | null = null;
  for (;;) {
    const rows = await sql.searchPayments(deps.db.pool, merchantId, filter, keyset, batch);
    yield* rows;
    const last = rows.at(-1);
    if (rows.length < batch || !last) return;
    keyset = { direction: 'older', at: last.at, reference: last.reference };
  }
}

export type DailySales = sql.DailySalesRow;

/**
 * The merchant's sales per day (UTC) and currency over the last `days` days, today included (the
 * portal's overview): read from the sums kept per day in each payment's and refund's transaction
 * (migrations/0038_daily_sales.sql), at most a row per day and currency however many payments there
 * are. A read that can share a statement with others (src/db/together.ts).
 */
export function dailySalesRead(deps: { clock: { now(): Date } }, merchantId: string, days: number): Read<{ since: Date; rows: DailySales[] }> {
  const now = deps.clock.now();
  const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const read = sql.dailySales(merchantId, since.toISOString().slice(0, 10));
  return { ...read, decode: (value) => ({ since, rows: read.decode(value) }) };
}

export async function dailySales(
  deps: { db: Database; clock: { now(): Date } },
  merchantId: string,
  days: number,
): Promise<{ since: Date; rows: DailySales[] }> {
  return readOne(deps.db.pool, dailySalesRead(deps, merchantId, days));
}

/** The merchant's newest payments (the overview's), as a read that can share a statement. */
export function newestPaymentsRead(deps: ExpiryDeps, merchantId: string, limit: number): Read<PaymentListItem[]> {
  const read = sql.newestPayments(merchantId, limit);
  return { ...read, decode: (value) => withExpiry(deps, read.decode(value)) };
}
