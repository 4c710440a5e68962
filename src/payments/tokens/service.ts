import type { Actor } from '../../actor.js';
import { recordAudit } from '../../audit/service.js';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { PoolClient } from 'pg';
import { createHash } from 'node:crypto';
import { withTransaction } from '../../db/database.js';
import { ApiError, notFound } from '../../errors.js';
import { checkInput, schemaCheck } from '../../validation.js';
import { isTerminalOf, merchantNameOf } from '../../accounts/service.js';
import { newPayfacReference, newReference } from '../../ids.js';
import { idempotentCreate } from '../../idempotency/service.js';
import { fieldErrors, isRecord, mergeErrors, returnUrlError } from '../../paymentLinks/rules.js';
import { enqueueEvent, type EventDeps } from '../../webhooks/events.js';
import { paymentOfEventCheckout, recordAuthorisation } from '../service.js';
import type { Sealer } from '../../sealing.js';
import type { Acquirer, FinalAuthoriseResult } from '../acquirer.js';
import type { CardSummary } from '../card.js';
import { withCheckoutReference } from '../../urls.js';
import { DisableTokenBody, TokenPaymentBody, type TokenPaymentRequest } from '../schemas.js';
import * as sql from './sql.js';

// Token payments and disabling a token (§Modifications and saved cards).
//
// Who is present is decided by tokenDetails.recurringProcessingModel, not by `channel` (clients in the
// field send channel "Web" for subscription renewals too, so it only says where the shop runs and is
// recorded as given):
// - CardOnFile: the shopper is present and pays with a card they saved. Any saved card may be charged
//   so (the shopper came back), whatever model it was saved for.
// - Subscription, UnscheduledCardOnFile: merchant-initiated, without the shopper. Only a card saved for
//   that same model may be charged so: the shopper agreed to that model when saving it. Any other
//   combination is refused before the acquirer is asked: 400, field tokenDetails.recurringProcessingModel,
//   code MODEL_MISMATCH (no payment, no webhook).
// A disabled token is refused with 409 INVALID_STATE; another merchant's token is 404 (§Authentication).

interface TokenDeps {
  db: Database;
  clock: Clock;
  acquirer: Acquirer;
  sealer: Sealer;
  /** The base of the 3-D Secure page a shopper is sent to. */
  publicBaseUrl: string;
}

type TokenPaymentOutcome = {
  resultCode: 'Authorised' | 'Refused' | 'RedirectShopper';
  payfacReference: string;
  refusalReason?: string;
  redirect?: { url: string };
};

/** How long a shopper has for the 3-D Secure step of a charge before it is gone. */
const TOKEN_CHALLENGE_TTL_MS = 15 * 60 * 1000;

/** Where the shopper takes the 3-D Secure step of a charge: `{publicBaseUrl}/charge/{checkoutReference}`. */
export const CHARGE_PAGE_PREFIX = '/charge';

/**
 * Every rule that needs no token at once (§Errors): the schema's errors, returnUrl, the terminal's owner
 * (§Authentication). Returns the input, normalised (§Clients in the field) and known to be valid.
 */
async function checkTokenPayment(db: Database, merchantId: string, input: unknown): Promise<TokenPaymentRequest> {
  const { value: body, errors: schemaErrors } = schemaCheck(TokenPaymentBody, input, { nullMeansAbsent: true });
  const errors = mergeErrors(schemaErrors);
  if (isRecord(body)) {
    const urlError = returnUrlError(body.returnUrl);
    if (urlError && !errors.some((e) => e.field === 'returnUrl')) errors.push(urlError);
    if (typeof body.terminalIdentifier === 'string' && /^[A-Za-z0-9]{12}$/.test(body.terminalIdentifier)) {
      if (!(await isTerminalOf(db, body.terminalIdentifier, merchantId))) {
        errors.push({ field: 'terminalIdentifier', code: 'TERMINAL_NOT_FOUND', message: "is not a terminal of the API key's merchant" });
      }
    }
  }
  if (errors.length > 0) throw fieldErrors(errors);
  return body as TokenPaymentRequest;
}

function modelAllows(saved: string, asked: string): boolean {
  return asked === 'CardOnFile' || asked === saved;
}

/** The operation name under which token payments' Idempotency-Keys are kept (§Idempotent creates). */
export const TOKEN_PAYMENT_OPERATION = 'payment';

/** What a charge is decided on: the token as it is, and how the card is charged. */
interface Decided {
  token: string;
  card: CardSummary;
  model: string;
  shopperOnWeb: boolean;
}

/** The token, checked for this charge: the merchant's, enabled, saved for this way of charging it. */
function decide(token: sql.TokenRow | undefined, body: TokenPaymentRequest): Decided {
  if (!token) throw notFound('token');
  if (token.disabledAt !== null) throw new ApiError('INVALID_STATE', 'the token is disabled');
  const model = body.tokenDetails.recurringProcessingModel;
  if (!modelAllows(token.recurringProcessingModel, model)) {
    throw fieldErrors([
      {
        field: 'tokenDetails.recurringProcessingModel',
        code: 'MODEL_MISMATCH',
        message: `the card was saved for ${token.recurringProcessingModel}: charge it as ${token.recurringProcessingModel} or, with the shopper present, as CardOnFile`,
      },
    ]);
  }
  const card = { masked: token.cardMasked, last4: token.cardSummary, expiry: token.cardExpiry, paymentMethod: token.paymentMethod };
  // Only a shopper at a web shop can take a 3-D Secure step: CardOnFile (the shopper is present)
  // on channel Web. A merchant-initiated charge is never asked for one.
  return { token: token.token, card, model, shopperOnWeb: model === 'CardOnFile' && body.channel.toLowerCase() === 'web' };
}

/**
 * Charge a saved card, for every caller: the input is checked as a whole here (checkTokenPayment)
 * before the token is looked at. The acquirer is asked with no transaction open (a real one takes
 * 0.2–2 s): the token is checked first, then the acquirer answers, then the charge is recorded with
 * its Idempotency-Key in one transaction. The call carries an idempotency key of its own, made from
 * the merchant's Idempotency-Key and the request (or, without one, the charge's reference): two
 * requests with one key that race each other are one authorisation at the acquirer, and one answer.
 */
export async function chargeToken(
  deps: TokenDeps & { actor: Actor },
  merchantId: string,
  input: unknown,
  idempotencyKey: string | undefined,
): Promise<TokenPaymentOutcome> {
  const body = await checkTokenPayment(deps.db, merchantId, input);
  const checked = decide(await sql.findToken(deps.db.pool, body.tokenDetails.tokenValue, merchantId), body);
  const payfacReference = newPayfacReference();
  const now = deps.clock.now();
  const result = await deps.acquirer.authoriseToken({
    token: checked.token,
    card: checked.card,
    amount: body.amount,
    currency: body.currency,
    shopperInteraction: checked.model === 'CardOnFile' ? 'Ecommerce' : 'ContAuth',
    challengeAllowed: checked.shopperOnWeb,
    at: now,
    idempotencyKey: idempotencyKey === undefined ? payfacReference : acquirerKey(merchantId, idempotencyKey, body),
  });
  const { body: outcome } = await idempotentCreate(deps, { ownerId: merchantId, key: idempotencyKey, operation: TOKEN_PAYMENT_OPERATION, body }, async (tx) => {
    // The token's row in the charge's transaction, as a disable takes it: a charge the acquirer
    // authorised is recorded even if the token was disabled while it answered.
    await sql.lockToken(tx, checked.token, merchantId);
    // A charge of a saved card is a checkout of its own: its events carry this reference.
    const checkoutReference = newReference('cs');
    const charge: Charge = {
      merchantId,
      terminalIdentifier: body.terminalIdentifier,
      token: checked.token,
      model: checked.model,
      channel: body.channel,
      merchantReference: body.reference,
      amount: body.amount,
      currency: body.currency,
      payfacReference,
      checkoutReference,
      card: checked.card,
    };
    await recordAudit(tx, deps, {
      merchantId,
      action: 'payment.charge',
      target: payfacReference,
      details: { amount: body.amount, currency: body.currency, reference: body.reference },
    });
    if (result.outcome === 'ChallengeShopper') {
      if (!checked.shopperOnWeb) throw new Error('the acquirer asked for a 3-D Secure step on a charge without a shopper');
      await sql.insertTokenChallenge(tx, {
        checkoutReference,
        payfacReference,
        merchantId,
        terminalIdentifier: body.terminalIdentifier,
        chargedToken: checked.token,
        recurringProcessingModel: checked.model,
        channel: body.channel,
        merchantReference: body.reference,
        amount: body.amount,
        currency: body.currency,
        returnUrl: body.returnUrl,
        acquirerState: result.state,
        createdAt: now,
        expiresAt: new Date(now.getTime() + TOKEN_CHALLENGE_TTL_MS),
      });
      return { resultCode: 'RedirectShopper' as const, payfacReference, redirect: { url: `${deps.publicBaseUrl}${CHARGE_PAGE_PREFIX}/${checkoutReference}` } };
    }
    return recordCharge(tx, deps, charge, result);
  });
  return outcome;
}

/** The acquirer's idempotency key of a charge asked with an Idempotency-Key: the same for the same merchant, key and request. */
function acquirerKey(merchantId: string, idempotencyKey: string, body: TokenPaymentRequest): string {
  return `charge:${createHash('sha256')
    .update(JSON.stringify([merchantId, idempotencyKey, body]))
    .digest('base64url')}`;
}

/** One charge of a saved card, as recorded when its outcome is known. */
interface Charge {
  merchantId: string;
  terminalIdentifier: string;
  token: string;
  model: string;
  channel: string;
  merchantReference: string;
  amount: number;
  currency: string;
  payfacReference: string;
  checkoutReference: string;
  card: CardSummary;
}

/** Records the charge's payment and its events: Authorization, and Capture when authorised (captured at once). */
async function recordCharge(tx: PoolClient, deps: EventDeps, c: Charge, result: FinalAuthoriseResult): Promise<TokenPaymentOutcome> {
  const success = result.outcome === 'Authorised';
  await recordAuthorisation(
    tx,
    deps,
    {
      payfacReference: c.payfacReference,
      checkoutReference: null,
      eventCheckoutReference: c.checkoutReference,
      paymentLinkReference: null,
      charge: { token: c.token, recurringProcessingModel: c.model, channel: c.channel },
      merchantId: c.merchantId,
      terminalIdentifier: c.terminalIdentifier,
      merchantReference: c.merchantReference,
      amount: c.amount,
      currency: c.currency,
      isPreAuth: false,
      token: null,
      captureState: success ? 'Captured' : 'None',
      capturedAmount: success ? c.amount : 0,
      captureDueAt: null,
      createdAt: deps.clock.now(),
    },
    c.card,
    result,
  );
  if (result.outcome !== 'Authorised') return { resultCode: 'Refused' as const, payfacReference: c.payfacReference, refusalReason: result.reason };
  return { resultCode: 'Authorised' as const, payfacReference: c.payfacReference };
}

/**
 * Where the checkout of a link payment or of a saved-card charge stands, read as a session's status
 * is: Completed with its payment when it was paid; Expired when its payment was refused (that
 * checkout will not be paid: a shopper's next try on a link is a checkout of its own) or when a
 * charge's 3-D Secure step ran out of time; New while that step waits for the shopper. Undefined
 * for a reference that is neither (or another merchant's).
 */
export async function checkoutOutcome(
  deps: { db: Database; clock: Clock },
  merchantId: string,
  checkoutReference: string,
): Promise<{ status: 'New' | 'Completed' | 'Expired'; payfacReference: string | null } | undefined> {
  const payment = await paymentOfEventCheckout(deps, merchantId, checkoutReference);
  if (payment) return payment.success ? { status: 'Completed', payfacReference: payment.payfacReference } : { status: 'Expired', payfacReference: null };
  const challenge = await sql.findTokenChallenge(deps.db.pool, checkoutReference);
  if (!challenge || challenge.merchantId !== merchantId) return undefined;
  return { status: viewOf(challenge, deps.clock.now()).open ? 'New' : 'Expired', payfacReference: null };
}

/** What the page of a charge's 3-D Secure step shows. */
export interface TokenChallengeView {
  checkoutReference: string;
  merchantName: string;
  amount: number;
  currency: string;
  cardSummary: string;
  /** Still waiting for the shopper; false once taken or past its time. */
  open: boolean;
  /** The shopper confirmed or cancelled it, and the charge was recorded. */
  completed: boolean;
  payfacReference: string;
  returnUrl: string;
}

export async function findTokenChallenge(deps: { db: Database; clock: Clock }, checkoutReference: string): Promise<TokenChallengeView | undefined> {
  const row = await sql.findTokenChallenge(deps.db.pool, checkoutReference);
  if (!row) return undefined;
  // The merchant's name is asked of accounts, which owns merchants (docs/architecture.md): one more
  // query on a page a shopper sees once per charge, which no benchmark path goes through.
  const merchantName = (await merchantNameOf(deps.db, row.merchantId)) ?? '';
  return { ...viewOf(row, deps.clock.now()), merchantName };
}

function viewOf(row: sql.TokenChallengeRow, now: Date): Omit<TokenChallengeView, 'merchantName'> {
  return {
    checkoutReference: row.checkoutReference,
    amount: row.amount,
    currency: row.currency,
    cardSummary: row.cardSummary,
    open: row.completedAt === null && row.expiresAt.getTime() > now.getTime(),
    completed: row.completedAt !== null,
    payfacReference: row.payfacReference,
    returnUrl: withCheckoutReference(row.returnUrl, row.checkoutReference),
  };
}

type TokenChallengeOutcome = { kind: 'Done'; result: TokenPaymentOutcome; returnUrl: string } | { kind: 'Gone'; returnUrl: string } | { kind: 'NotFound' };

/**
 * The shopper confirmed or cancelled the 3-D Secure step of a charge: the acquirer finishes it, and
 * the payment and its events are recorded in the same transaction. Each step is finished once; a
 * step past its time is gone, and no payment is made.
 */
export async function completeTokenChallenge(deps: TokenDeps, checkoutReference: string, confirmed: boolean): Promise<TokenChallengeOutcome> {
  return withTransaction(
    deps.db,
    async (tx) => {
      const row = await sql.findTokenChallenge(tx, checkoutReference, { forUpdate: true });
      if (!row) return { kind: 'NotFound' as const };
      const view = viewOf(row, deps.clock.now());
      if (!view.open) return { kind: 'Gone' as const, returnUrl: view.returnUrl };
      const result = await deps.acquirer.completeChallenge(row.acquirerState, confirmed);
      await sql.completeTokenChallenge(tx, checkoutReference, deps.clock.now());
      const charge: Charge = {
        merchantId: row.merchantId,
        terminalIdentifier: row.terminalIdentifier,
        token: row.chargedToken,
        model: row.recurringProcessingModel,
        channel: row.channel,
        merchantReference: row.merchantReference,
        amount: row.amount,
        currency: row.currency,
        payfacReference: row.payfacReference,
        checkoutReference,
        card: result.card,
      };
      return { kind: 'Done' as const, result: await recordCharge(tx, deps, charge, result), returnUrl: view.returnUrl };
    },
    { retries: 0 },
  );
}

/**
 * Disables a token (idempotent, like §Disabling a link: disabling it again succeeds and raises no second
 * event). Its input is `{ tokenValue }`, checked here.
 */
export async function disableToken(deps: EventDeps & { db: Database; actor: Actor }, merchantId: string, input: unknown): Promise<{ success: true }> {
  const { tokenValue } = checkInput(DisableTokenBody, input, { nullMeansAbsent: true });
  await withTransaction(deps.db, async (tx) => {
    const token = await sql.lockToken(tx, tokenValue, merchantId);
    if (!token) throw notFound('token');
    if (token.disabledAt !== null) return;
    await sql.disableToken(tx, token.token, deps.clock.now());
    // The token names a saved card; only its last characters are kept.
    await recordAudit(tx, deps, { merchantId, action: 'token.disable', target: `…${token.token.slice(-4)}` });
    await enqueueEvent(tx, deps, {
      merchantId,
      eventType: 'TokenDisabled',
      // The event belongs to the payment that saved the card.
      checkoutReference: token.checkoutReference,
      payfacReference: token.payfacReference,
      merchantReference: token.merchantReference,
      amount: 0,
      currency: token.currency,
      reason: null,
      success: true,
      additionalData: { token: token.token, cardNumber: token.cardMasked, cardSummary: token.cardSummary, paymentMethod: token.paymentMethod },
    });
  });
  return { success: true };
}
