import { randomInt } from 'node:crypto';
import { prefixedId } from '../ids.js';
import type {
  Acquirer,
  AuthoriseRequest,
  AuthoriseResult,
  FinalAuthoriseResult,
  ModificationRequest,
  ModificationResult,
  TokenAuthoriseRequest,
} from './acquirer.js';
import { maskCardNumber, summarize, type CardSummary } from './card.js';

// The simulated acquirer (§The simulated acquirer): the card number decides the outcome. The page has already checked
// Luhn, expiry and CVC, so every card that reaches here is well-formed.

export const TEST_CARDS = {
  authorised: '4242424242424242',
  threeDSecure: '4000000000003220',
  refused: '4000000000000002',
  expired: '4000000000000069',
  threeDFails: '4000000000003063',
  /**
   * Beyond §The simulated acquirer's table (§Modifications and saved cards): authorised like 4242, but the acquirer refuses everything done with it
   * later (captures, refunds, reversals, token charges), so every failure webhook can be tried.
   */
  laterRefused: '4000000000005126',
  /** Authorised like 4242 and captured, refunded and reversed like it, but every adjustment of its authorisation is refused. */
  adjustRefused: '4000000000007106',
} as const;

/** The sandbox refuses to raise an authorisation above this many times the amount first authorised. */
export const MAX_ADJUSTMENT_FACTOR = 2;

const LATER_REFUSED_MASKED = maskCardNumber(TEST_CARDS.laterRefused);
const ADJUST_REFUSED_MASKED = maskCardNumber(TEST_CARDS.adjustRefused);
const THREE_D_SECURE_MASKED = maskCardNumber(TEST_CARDS.threeDSecure);

/** A card is valid through the last day of its expiry month (as the payment page judges it). */
function expiredAt(expiry: string, at: Date): boolean {
  const m = /^(\d{2})\/(\d{4})$/.exec(expiry);
  if (!m) return true;
  return Date.UTC(Number(m[2]), Number(m[1]), 1) <= at.getTime();
}

function authCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

function authorised(card: CardSummary, threeD: boolean, tokenize: boolean): AuthoriseResult {
  return { outcome: 'Authorised', card, authCode: authCode(), threeDAuthenticated: threeD, token: tokenize ? prefixedId('tok') : null };
}

/** The simulator's answer to an authorisation: the card number decides it. */
function authoriseOnce(request: AuthoriseRequest): AuthoriseResult {
  const card = summarize(request.card);
  switch (request.card.number) {
    case TEST_CARDS.authorised:
    case TEST_CARDS.laterRefused:
    case TEST_CARDS.adjustRefused:
      return authorised(card, false, request.tokenize);
    case TEST_CARDS.threeDSecure:
      return { outcome: 'ChallengeShopper', card, state: { kind: 'sim-3ds', tokenize: String(request.tokenize), ...cardState(card) } };
    case TEST_CARDS.expired:
      return { outcome: 'Refused', card, reason: 'Expired Card', threeDAuthenticated: false };
    case TEST_CARDS.threeDFails:
      // The issuer's frictionless check rejects the shopper: no challenge to show.
      return { outcome: 'Refused', card, reason: '3D Not Authenticated', threeDAuthenticated: false };
    default:
      return { outcome: 'Refused', card, reason: 'Refused', threeDAuthenticated: false };
  }
}

/** The simulator's answer to a charge of a saved card. */
function chargeTokenOnce(request: TokenAuthoriseRequest): AuthoriseResult {
  const { card } = request;
  if (card.masked === LATER_REFUSED_MASKED) return { outcome: 'Refused', card, reason: 'Refused', threeDAuthenticated: false };
  if (expiredAt(card.expiry, request.at)) return { outcome: 'Refused', card, reason: 'Expired Card', threeDAuthenticated: false };
  if (request.challengeAllowed && card.masked === THREE_D_SECURE_MASKED) {
    return { outcome: 'ChallengeShopper', card, state: { kind: 'sim-3ds', tokenize: 'false', ...cardState(card) } };
  }
  return authorised(card, false, false);
}

/** The answers to the latest authorisations asked with an idempotency key, by key: asked again, answered the same. */
const answered = new Map<string, AuthoriseResult>();
const ANSWERS_KEPT = 10_000;

function rememberAnswer(key: string | undefined, answer: AuthoriseResult): AuthoriseResult {
  if (key === undefined) return answer;
  answered.set(key, answer);
  if (answered.size > ANSWERS_KEPT) answered.delete(answered.keys().next().value as string);
  return answer;
}

export const simulatorAcquirer: Acquirer = {
  // A payment asked again with its idempotency key gets the first answer (the same authorisation code
  // and token), as a real acquirer answers a retried call.
  async authorise(request: AuthoriseRequest): Promise<AuthoriseResult> {
    const earlier = request.idempotencyKey === undefined ? undefined : answered.get(request.idempotencyKey);
    if (earlier) return earlier;
    return rememberAnswer(request.idempotencyKey, authoriseOnce(request));
  },

  async completeChallenge(state, confirmed) {
    const card = cardFromState(state);
    if (!confirmed) return { outcome: 'Refused', card, reason: '3D Not Authenticated', threeDAuthenticated: false };
    return authorised(card, true, state.tokenize === 'true') as FinalAuthoriseResult;
  },

  // A saved card was authenticated when it was saved; its merchant-initiated charges are frictionless
  // here. A shopper-present charge on the web of the 3-D Secure test card asks for the step again, as
  // issuers do for a returning shopper. The card can still have expired since.
  async authoriseToken(request: TokenAuthoriseRequest): Promise<AuthoriseResult> {
    const earlier = request.idempotencyKey === undefined ? undefined : answered.get(request.idempotencyKey);
    if (earlier) return earlier;
    return rememberAnswer(request.idempotencyKey, chargeTokenOnce(request));
  },

  async modify(request: ModificationRequest): Promise<ModificationResult> {
    if (request.card.masked === LATER_REFUSED_MASKED) return { outcome: 'Refused', reason: 'Refused' };
    if (request.kind === 'Adjust') {
      if (request.card.masked === ADJUST_REFUSED_MASKED) return { outcome: 'Refused', reason: 'Adjustment Refused' };
      if (request.amount > MAX_ADJUSTMENT_FACTOR * request.originalAmount) {
        return { outcome: 'Refused', reason: `Amount exceeds ${MAX_ADJUSTMENT_FACTOR} times the original authorisation` };
      }
    }
    return { outcome: 'Succeeded' };
  },
};

function cardState(card: CardSummary): Record<string, string> {
  return { masked: card.masked, last4: card.last4, expiry: card.expiry, paymentMethod: card.paymentMethod };
}

function cardFromState(state: Record<string, string>): CardSummary {
  return { masked: state.masked ?? '', last4: state.last4 ?? '', expiry: state.expiry ?? '', paymentMethod: state.paymentMethod ?? 'card' };
}

/**
 * The simulator answering after `latencyMs`, as a real acquirer does (each call waits that long
 * before its answer; 0: the simulator itself). Set by PAYLINKS_SANDBOX_ACQUIRER_LATENCY_MS.
 */
export function simulatorAt(latencyMs: number): Acquirer {
  if (latencyMs <= 0) return simulatorAcquirer;
  const later = <T>(answer: () => Promise<T>): Promise<T> => new Promise((resolve) => setTimeout(resolve, latencyMs)).then(answer);
  return {
    authorise: (request) => later(() => simulatorAcquirer.authorise(request)),
    completeChallenge: (state, confirmed) => later(() => simulatorAcquirer.completeChallenge(state, confirmed)),
    authoriseToken: (request) => later(() => simulatorAcquirer.authoriseToken(request)),
    modify: (request) => later(() => simulatorAcquirer.modify(request)),
  };
}
