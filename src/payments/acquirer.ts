import type { CardInput, CardSummary } from './card.js';

// The one small interface between the service and whoever moves the money (§The simulated acquirer). The shipped
// implementation is the simulator; a real acquirer adapter implements the same calls. The card
// data goes in, and only the summary comes back out.

export interface AuthoriseRequest {
  card: CardInput;
  /** Minor units; 0 for a card check that only saves the card. */
  amount: number;
  currency: string;
  /** Save the card for later payments and return a token. */
  tokenize: boolean;
  /** A pre-authorisation, whose amount may still be adjusted before capture. */
  preAuth: boolean;
  /**
   * The same payment asked again (a call retried after a timeout) carries the same key, and the
   * acquirer answers it as it answered the first: one authorisation, never two.
   */
  idempotencyKey?: string;
}

export type AuthoriseResult =
  | { outcome: 'Authorised'; card: CardSummary; authCode: string; threeDAuthenticated: boolean; token: string | null }
  | { outcome: 'Refused'; card: CardSummary; reason: string; threeDAuthenticated: boolean }
  /**
   * The issuer wants the shopper to confirm (3-D Secure). `state` is what the acquirer needs to finish
   * it: JSON, stored between the two requests, never containing the card number or CVC.
   */
  | { outcome: 'ChallengeShopper'; card: CardSummary; state: Record<string, string> };

export type FinalAuthoriseResult = Exclude<AuthoriseResult, { outcome: 'ChallengeShopper' }>;

/**
 * A charge of a saved card (§Modifications and saved cards). `shopperInteraction` follows the token's recurringProcessingModel:
 * CardOnFile is shopper-present (Ecommerce), Subscription and UnscheduledCardOnFile are
 * merchant-initiated (ContAuth).
 */
export interface TokenAuthoriseRequest {
  token: string;
  card: CardSummary;
  amount: number;
  currency: string;
  shopperInteraction: 'Ecommerce' | 'ContAuth';
  /**
   * The shopper is present in a browser and can be sent to a 3-D Secure step (CardOnFile on the web).
   * Only then may the answer be ChallengeShopper.
   */
  challengeAllowed: boolean;
  /** The service's (injected) clock: the card's expiry is judged against it. */
  at: Date;
  /** The same charge asked again carries the same key, and is answered as the first was: one authorisation. */
  idempotencyKey?: string;
}

/**
 * A capture, refund, cancellation (release of an uncaptured authorisation) or adjustment of an earlier
 * payment (§Modifications and saved cards). `reference` is the modification's own payfacReference: an adapter sends it as the
 * acquirer's idempotency key, so a modification retried after a crash is not applied twice.
 */
interface ModificationBase {
  reference: string;
  originalReference: string;
  card: CardSummary;
  /** Minor units; for an adjustment, the new authorised amount. */
  amount: number;
  currency: string;
}

export type ModificationRequest =
  | (ModificationBase & { kind: 'Capture' | 'Refund' | 'Cancel' })
  /** A new authorised amount, higher or lower; `originalAmount` is what the shopper first authorised. */
  | (ModificationBase & { kind: 'Adjust'; originalAmount: number });

export type ModificationResult = { outcome: 'Succeeded' } | { outcome: 'Refused'; reason: string };

export interface Acquirer {
  authorise(request: AuthoriseRequest): Promise<AuthoriseResult>;
  /** Finishes a 3-D Secure step: the shopper confirmed it, or cancelled it. */
  completeChallenge(state: Record<string, string>, confirmed: boolean): Promise<FinalAuthoriseResult>;
  authoriseToken(request: TokenAuthoriseRequest): Promise<AuthoriseResult>;
  modify(request: ModificationRequest): Promise<ModificationResult>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Who authorises cards and completes modifications: the simulator, or a real acquirer's adapter (src/http/app.ts, Provided). */
    readonly acquirer: Acquirer;
  }
}
