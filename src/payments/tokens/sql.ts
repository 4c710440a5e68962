import type { Queryable } from '../../db/database.js';

// Saved cards charged and disabled through D19. $n parameters only.

export interface TokenRow {
  token: string;
  merchant_id: string;
  recurring_processing_model: string;
  card_masked: string;
  card_summary: string;
  card_expiry: string;
  payment_method: string;
  disabled_at: Date | null;
  /** The payment that saved the card, for the TokenDisabled event. */
  payfac_reference: string;
  /** The checkout reference of the payment that saved the card. */
  checkout_reference: string;
  merchant_reference: string | null;
  currency: string;
}

/** The merchant's token, locked (a charge and a disable of one token do not interleave). Another merchant's is not found. */
export async function lockToken(db: Queryable, token: string, merchantId: string): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>(
    `SELECT t.token, t.merchant_id, t.recurring_processing_model, t.card_masked, t.card_summary, t.card_expiry, t.payment_method,
            t.disabled_at, t.payfac_reference, p.event_checkout_reference AS checkout_reference, p.merchant_reference, p.currency
       FROM payment_tokens t JOIN payments p ON p.payfac_reference = t.payfac_reference
      WHERE t.token = $1 AND t.merchant_id = $2
      FOR UPDATE OF t`,
    [token, merchantId],
  );
  return rows[0];
}

export async function disableToken(db: Queryable, token: string, at: Date): Promise<void> {
  await db.query('UPDATE payment_tokens SET disabled_at = $2 WHERE token = $1 AND disabled_at IS NULL', [token, at]);
}

export interface NewTokenPayment {
  payfacReference: string;
  merchantId: string;
  terminalIdentifier: string;
  /** The checkout reference of this charge, which its events carry. */
  checkoutReference: string;
  chargedToken: string;
  recurringProcessingModel: string;
  channel: string;
  merchantReference: string;
  amount: number;
  currency: string;
  success: boolean;
  reason: string | null;
  cardMasked: string;
  cardSummary: string;
  cardExpiry: string;
  paymentMethod: string;
  threeDAuthenticated: boolean;
  authCode: string | null;
  createdAt: Date;
}

/** A token payment is captured at once when authorised (D12's usual rule), else it captures nothing. */
export async function insertTokenPayment(db: Queryable, p: NewTokenPayment): Promise<void> {
  await db.query(
    `INSERT INTO payments (payfac_reference, merchant_id, terminal_identifier, charged_token, recurring_processing_model, channel,
       merchant_reference, amount, currency, success, reason, card_masked, card_summary, card_expiry, payment_method,
       three_d_authenticated, auth_code, is_pre_auth, token, capture_state, captured_amount, capture_due_at, created_at,
       event_checkout_reference)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, false, NULL,
             CASE WHEN $10 THEN 'Captured' ELSE 'None' END, CASE WHEN $10 THEN $8::bigint ELSE 0 END, NULL, $18, $19)`,
    [
      p.payfacReference, p.merchantId, p.terminalIdentifier, p.chargedToken, p.recurringProcessingModel, p.channel,
      p.merchantReference, p.amount, p.currency, p.success, p.reason, p.cardMasked, p.cardSummary, p.cardExpiry, p.paymentMethod,
      p.threeDAuthenticated, p.authCode, p.createdAt, p.checkoutReference,
    ],
  );
}
