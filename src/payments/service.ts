import type { PoolClient } from 'pg';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { BatchLoader, perDatabase } from '../db/batch.js';
import { newPayfacReference, newReference, prefixedId } from '../ids.js';
import { linkStatus } from '../paymentLinks/service.js';
import type { ShopperInfo } from '../paymentLinks/rules.js';
import { findSession, lockSession, completeSession, type SessionRow } from '../checkout/sql.js';
import { sessionStatusOf } from '../checkout/service.js';
import { enqueueEvent, type PaymentEvent } from '../webhooks/events.js';
import type { Acquirer, AuthoriseResult } from './acquirer.js';
import type { CardInput, CardSummary } from './card.js';
import * as sql from './sql.js';

// Paying a link or a checkout session (D6, D10, D11, D12). One transaction holds the locked link or
// session row, the acquirer's answer, the payment, the submission, the sales count and every event
// with its deliveries: they commit together or not at all.

export interface Answer {
  field: string;
  value: string;
}

export interface DisplayLine {
  name: string;
  quantity: number | null;
  unitPrice: number | null;
  /** Before discount, when the line has one (links). */
  amountWithoutDiscount: number | null;
  amount: number;
}

export type Target = { kind: 'link' | 'session'; reference: string };

/** A link or a session as the shopper's page shows it and a payment charges it. */
export interface Checkoutable {
  kind: 'link' | 'session';
  reference: string;
  merchantId: string;
  merchantName: string;
  terminalIdentifier: string;
  description: string;
  amount: number;
  currency: string;
  culture: string;
  themeKey: string | null;
  items: DisplayLine[];
  shopperInfos: ShopperInfo[];
  /** Where the shopper goes after a successful payment (a session's carries checkoutReference). */
  returnUrl: string | null;
  /**
   * Where "Cancel" goes: a link's returnUrl; a session's abandonUrl, else its returnUrl (with
   * checkoutReference, whose status then reads New: the shop sees the order is unpaid).
   */
  cancelUrl: string | null;
  /** Saves the card (TokenizeByLink, or a session with recurringProcessingModel). */
  tokenize: boolean;
  recurringProcessingModel: string | null;
  shopperEmail: string | null;
  status: string;
  payable: boolean;
  merchantReference: string;
  checkoutReference: string | null;
  preAuth: boolean;
  manualCapture: boolean;
  captureHoursDelay: number | null;
  merchantShopperReference: string | null;
}

/** D10: returnUrl with checkoutReference added to its query, its own parameters kept byte for byte. */
export function withCheckoutReference(returnUrl: string, checkoutReference: string): string {
  const hashAt = returnUrl.indexOf('#');
  const base = hashAt === -1 ? returnUrl : returnUrl.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : returnUrl.slice(hashAt);
  const sep = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}checkoutReference=${encodeURIComponent(checkoutReference)}${hash}`;
}

export function fromLink(link: sql.LinkForPage, now: Date): Checkoutable {
  const status = linkStatus(link, now);
  return {
    kind: 'link',
    reference: link.reference,
    merchantId: link.merchantId,
    merchantName: link.merchantName,
    terminalIdentifier: link.terminalIdentifier,
    description: link.description,
    amount: link.amount,
    currency: link.currency,
    culture: link.culture,
    themeKey: link.themeKey,
    items: link.items.map((i) => ({ name: i.name, quantity: i.quantity, unitPrice: i.unitPrice, amountWithoutDiscount: i.amountWithoutDiscount, amount: i.amount })),
    shopperInfos: link.shopperInfos,
    returnUrl: link.returnUrl,
    cancelUrl: link.returnUrl,
    tokenize: link.type === 'TokenizeByLink',
    recurringProcessingModel: link.recurringProcessingModel,
    shopperEmail: null,
    status,
    payable: status === 'Active',
    merchantReference: link.reference,
    checkoutReference: null,
    preAuth: false,
    manualCapture: false,
    captureHoursDelay: null,
    merchantShopperReference: null,
  };
}

export function fromSession(s: SessionRow, now: Date): Checkoutable {
  const status = sessionStatusOf(s, now);
  return {
    kind: 'session',
    reference: s.reference,
    merchantId: s.merchant_id,
    merchantName: s.merchant_name,
    terminalIdentifier: s.terminal_identifier,
    description: '',
    amount: s.amount,
    currency: s.currency,
    culture: s.culture,
    themeKey: s.theme_key,
    items: s.items.map((i) => ({ name: i.name, quantity: i.quantity, unitPrice: i.unitPrice, amountWithoutDiscount: null, amount: i.amount })),
    shopperInfos: [],
    returnUrl: withCheckoutReference(s.return_url, s.reference),
    cancelUrl: s.abandon_url ?? withCheckoutReference(s.return_url, s.reference),
    tokenize: s.recurring_processing_model !== null,
    recurringProcessingModel: s.recurring_processing_model,
    shopperEmail: s.shopper_email,
    status,
    payable: status === 'New',
    merchantReference: s.merchant_reference,
    checkoutReference: s.reference,
    preAuth: s.is_pre_auth,
    manualCapture: s.is_manual_capture,
    captureHoursDelay: s.capture_hours_delay,
    merchantShopperReference: s.merchant_shopper_reference,
  };
}

export interface PaymentDeps {
  db: Database;
  clock: Clock;
  acquirer: Acquirer;
}

/** Counts each page view (D6); the views of one turn are counted by one statement (issue 8). */
const visitCounter = perDatabase(
  (db: Database) =>
    new BatchLoader<string, sql.LinkForPage>(async (references, views) => new Map((await sql.countLinkVisits(db.pool, references, views)).map((l) => [l.reference, l]))),
);

/** What a reference of ours can look like (D5: URL-safe, at most 100 characters). */
const PLAUSIBLE_REFERENCE = /^[A-Za-z0-9_-]{1,100}$/;

/** The page's view of a link or session; a link's page view is counted (D6). */
export async function openCheckoutable(deps: { db: Database; clock: Clock }, target: Target, opts: { countVisit: boolean }): Promise<Checkoutable | undefined> {
  // Anything else is not found without asking the database: the public pages take any path.
  if (!PLAUSIBLE_REFERENCE.test(target.reference)) return undefined;
  const now = deps.clock.now();
  if (target.kind === 'link') {
    const link = opts.countVisit ? await visitCounter(deps.db).get(target.reference) : await sql.findLinkForPage(deps.db.pool, target.reference);
    return link ? fromLink(link, now) : undefined;
  }
  const session = await findSession(deps.db.pool, target.reference);
  return session ? fromSession(session, now) : undefined;
}

export type PayOutcome =
  | { kind: 'Authorised'; payfacReference: string; card: CardSummary; amount: number; currency: string; token: string | null }
  | { kind: 'Refused'; payfacReference: string; card: CardSummary; reason: string }
  | { kind: 'Challenge'; challengeId: string; card: CardSummary }
  | { kind: 'NotPayable'; status: string }
  | { kind: 'NotFound' };

async function lockTarget(tx: PoolClient, target: Target, now: Date): Promise<Checkoutable | undefined> {
  if (target.kind === 'link') {
    const link = await sql.lockLinkForPayment(tx, target.reference);
    return link ? fromLink(link, now) : undefined;
  }
  const session = await lockSession(tx, target.reference);
  return session ? fromSession(session, now) : undefined;
}

// The acquirer is called while the row is locked, so payments on one link run one after another.
// That is what makes "no oversell" hold without reservations to expire; the simulator answers in
// microseconds, and for a real acquirer the wait is one authorisation per link at a time, which a
// payment link (one product, many shoppers) can afford. Not retried: a second run would authorise twice.
const NO_RETRY = { retries: 0 } as const;

/** Pays a link or a session with a card. The card goes to the acquirer and nowhere else. */
export async function pay(deps: PaymentDeps, target: Target, input: { card: CardInput; answers: Answer[] }): Promise<PayOutcome> {
  return withTransaction(
    deps.db,
    async (tx) => {
      const now = deps.clock.now();
      const c = await lockTarget(tx, target, now);
      if (!c) return { kind: 'NotFound' };
      if (!c.payable) return { kind: 'NotPayable', status: c.status };
      const result = await deps.acquirer.authorise({ card: input.card, amount: chargeAmount(c), currency: c.currency, tokenize: c.tokenize, preAuth: c.preAuth });
      if (result.outcome === 'ChallengeShopper') {
        const challengeId = prefixedId('3ds');
        await sql.insertChallenge(tx, {
          id: challengeId,
          targetKind: c.kind,
          targetReference: c.reference,
          answers: input.answers,
          acquirerState: result.state,
          createdAt: now,
          expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
        });
        return { kind: 'Challenge', challengeId, card: result.card };
      }
      return record(tx, deps.clock, c, result, input.answers);
    },
    NO_RETRY,
  );
}

const CHALLENGE_TTL_MS = 15 * 60 * 1000;

// Submissions are listed by (created_at, id); the injected clock can give several the same instant,
// so the id itself sorts in the order they were made: wall-clock milliseconds, a counter, randomness.
let submissionCounter = 0;
function submissionId(): string {
  submissionCounter = (submissionCounter + 1) % 36 ** 4;
  return `sub_${Date.now().toString(36).padStart(9, '0')}${submissionCounter.toString(36).padStart(4, '0')}${prefixedId('').slice(1)}`;
}

/** Finishes a 3-D Secure step: the shopper confirmed or cancelled it. Each step is finished once. */
export async function completeChallenge(deps: PaymentDeps, target: Target, challengeId: string, confirmed: boolean): Promise<PayOutcome | { kind: 'ChallengeGone' }> {
  return withTransaction(
    deps.db,
    async (tx) => {
      const now = deps.clock.now();
      const c = await lockTarget(tx, target, now);
      if (!c) return { kind: 'NotFound' as const };
      const challenge = await sql.takeChallenge(tx, challengeId, target.kind, target.reference, now);
      if (!challenge) return { kind: 'ChallengeGone' as const };
      if (!c.payable) return { kind: 'NotPayable' as const, status: c.status };
      const result = await deps.acquirer.completeChallenge(challenge.acquirer_state, confirmed);
      return record(tx, deps.clock, c, result, challenge.answers);
    },
    NO_RETRY,
  );
}

function chargeAmount(c: Checkoutable): number {
  return c.kind === 'link' && c.tokenize ? 0 : c.amount;
}

type CaptureState = sql.NewPayment['captureState'];

/** What happens to the money after a successful authorisation (D10, D12). */
function capturePlan(c: Checkoutable, amount: number, now: Date): { state: CaptureState; dueAt: Date | null } {
  if (amount === 0) return { state: 'None', dueAt: null };
  // A pre-authorisation may still be adjusted, so it is never captured automatically.
  if (c.manualCapture || c.preAuth) return { state: 'Manual', dueAt: null };
  if (c.captureHoursDelay !== null) return { state: 'Scheduled', dueAt: new Date(now.getTime() + c.captureHoursDelay * 3_600_000) };
  return { state: 'Captured', dueAt: null };
}

async function record(
  tx: PoolClient,
  clock: Clock,
  c: Checkoutable,
  result: Exclude<AuthoriseResult, { outcome: 'ChallengeShopper' }>,
  answers: Answer[],
): Promise<PayOutcome> {
  const now = clock.now();
  const payfacReference = newPayfacReference();
  const amount = chargeAmount(c);
  const success = result.outcome === 'Authorised';
  const token = success ? result.token : null;
  const plan = success ? capturePlan(c, amount, now) : { state: 'None' as const, dueAt: null };
  const card = result.card;
  // Every event of the payment carries a checkout reference: the session's, or for a payment on a
  // link a new one, since each visit that pays is a checkout of its own.
  const eventCheckoutReference = c.checkoutReference ?? newReference('cs');

  await sql.insertPayment(tx, {
    payfacReference,
    merchantId: c.merchantId,
    terminalIdentifier: c.terminalIdentifier,
    checkoutReference: c.checkoutReference,
    eventCheckoutReference,
    paymentLinkReference: c.kind === 'link' ? c.reference : null,
    merchantReference: c.merchantReference,
    amount,
    currency: c.currency,
    success,
    reason: success ? null : result.reason,
    cardMasked: card.masked,
    cardSummary: card.last4,
    cardExpiry: card.expiry,
    paymentMethod: card.paymentMethod,
    threeDAuthenticated: result.threeDAuthenticated,
    authCode: success ? result.authCode : null,
    isPreAuth: c.preAuth,
    token,
    captureState: plan.state,
    capturedAmount: plan.state === 'Captured' ? amount : 0,
    captureDueAt: plan.dueAt,
    createdAt: now,
  });
  if (token !== null) {
    await sql.insertToken(tx, {
      token,
      merchantId: c.merchantId,
      payfacReference,
      recurringProcessingModel: c.recurringProcessingModel ?? 'CardOnFile',
      merchantShopperReference: c.merchantShopperReference,
      cardMasked: card.masked,
      cardSummary: card.last4,
      cardExpiry: card.expiry,
      paymentMethod: card.paymentMethod,
      createdAt: now,
    });
  }

  if (c.kind === 'link') {
    // interface.md 2.5: payfacReference is null for an incomplete submission.
    await sql.insertLinkSubmission(tx, {
      id: submissionId(),
      paymentLinkReference: c.reference,
      answers,
      completed: success,
      amount,
      currency: c.currency,
      token,
      payfacReference: success ? payfacReference : null,
      createdAt: now,
    });
    if (success) {
      if (c.tokenize) await sql.completeTokenizeLink(tx, c.reference, now);
      else await sql.recordLinkSale(tx, c.reference, now);
    }
  } else if (success) {
    await completeSession(tx, c.reference, payfacReference, now);
  }

  const base: Omit<PaymentEvent, 'eventType' | 'reason' | 'success' | 'additionalData'> = {
    merchantId: c.merchantId,
    checkoutReference: eventCheckoutReference,
    payfacReference,
    merchantReference: c.merchantReference,
    amount,
    currency: c.currency,
  };
  const cardData = { cardNumber: card.masked, cardSummary: card.last4, paymentMethod: card.paymentMethod };
  await enqueueEvent(tx, clock, {
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
  if (!success) return { kind: 'Refused', payfacReference, card, reason: result.reason };

  if (plan.state === 'Captured') {
    await enqueueEvent(tx, clock, { ...base, eventType: 'Capture', success: true, reason: null, additionalData: { ...cardData } });
  }
  if (token !== null) {
    await enqueueEvent(tx, clock, {
      ...base,
      eventType: 'Tokenization',
      success: true,
      // D12: clients in the field read the card's expiry from the third part.
      reason: `Tokenized:${card.last4}:${card.expiry}`,
      additionalData: { ...cardData, token, authCode: result.authCode, threeDAuthenticated: String(result.threeDAuthenticated) },
    });
  }
  return { kind: 'Authorised', payfacReference, card, amount, currency: c.currency, token };
}

/** A finished payment for its receipt page. */
export async function receiptOf(deps: { db: Database }, payfacReference: string) {
  return sql.findPayment(deps.db.pool, payfacReference);
}
