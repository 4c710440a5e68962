import type { PoolClient } from 'pg';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { linkStatus } from '../paymentLinks/service.js';
import { linkForPage, lockLinkForPayment, recordLinkPayment, type CustomField, type CustomFieldAnswer, type LinkForPage } from '../paymentLinks/shopper.js';
import type { ShopperInfo } from '../paymentLinks/rules.js';
import { hasAdjustable, type QuantityItem } from '../paymentLinks/quantities.js';
import type { Acquirer, AuthoriseResult } from '../payments/acquirer.js';
import { parseCard, type CardSummary } from '../payments/card.js';
import { recordPayment, saveChallenge, takeChallenge, type PaymentIntent } from '../payments/service.js';
import { withCheckoutReference } from '../urls.js';
import type { Sealer } from '../sealing.js';
import { enqueuePaymentMails } from '../mail/service.js';
import type { Lang } from '../web/lang.js';
import { sessionStatusOf } from './service.js';
import { completeSession, findSession, lockSession, type SessionRow } from './sql.js';
import { atQuantities, chosenItemsOf, problemsOf } from './quantities.js';
import { redeemPromotion, type AppliedPromotion, type PromotionRefusal } from '../promotionCodes/service.js';
import { lockCheckoutPromotion } from './promotion.js';
import { takeReceipt, type ReceiptLimits } from './receiptLimits.js';
import { checkShopperInput, type CheckedShopperInput, type ShopperInput, type ShopperProblems } from './shopperInput.js';

/** A card field the shopper typed wrong. */
type CardField = 'cardNumber' | 'expiryDate' | 'cvc';

// What the shopper pays on the service's pages: a payment link or a checkout session, seen the same
// way (a Checkoutable), and paying it. One transaction holds the locked link or session row, the
// acquirer's answer, the payment and its events (recorded by the payments module), and what the
// payment changes on the link (submission, sale) or the session (completed): they commit together or
// not at all.

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
  /** A link's own sentence on its receipt (docs/api.md, Messages and terms); null for a session. */
  completionMessage: string | null;
  /** A link's own sentence on its page once it is Disabled, Expired or Used; null for a session. */
  inactiveMessage: string | null;
  /** The terms a link's shopper accepts before paying; null: none asked (always for a session). */
  termsUrl: string | null;
  /** A link's own questions on its payment page (docs/api.md, Custom fields); null: none (always for a session). */
  customFields: CustomField[] | null;
  /** A link's items when the shopper may change a quantity of one (docs/rules.md, §Adjustable quantities); else null. */
  choice: QuantityItem[] | null;
  /** The quantities chosen, one per item of `choice`, once they are (items and amount then follow them); null: the link's own. */
  chosen: number[] | null;
  /** The page takes the merchant's promotion codes (a PayByLink with allowPromotionCodes; never a session). */
  allowPromotionCodes: boolean;
  /** A link's shopper is e-mailed a receipt (unless its owner turned that off); a session's always, to its shopperContact. */
  emailReceipts: boolean;
}

/** What only a link's page has (messages, terms, custom fields, quantities, codes), absent: a session's page and a plain checkout. */
const NO_LINK_EXTRAS = {
  completionMessage: null,
  inactiveMessage: null,
  termsUrl: null,
  customFields: null,
  choice: null,
  chosen: null,
  allowPromotionCodes: false,
  emailReceipts: true,
} as const satisfies Partial<Checkoutable>;

/**
 * A checkout with none of the extras: no card saved, captured at once, no shopper e-mail, no message
 * or terms of the merchant's. The pages made from something that is not a link or a session (a saved
 * card's charge, the theme editor's preview) start from it.
 */
export const PLAIN_CHECKOUT = {
  tokenize: false,
  recurringProcessingModel: null,
  shopperEmail: null,
  preAuth: false,
  manualCapture: false,
  captureHoursDelay: null,
  merchantShopperReference: null,
  ...NO_LINK_EXTRAS,
} as const satisfies Partial<Checkoutable>;

/** What a link and a session give their page alike, read from either as it is. */
type SameOnBoth = Pick<
  Checkoutable,
  'reference' | 'merchantId' | 'merchantName' | 'terminalIdentifier' | 'amount' | 'currency' | 'culture' | 'themeKey' | 'recurringProcessingModel'
>;

function sameOnBoth(x: SameOnBoth): SameOnBoth {
  return {
    reference: x.reference,
    merchantId: x.merchantId,
    merchantName: x.merchantName,
    terminalIdentifier: x.terminalIdentifier,
    amount: x.amount,
    currency: x.currency,
    culture: x.culture,
    themeKey: x.themeKey,
    recurringProcessingModel: x.recurringProcessingModel,
  };
}

function fromLink(link: LinkForPage, now: Date): Checkoutable {
  const status = linkStatus(link, now);
  return {
    kind: 'link',
    ...sameOnBoth(link),
    description: link.description,
    items: link.items.map((i) => ({
      name: i.name,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      amountWithoutDiscount: i.amountWithoutDiscount,
      amount: i.amount,
    })),
    shopperInfos: link.shopperInfos,
    returnUrl: link.returnUrl,
    cancelUrl: link.returnUrl,
    tokenize: link.type === 'TokenizeByLink',
    shopperEmail: null,
    status,
    payable: status === 'Active',
    merchantReference: link.reference,
    checkoutReference: null,
    preAuth: false,
    manualCapture: false,
    captureHoursDelay: null,
    merchantShopperReference: null,
    completionMessage: link.completionMessage,
    inactiveMessage: link.inactiveMessage,
    termsUrl: link.termsUrl,
    customFields: link.customFields,
    choice: hasAdjustable(link.items) ? link.items : null,
    chosen: null,
    allowPromotionCodes: link.allowPromotionCodes && link.type === 'PayByLink',
    emailReceipts: link.emailReceipts,
  };
}

function fromSession(s: SessionRow, now: Date): Checkoutable {
  const status = sessionStatusOf(s, now);
  return {
    kind: 'session',
    ...sameOnBoth(s),
    description: '',
    items: s.items.map((i) => ({ name: i.name, quantity: i.quantity, unitPrice: i.unitPrice, amountWithoutDiscount: null, amount: i.amount })),
    shopperInfos: [],
    returnUrl: withCheckoutReference(s.returnUrl, s.reference),
    cancelUrl: s.abandonUrl ?? withCheckoutReference(s.returnUrl, s.reference),
    tokenize: s.recurringProcessingModel !== null,
    shopperEmail: s.shopperEmail,
    status,
    payable: status === 'New',
    merchantReference: s.merchantReference,
    checkoutReference: s.reference,
    preAuth: s.isPreAuth,
    manualCapture: s.isManualCapture,
    captureHoursDelay: s.captureHoursDelay,
    merchantShopperReference: s.merchantShopperReference,
    ...NO_LINK_EXTRAS,
  };
}

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

/** What a reference of ours can look like: URL-safe, at most 100 characters. */
export const PLAUSIBLE_REFERENCE = /^[A-Za-z0-9_-]{1,100}$/;

/** The page's view of a link or session; a link's page view is counted. */
export async function openCheckoutable(deps: { db: Database; clock: Clock }, target: Target, opts: { countVisit: boolean }): Promise<Checkoutable | undefined> {
  // Anything else is not found without asking the database: the public pages take any path.
  if (!PLAUSIBLE_REFERENCE.test(target.reference)) return undefined;
  const now = deps.clock.now();
  if (target.kind === 'link') {
    const link = await linkForPage(deps.db, target.reference, opts);
    return link ? fromLink(link, now) : undefined;
  }
  const session = await findSession(deps.db.pool, target.reference);
  return session ? fromSession(session, now) : undefined;
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
  | { kind: 'NotFound' };

async function lockTarget(tx: PoolClient, target: Target, now: Date): Promise<Checkoutable | undefined> {
  if (target.kind === 'link') {
    const link = await lockLinkForPayment(tx, target.reference);
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
  return withTransaction(
    deps.db,
    async (tx) => {
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
      const termsAcceptedAt = c.termsUrl !== null ? now : null;
      const customFieldAnswers = checked.customFieldAnswers;
      // A code that no longer applies (its cap reached, expired, made inactive) charges nothing: the page says why.
      const promotion = await lockCheckoutPromotion(tx, c, chargeAmount(c), input.promotionCode, now);
      if ('refusal' in promotion) return { kind: 'PromotionRefused', refusal: promotion.refusal };
      const amount = promotion.applied?.total ?? chargeAmount(c);
      const result = await deps.acquirer.authorise({
        card: cardInput,
        amount,
        currency: c.currency,
        tokenize: c.tokenize,
        preAuth: c.preAuth,
      });
      if (result.outcome === 'ChallengeShopper') {
        const challengeId = await saveChallenge(tx, {
          targetKind: c.kind,
          targetReference: c.reference,
          answers: checked.answers,
          acquirerState: result.state,
          termsAcceptedAt,
          customFieldAnswers,
          itemQuantities: c.chosen,
          promotionCode: promotion.applied?.code ?? null,
          now,
        });
        return { kind: 'Challenge', challengeId, card: result.card, amount };
      }
      return record(tx, deps, c, result, checked.answers, { termsAcceptedAt, customFieldAnswers, lang: input.lang, from: input.from }, promotion.applied);
    },
    NO_RETRY,
  );
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
  return withTransaction(
    deps.db,
    async (tx) => {
      const now = deps.clock.now();
      const locked = await lockTarget(tx, target, now);
      if (!locked) return { kind: 'NotFound' as const };
      const challenge = await takeChallenge(tx, challengeId, target.kind, target.reference, now);
      if (!challenge) return { kind: 'ChallengeGone' as const };
      if (!locked.payable) return { kind: 'NotPayable' as const, status: locked.status };
      // The quantities chosen before the step, on the link as it is now; terms added while the shopper
      // was at the step were never shown: the page again, asking for them.
      const quantities = locked.choice !== null ? challenge.itemQuantities : null;
      const problems = problemsOf(locked, quantities);
      const terms = locked.termsUrl !== null && challenge.termsAcceptedAt === null;
      if (problems.length > 0 || terms) {
        return {
          kind: 'Changed' as const,
          problems: { ...NO_PROBLEMS, quantities: problems, terms },
          checkoutable: atQuantities(locked, problems.length === 0 ? quantities : null),
        };
      }
      const c = atQuantities(locked, quantities);
      // The code is decided on its locked row, now: another payment may have reached its cap meanwhile.
      const promotion = await lockCheckoutPromotion(tx, c, chargeAmount(c), challenge.promotionCode, now);
      if ('refusal' in promotion) return { kind: 'PromotionRefused' as const, refusal: promotion.refusal };
      const result = await deps.acquirer.completeChallenge(challenge.acquirerState, confirmed);
      return record(tx, deps, c, result, challenge.answers, { ...challenge, lang: given.lang, from: given.from }, promotion.applied);
    },
    NO_RETRY,
  );
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
  // Counted only when the payment succeeded, in its transaction, on the row lockCheckoutPromotion locked.
  if (paid.success && promotion) await redeemPromotion(tx, promotion, now);
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
