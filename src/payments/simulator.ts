import { randomInt } from 'node:crypto';
import { prefixedId } from '../ids.js';
import type { Acquirer, AuthoriseRequest, AuthoriseResult } from './acquirer.js';
import { summarize, type CardSummary } from './card.js';

// The simulated acquirer (D11): the card number decides the outcome. The page has already checked
// Luhn, expiry and CVC, so every card that reaches here is well-formed.

export const TEST_CARDS = {
  authorised: '4242424242424242',
  threeDSecure: '4000000000003220',
  refused: '4000000000000002',
  expired: '4000000000000069',
  threeDFails: '4000000000003063',
} as const;

function authCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

function authorised(card: CardSummary, threeD: boolean, tokenize: boolean): AuthoriseResult {
  return { outcome: 'Authorised', card, authCode: authCode(), threeDAuthenticated: threeD, token: tokenize ? prefixedId('tok') : null };
}

export const simulatorAcquirer: Acquirer = {
  async authorise(request: AuthoriseRequest): Promise<AuthoriseResult> {
    const card = summarize(request.card);
    switch (request.card.number) {
      case TEST_CARDS.authorised:
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
  },

  async completeChallenge(state, confirmed) {
    const card = cardFromState(state);
    if (!confirmed) return { outcome: 'Refused', card, reason: '3D Not Authenticated', threeDAuthenticated: false };
    return authorised(card, true, state.tokenize === 'true') as Exclude<AuthoriseResult, { outcome: 'ChallengeShopper' }>;
  },
};

function cardState(card: CardSummary): Record<string, string> {
  return { masked: card.masked, last4: card.last4, expiry: card.expiry, paymentMethod: card.paymentMethod };
}

function cardFromState(state: Record<string, string>): CardSummary {
  return { masked: state.masked ?? '', last4: state.last4 ?? '', expiry: state.expiry ?? '', paymentMethod: state.paymentMethod ?? 'card' };
}
