import type { PoolClient } from 'pg';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { recordLinkPayment, type CustomFieldAnswer } from '../paymentLinks/shopper.js';
import type { Acquirer, AuthoriseResult } from '../payments/acquirer.js';
import { parseCard, type CardSummary } from '../payments/card.js';
import { recordPayment, saveChallenge, takeChallenge, type PaymentIntent } from '../payments/service.js';
import type { Sealer } from '../sealing.js';
import { enqueuePaymentMails } from '../mail/service.js';
import type { Lang } from '../web/lang.js';
import { completeSession, deleteHold } from './sql.js';
import { askAcquirer, holdPlace } from './holds.js';
import { atQuantities, chosenItemsOf, problemsOf } from './quantities.js';
import { countRedemption, type AppliedPromotion, type PromotionRefusal } from '../promotionCodes/service.js';
import { lockCheckoutPromotion } from './promotion.js';
import { takeReceipt, type ReceiptLimits } from './receiptLimits.js';
import { checkShopperInput, type CheckedShopperInput, type ShopperInput, type ShopperProblems } from './shopperInput.js';
import { lockTarget, openCheckoutable, type Answer, type Checkoutable, type Target } from './checkoutable.js';

/** A card field the shopper typed wrong. */
type CardField = 'cardNumber' | 'expiryDate' | 'cvc';

// What the shopper pays on the service's pages: a payment link or a checkout session, seen the same
// way (a Checkoutable), and paying it, in three steps so that no transaction, row lock or pooled
// connection is held while the acquirer answers (which takes a real acquirer 0.2–2 s):
//   1. a short transaction on the locked link or session decides the payment (what the shopper gave,
//      the total, the code) and holds a place for it: a link's cap counts its sales and the places
//      held by payments in flight, a code's cap its redemptions and its holds (payment_holds);
//   2. the acquirer is called, with the hold's id as its idempotency key, and no transaction open;
//   3. a second transaction takes the hold out and records the payment and its events (by the
//      payments module) with what it changes on the link (submission, sale) or the session
//      (completed): they commit together or not at all.
// A call that fails releases its hold; a hold left by a process that died counts no more once it
// expires, and a loop removes it (./holds.ts).

export type { Answer, Checkoutable, DisplayLine, Target } from './checkoutable.js';
export { PLAIN_CHECKOUT, PLAUSIBLE_REFERENCE, openCheckoutable } from './checkoutable.js';

interface PayDeps {
  db: Database;
  clock: Clock;
  acquirer: Acquirer;
  sealer: Sealer;
  /** How many receipts a link's pages send in an hour (./receiptLimits.ts); the configuration's. */
  receiptsPerHour: ReceiptLimits;
}

/** Who pays, as the receipt limits count them: the shopper's network address. */
export interface PayingFrom {
  address: string;
}

export type PayOutcome =
  | { kind: 'Authorised'; payfacReference: string; card: CardSummary; amount: number; currency: string; token: string | null }
  | { kind: 'Refused'; payfacReference: string; card: CardSummary; reason: string }
  /** The 3-D Secure step, for exactly `amount`: what the payment charges once confirmed (after quantities and a code). */
  | { kind: 'Challenge'; challengeId: string; card: CardSummary; amount: number }
  | { kind: 'NotPayable'; status: string }
  /** What the shopper gave is refused: every problem, with the link or session as it is now. */
  | { kind: 'Invalid'; card: readonly CardField[]; problems: ShopperProblems; checkoutable: Checkoutable }
  /** A 3-D Secure step finished on a link that changed meanwhile: the page again, as the link now is. */
  | { kind: 'Changed'; problems: ShopperProblems; checkoutable: Checkoutable }
  | { kind: 'TotalChanged'; amount: number; quantities: number[] | null }
  | { kind: 'PromotionRefused'; refusal: PromotionRefusal }
  /**
   * Every place left (`places`; a session: its one) or every use left of the code (`code`) is held by
   * payments in flight: nothing charged, nothing held; trying again may find one freed.
   */
  | { kind: 'PlacesHeld'; what: 'places' | 'code' }
  | { kind: 'NotFound' };

/** A payment decided on its locked link or session, with its place held, ready for the acquirer. */
interface Held {
  kind: 'Held';
  holdId: string;
  c: Checkoutable;
  amount: number;
  promotion: AppliedPromotion | null;
  answers: Answer[];
  recorded: { termsAcceptedAt: Date | null; customFieldAnswers: CustomFieldAnswer[] | null; itemQuantities: number[] | null };
}

/** Held, or why the payment goes no further (nothing is held then). */
async function held(
  tx: PoolClient,
  c: Checkoutable,
  promotion: Awaited<ReturnType<typeof lockCheckoutPromotion>>,
  now: Date,
  rest: Pick<Held, 'answers' | 'recorded'>,
): Promise<Held | PayOutcome> {
  if ('refusal' in promotion) return { kind: 'PromotionRefused', refusal: promotion.refusal };
  const hold = await holdPlace(tx, c, promotion.applied?.promotionCodeId ?? null, promotion.applied?.remaining ?? null, now);
  if (hold === 'full') return { kind: 'PlacesHeld', what: 'places' };
  if (hold === 'codeUsedUp') return { kind: 'PlacesHeld', what: 'code' };
  return { kind: 'Held', holdId: hold, c, amount: promotion.applied?.total ?? chargeAmount(c), promotion: promotion.applied, ...rest };
}

/**
 * Pays a link or a session with a card. The card goes to the acquirer and nowhere else. Everything
 * the shopper gave is checked here, at once (the card's form, and checkShopperInput): a payment is
 * decided on the locked row, so that terms, custom fields or quantities the merchant changed after
 * the page was shown are decided as they now are; a mistyped card, which pays nothing, is refused
 * without the lock. An `Invalid` answer carries every problem with the link or session as it now is,
 * for the page to show. The moment of a terms' acceptance recorded with the payment is this one.
 */
export async function pay(
  deps: PayDeps,
  target: Target,
  input: {
    /** The card's fields as typed. */
    card: { cardNumber: string; expiryDate: string; cvc: string };
    shopper: ShopperInput;
    /** The total (before any code) the page showed for the quantities; needed where they can change. */
    shownTotal?: number;
    promotionCode?: string;
    /** The language of the page the shopper paid on (they may have switched it): their receipt's. */
    lang?: Lang;
    from: PayingFrom;
  },
): Promise<PayOutcome> {
  const card = parseCard(input.card, deps.clock.now());
  if (card.card === null) {
    // A mistyped card pays nothing: refused without taking the link's lock, with every other problem.
    const c = await openCheckoutable(deps, target, { countVisit: false });
    if (!c) return { kind: 'NotFound' };
    if (!c.payable) return { kind: 'NotPayable', status: c.status };
    return invalid(c, card.errors, checkShopperInput(c, input.shopper));
  }
  const cardInput = card.card;
  const decided = await withTransaction(deps.db, async (tx): Promise<Held | PayOutcome> => {
    const now = deps.clock.now();
    const locked = await lockTarget(tx, target, now);
    if (!locked) return { kind: 'NotFound' };
    if (!locked.payable) return { kind: 'NotPayable', status: locked.status };
    const checked = checkShopperInput(locked, input.shopper);
    if (checked.problems !== null) return invalid(locked, [], checked);
    // The total the quantities make is charged only when it is the total the shopper was shown
    // (docs/rules.md, §Adjustable quantities): where quantities can change, a post that does not
    // say which total it was shown is charged nothing either.
    const c = atQuantities(locked, checked.quantities);
    if (c.choice !== null && input.shownTotal !== c.amount) {
      return { kind: 'TotalChanged', amount: c.amount, quantities: checked.quantities };
    }
    // A code that no longer applies (its cap reached, expired, made inactive) charges nothing: the page says why.
    const promotion = await lockCheckoutPromotion(tx, c, chargeAmount(c), input.promotionCode, now);
    return held(tx, c, promotion, now, {
      answers: checked.answers,
      recorded: { termsAcceptedAt: c.termsUrl !== null ? now : null, customFieldAnswers: checked.customFieldAnswers, itemQuantities: c.chosen },
    });
  });
  if (decided.kind !== 'Held') return decided;
  const { c, amount } = decided;
  const result = await askAcquirer(deps.db, decided.holdId, () =>
    deps.acquirer.authorise({ card: cardInput, amount, currency: c.currency, tokenize: c.tokenize, preAuth: c.preAuth, idempotencyKey: decided.holdId }),
  );
  return withTransaction(deps.db, async (tx): Promise<PayOutcome> => {
    await settle(tx, deps, target, decided.holdId);
    if (result.outcome === 'ChallengeShopper') {
      // The place is decided again when the step is finished (completeChallenge), as the link then is.
      const challengeId = await saveChallenge(tx, {
        targetKind: c.kind,
        targetReference: c.reference,
        answers: decided.answers,
        acquirerState: result.state,
        ...decided.recorded,
        promotionCode: decided.promotion?.code ?? null,
        now: deps.clock.now(),
      });
      return { kind: 'Challenge', challengeId, card: result.card, amount };
    }
    return record(tx, deps, c, result, decided.answers, { ...decided.recorded, lang: input.lang, from: input.from }, decided.promotion);
  });
}

const NO_PROBLEMS: ShopperProblems = { answers: {}, terms: false, quantities: [], custom: {} };

/** The refusal of what the shopper gave: every problem, and the checkout as it is (at the quantities chosen when they are valid). */
function invalid(c: Checkoutable, card: readonly CardField[], checked: CheckedShopperInput): PayOutcome {
  const valid = checked.problems === null || checked.problems.quantities.length === 0;
  return { kind: 'Invalid', card, problems: checked.problems ?? NO_PROBLEMS, checkoutable: atQuantities(c, valid ? checked.quantities : null) };
}

/** Finishes a 3-D Secure step: the shopper confirmed or cancelled it. Each step is finished once. */
export async function completeChallenge(
  deps: PayDeps,
  target: Target,
  challengeId: string,
  confirmed: boolean,
  /** The language of the 3-D Secure page the shopper confirmed on (their receipt's), and who confirmed it. */
  given: { lang?: Lang; from: PayingFrom },
): Promise<PayOutcome | { kind: 'ChallengeGone' }> {
  const decided = await withTransaction(
    deps.db,
    async (tx): Promise<(Held & { acquirerState: Record<string, string> }) | PayOutcome | { kind: 'ChallengeGone' }> => {
      const now = deps.clock.now();
      const locked = await lockTarget(tx, target, now);
      if (!locked) return { kind: 'NotFound' };
      const challenge = await takeChallenge(tx, challengeId, target.kind, target.reference, now);
      if (!challenge) return { kind: 'ChallengeGone' };
      if (!locked.payable) return { kind: 'NotPayable', status: locked.status };
      // The quantities chosen before the step, on the link as it is now; terms added while the shopper
      // was at the step were never shown: the page again, asking for them.
      const quantities = locked.choice !== null ? challenge.itemQuantities : null;
      const problems = problemsOf(locked, quantities);
      const terms = locked.termsUrl !== null && challenge.termsAcceptedAt === null;
      if (problems.length > 0 || terms) {
        return {
          kind: 'Changed',
          problems: { ...NO_PROBLEMS, quantities: problems, terms },
          checkoutable: atQuantities(locked, problems.length === 0 ? quantities : null),
        };
      }
      const c = atQuantities(locked, quantities);
      // The code is decided on its locked row, now: another payment may have reached its cap meanwhile.
      const promotion = await lockCheckoutPromotion(tx, c, chargeAmount(c), challenge.promotionCode, now);
      const h = await held(tx, c, promotion, now, {
        answers: challenge.answers,
        recorded: { termsAcceptedAt: challenge.termsAcceptedAt, customFieldAnswers: challenge.customFieldAnswers, itemQuantities: challenge.itemQuantities },
      });
      return h.kind === 'Held' ? { ...h, acquirerState: challenge.acquirerState } : h;
    },
  );
  if (decided.kind !== 'Held') return decided;
  const result = await askAcquirer(deps.db, decided.holdId, () => deps.acquirer.completeChallenge(decided.acquirerState, confirmed));
  return withTransaction(deps.db, async (tx) => {
    await settle(tx, deps, target, decided.holdId);
    return record(tx, deps, decided.c, result, decided.answers, { ...decided.recorded, lang: given.lang, from: given.from }, decided.promotion);
  });
}

/**
 * The start of a payment's last step: the link's or session's row locked first, as every other
 * writer of it locks it first (a page's visit count, an update, the payment's first step), so that
 * the row locks the payment then takes (its merchant's daily sums, the code) come in one order
 * everywhere and never deadlock; then its hold taken out.
 */
async function settle(tx: PoolClient, deps: PayDeps, target: Target, holdId: string): Promise<void> {
  await lockTarget(tx, target, deps.clock.now());
  await deleteHold(tx, holdId);
}

/** The amount before any promotion code: what the link or session charges. */
export function chargeAmount(c: Checkoutable): number {
  return c.kind === 'link' && c.tokenize ? 0 : c.amount;
}

/** The payment, then what it changes on the link or the session, in the same transaction. */
async function record(
  tx: PoolClient,
  deps: PayDeps,
  c: Checkoutable,
  result: Exclude<AuthoriseResult, { outcome: 'ChallengeShopper' }>,
  answers: Answer[],
  given: { termsAcceptedAt: Date | null; customFieldAnswers: CustomFieldAnswer[] | null; lang?: Lang | undefined; from: PayingFrom },
  promotion: AppliedPromotion | null,
): Promise<PayOutcome> {
  const { termsAcceptedAt, customFieldAnswers } = given;
  const intent: PaymentIntent = {
    merchantId: c.merchantId,
    terminalIdentifier: c.terminalIdentifier,
    sessionReference: c.kind === 'session' ? c.reference : null,
    paymentLinkReference: c.kind === 'link' ? c.reference : null,
    merchantReference: c.merchantReference,
    amount: promotion?.total ?? chargeAmount(c),
    currency: c.currency,
    tokenize: c.tokenize,
    recurringProcessingModel: c.recurringProcessingModel,
    merchantShopperReference: c.merchantShopperReference,
    preAuth: c.preAuth,
    manualCapture: c.manualCapture,
    captureHoursDelay: c.captureHoursDelay,
    termsAcceptedAt,
    customFieldAnswers,
    chosenItems: chosenItemsOf(c),
    promotion: promotion && { code: promotion.code, discountAmount: promotion.discount },
  };
  const paid = await recordPayment(tx, deps, intent, result);
  const now = deps.clock.now();
  // Counted only when the payment succeeded, in its transaction. Its use was held (holdPlace): it is
  // counted even past the cap, which only a hold that expired while its acquirer answered lets happen,
  // rather than leave an authorised payment unrecorded.
  if (paid.success && promotion) await countRedemption(tx, promotion, now);
  if (c.kind === 'link') {
    await recordLinkPayment(tx, {
      reference: c.reference,
      tokenize: c.tokenize,
      answers,
      customFieldAnswers,
      success: paid.success,
      amount: paid.amount,
      currency: paid.currency,
      token: paid.success ? paid.token : null,
      payfacReference: paid.payfacReference,
      chosenItems: intent.chosenItems,
      at: now,
    });
  } else if (paid.success) {
    await completeSession(tx, c.reference, paid.payfacReference, now);
  }
  if (paid.success && paid.amount > 0) await enqueueMails(tx, deps, c, paid, answers, promotion, given);
  if (!paid.success) return { kind: 'Refused', payfacReference: paid.payfacReference, card: paid.card, reason: paid.reason };
  return { kind: 'Authorised', payfacReference: paid.payfacReference, card: paid.card, amount: paid.amount, currency: paid.currency, token: paid.token };
}

/**
 * The payment's e-mails (docs/mail.md), in its transaction: the receipt to the shopper's address (a
 * session's shopperContact, or a link page's e-mail field, within the receipt limits), in the
 * language of the page they paid on (else the link's or session's), and the owners' "you were paid".
 * A card only saved (no money taken) has none.
 */
async function enqueueMails(
  tx: PoolClient,
  deps: PayDeps,
  c: Checkoutable,
  paid: { payfacReference: string; card: CardSummary; amount: number; currency: string },
  answers: Answer[],
  promotion: AppliedPromotion | null,
  given: { lang?: Lang | undefined; from: PayingFrom },
): Promise<void> {
  // A link's shopper types the address: limited (./receiptLimits.ts). A session's comes from the merchant.
  const typed = c.kind === 'link' && c.shopperEmail === null && c.emailReceipts ? answers.find((a) => a.field === 'EmailAddress')?.value.trim() : undefined;
  const on = { merchantId: c.merchantId, link: `${c.kind}:${c.reference}` };
  const answered =
    typed !== undefined && typed !== '' && (await takeReceipt(tx, deps.clock.now(), deps.receiptsPerHour, on, given.from.address)) ? typed : undefined;
  const lang = given.lang;
  await enqueuePaymentMails(tx, deps.clock, {
    merchantId: c.merchantId,
    merchantName: c.merchantName,
    culture: lang ?? c.culture,
    order: c.kind === 'link' ? c.description : c.merchantReference,
    items: c.items.map((i) => ({ name: i.name, quantity: i.quantity, amount: i.amount })),
    discount: promotion && { code: promotion.code, amount: promotion.discount },
    amount: paid.amount,
    currency: paid.currency,
    paymentMethod: paid.card.paymentMethod,
    cardLast4: paid.card.last4,
    payfacReference: paid.payfacReference,
    shopperEmail: c.shopperEmail ?? (answered !== undefined && answered !== '' ? answered : null),
  });
}
