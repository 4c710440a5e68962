import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { withTransaction } from '../../db/database.js';
import { ApiError, notFound, type FieldError } from '../../errors.js';
import { findTerminal } from '../../accounts/sql.js';
import { newPayfacReference, newReference } from '../../ids.js';
import { idempotentCreate } from '../../idempotency/service.js';
import { fieldErrors, isRecord, mergeErrors, returnUrlError } from '../../paymentLinks/rules.js';
import { enqueueEvent, type PaymentEvent } from '../../webhooks/events.js';
import type { Acquirer } from '../acquirer.js';
import type { TokenPaymentRequest } from '../schemas.js';
import * as sql from './sql.js';

// Token payments and disabling a token (D19).
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
// A disabled token is refused with 409 INVALID_STATE; another merchant's token is 404 (D1).

export interface TokenDeps {
  db: Database;
  clock: Clock;
  acquirer: Acquirer;
}

export type TokenPaymentOutcome = {
  resultCode: 'Authorised' | 'Refused';
  payfacReference: string;
  refusalReason?: string;
};

/** Every rule that needs no token at once (D2): the schema's errors, returnUrl, the terminal's owner (D1). */
export async function validateTokenPayment(db: Database, merchantId: string, body: unknown, schemaErrors: readonly FieldError[]): Promise<TokenPaymentRequest> {
  const errors = mergeErrors(schemaErrors);
  if (isRecord(body)) {
    const urlError = returnUrlError(body.returnUrl);
    if (urlError && !errors.some((e) => e.field === 'returnUrl')) errors.push(urlError);
    if (typeof body.terminalIdentifier === 'string' && /^[A-Za-z0-9]{12}$/.test(body.terminalIdentifier)) {
      const terminal = await findTerminal(db.pool, body.terminalIdentifier);
      if (!terminal || terminal.merchant_id !== merchantId) {
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

// The acquirer is asked inside the transaction that holds the token row, as a link payment is
// (src/payments/service.ts): not retried, since a second run would authorise twice.
/** The operation name under which token payments' Idempotency-Keys are kept (D16). */
export const TOKEN_PAYMENT_OPERATION = 'payment';

export async function chargeToken(deps: TokenDeps, merchantId: string, body: TokenPaymentRequest, idempotencyKey: string | undefined): Promise<TokenPaymentOutcome> {
  const { body: outcome } = await idempotentCreate(deps.db, deps.clock, { ownerId: merchantId, key: idempotencyKey, operation: TOKEN_PAYMENT_OPERATION, body }, async (tx) => {
    const now = deps.clock.now();
    const token = await sql.lockToken(tx, body.tokenDetails.tokenValue, merchantId);
    if (!token) throw notFound('token');
    if (token.disabled_at !== null) throw new ApiError('INVALID_STATE', 'the token is disabled');
    const model = body.tokenDetails.recurringProcessingModel;
    if (!modelAllows(token.recurring_processing_model, model)) {
      throw fieldErrors([
        {
          field: 'tokenDetails.recurringProcessingModel',
          code: 'MODEL_MISMATCH',
          message: `the card was saved for ${token.recurring_processing_model}: charge it as ${token.recurring_processing_model} or, with the shopper present, as CardOnFile`,
        },
      ]);
    }
    const card = { masked: token.card_masked, last4: token.card_summary, expiry: token.card_expiry, paymentMethod: token.payment_method };
    const result = await deps.acquirer.authoriseToken({
      token: token.token,
      card,
      amount: body.amount,
      currency: body.currency,
      shopperInteraction: model === 'CardOnFile' ? 'Ecommerce' : 'ContAuth',
      at: now,
    });
    const success = result.outcome === 'Authorised';
    const reason = result.outcome === 'Refused' ? result.reason : null;
    const payfacReference = newPayfacReference();
    // A charge of a saved card is a checkout of its own: its events carry this reference.
    const checkoutReference = newReference('cs');
    await sql.insertTokenPayment(tx, {
      payfacReference,
      checkoutReference,
      merchantId,
      terminalIdentifier: body.terminalIdentifier,
      chargedToken: token.token,
      recurringProcessingModel: model,
      channel: body.channel,
      merchantReference: body.reference,
      amount: body.amount,
      currency: body.currency,
      success,
      reason,
      cardMasked: card.masked,
      cardSummary: card.last4,
      cardExpiry: card.expiry,
      paymentMethod: card.paymentMethod,
      threeDAuthenticated: result.threeDAuthenticated,
      authCode: result.outcome === 'Authorised' ? result.authCode : null,
      createdAt: now,
    });
    const base: Omit<PaymentEvent, 'eventType' | 'reason' | 'success' | 'additionalData'> = {
      merchantId,
      checkoutReference,
      payfacReference,
      merchantReference: body.reference,
      amount: body.amount,
      currency: body.currency,
    };
    const cardData = { cardNumber: card.masked, cardSummary: card.last4, paymentMethod: card.paymentMethod };
    await enqueueEvent(tx, deps.clock, {
      ...base,
      eventType: 'Authorization',
      success,
      reason,
      additionalData: {
        ...cardData,
        threeDAuthenticated: String(result.threeDAuthenticated),
        ...(result.outcome === 'Authorised' ? { authCode: result.authCode } : {}),
      },
    });
    if (result.outcome !== 'Authorised') return { resultCode: 'Refused' as const, payfacReference, refusalReason: result.reason };
    // D12: captured at once, as every payment without manual or delayed capture.
    await enqueueEvent(tx, deps.clock, { ...base, eventType: 'Capture', success: true, reason: null, additionalData: cardData });
    return { resultCode: 'Authorised' as const, payfacReference };
  });
  return outcome;
}

/** Disables a token (idempotent, like D8: disabling it again succeeds and raises no second event). */
export async function disableToken(deps: { db: Database; clock: Clock }, merchantId: string, tokenValue: string): Promise<{ success: true }> {
  await withTransaction(deps.db, async (tx) => {
    const token = await sql.lockToken(tx, tokenValue, merchantId);
    if (!token) throw notFound('token');
    if (token.disabled_at !== null) return;
    await sql.disableToken(tx, token.token, deps.clock.now());
    await enqueueEvent(tx, deps.clock, {
      merchantId,
      eventType: 'TokenDisabled',
      // The event belongs to the payment that saved the card.
      checkoutReference: token.checkout_reference,
      payfacReference: token.payfac_reference,
      merchantReference: token.merchant_reference,
      amount: 0,
      currency: token.currency,
      reason: null,
      success: true,
      additionalData: { token: token.token, cardNumber: token.card_masked, cardSummary: token.card_summary, paymentMethod: token.payment_method },
    });
  });
  return { success: true };
}
