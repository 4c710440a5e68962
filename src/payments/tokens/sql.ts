import type { Queryable } from '../../db/database.js';

// Saved cards charged and disabled through §Modifications and saved cards. $n parameters only.

export interface TokenRow {
  token: string;
  merchantId: string;
  recurringProcessingModel: string;
  cardMasked: string;
  cardSummary: string;
  cardExpiry: string;
  paymentMethod: string;
  disabledAt: Date | null;
  /** The payment that saved the card, for the TokenDisabled event. */
  payfacReference: string;
  /** The checkout reference of the payment that saved the card. */
  checkoutReference: string;
  merchantReference: string | null;
  currency: string;
}

/** The merchant's token, locked (a charge and a disable of one token do not interleave). Another merchant's is not found. */
const TOKEN_SELECT = `SELECT t.token, t.merchant_id AS "merchantId", t.recurring_processing_model AS "recurringProcessingModel", t.card_masked AS "cardMasked",
            t.card_summary AS "cardSummary", t.card_expiry AS "cardExpiry", t.payment_method AS "paymentMethod", t.disabled_at AS "disabledAt",
            t.payfac_reference AS "payfacReference", p.event_checkout_reference AS "checkoutReference", p.merchant_reference AS "merchantReference",
            p.currency
       FROM payment_tokens t JOIN payments p ON p.payfac_reference = t.payfac_reference
      WHERE t.token = $1 AND t.merchant_id = $2`;

/** A token of the merchant as it is now, read without a lock (a charge decides on it before asking the acquirer). */
export async function findToken(db: Queryable, token: string, merchantId: string): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>({ name: 'tokens.findToken', text: TOKEN_SELECT, values: [token, merchantId] });
  return rows[0];
}

export async function lockToken(db: Queryable, token: string, merchantId: string): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>({
    name: 'tokens.lockToken',
    text: `${TOKEN_SELECT}
      FOR UPDATE OF t`,
    values: [token, merchantId],
  });
  return rows[0];
}

export async function disableToken(db: Queryable, token: string, at: Date): Promise<void> {
  await db.query('UPDATE payment_tokens SET disabled_at = $2 WHERE token = $1 AND disabled_at IS NULL', [token, at]);
}

interface NewTokenChallenge {
  checkoutReference: string;
  payfacReference: string;
  merchantId: string;
  terminalIdentifier: string;
  chargedToken: string;
  recurringProcessingModel: string;
  channel: string;
  merchantReference: string;
  amount: number;
  currency: string;
  returnUrl: string;
  acquirerState: Record<string, string>;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertTokenChallenge(db: Queryable, c: NewTokenChallenge): Promise<void> {
  await db.query(
    `INSERT INTO token_charge_challenges (checkout_reference, payfac_reference, merchant_id, terminal_identifier, charged_token,
       recurring_processing_model, channel, merchant_reference, amount, currency, return_url, acquirer_state, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      c.checkoutReference,
      c.payfacReference,
      c.merchantId,
      c.terminalIdentifier,
      c.chargedToken,
      c.recurringProcessingModel,
      c.channel,
      c.merchantReference,
      c.amount,
      c.currency,
      c.returnUrl,
      JSON.stringify(c.acquirerState),
      c.createdAt,
      c.expiresAt,
    ],
  );
}

/** A challenge as its page reads it: as inserted, whether it was completed, and the saved card's summary. */
export interface TokenChallengeRow extends Omit<NewTokenChallenge, 'createdAt'> {
  completedAt: Date | null;
  cardSummary: string;
}

const CHALLENGE_COLUMNS = `c.checkout_reference AS "checkoutReference", c.payfac_reference AS "payfacReference", c.merchant_id AS "merchantId",
  c.terminal_identifier AS "terminalIdentifier", c.charged_token AS "chargedToken", c.recurring_processing_model AS "recurringProcessingModel",
  c.channel, c.merchant_reference AS "merchantReference", c.amount, c.currency, c.return_url AS "returnUrl", c.acquirer_state AS "acquirerState",
  c.expires_at AS "expiresAt", c.completed_at AS "completedAt", t.card_summary AS "cardSummary"`;

/** The charge waiting for its step; with `forUpdate` locked, so a confirm and a cancel of one step do not interleave. */
export async function findTokenChallenge(db: Queryable, checkoutReference: string, opts: { forUpdate?: boolean } = {}): Promise<TokenChallengeRow | undefined> {
  const { rows } = await db.query<TokenChallengeRow>(
    `SELECT ${CHALLENGE_COLUMNS}
       FROM token_charge_challenges c JOIN payment_tokens t ON t.token = c.charged_token
      WHERE c.checkout_reference = $1
      ${opts.forUpdate ? 'FOR UPDATE OF c' : ''}`,
    [checkoutReference],
  );
  return rows[0];
}

export async function completeTokenChallenge(db: Queryable, checkoutReference: string, at: Date): Promise<void> {
  await db.query('UPDATE token_charge_challenges SET completed_at = $2 WHERE checkout_reference = $1', [checkoutReference, at]);
}
