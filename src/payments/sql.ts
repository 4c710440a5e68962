import type { Queryable } from '../db/database.js';

// Payments, saved cards and the 3-D Secure steps of the shopper's pages. $n parameters only.

export interface NewPayment {
  payfacReference: string;
  merchantId: string;
  terminalIdentifier: string;
  checkoutReference: string | null;
  /** The checkout reference every event of this payment carries: the session's, or one of its own. */
  eventCheckoutReference: string;
  paymentLinkReference: string | null;
  merchantReference: string | null;
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
  isPreAuth: boolean;
  token: string | null;
  captureState: 'Captured' | 'Scheduled' | 'Manual' | 'None';
  capturedAmount: number;
  captureDueAt: Date | null;
  createdAt: Date;
}

export async function insertPayment(db: Queryable, p: NewPayment): Promise<void> {
  await db.query(
    `INSERT INTO payments (payfac_reference, merchant_id, terminal_identifier, checkout_reference, payment_link_reference,
       merchant_reference, amount, currency, success, reason, card_masked, card_summary, card_expiry, payment_method,
       three_d_authenticated, auth_code, is_pre_auth, token, capture_state, captured_amount, capture_due_at, created_at,
       event_checkout_reference)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)`,
    [
      p.payfacReference, p.merchantId, p.terminalIdentifier, p.checkoutReference, p.paymentLinkReference,
      p.merchantReference, p.amount, p.currency, p.success, p.reason, p.cardMasked, p.cardSummary, p.cardExpiry, p.paymentMethod,
      p.threeDAuthenticated, p.authCode, p.isPreAuth, p.token, p.captureState, p.capturedAmount, p.captureDueAt, p.createdAt,
      p.eventCheckoutReference,
    ],
  );
}

export async function findPayment(
  db: Queryable,
  payfacReference: string,
): Promise<{ amount: number; currency: string; card_summary: string; payment_method: string; success: boolean; token: string | null } | undefined> {
  const { rows } = await db.query<{ amount: number; currency: string; card_summary: string; payment_method: string; success: boolean; token: string | null }>(
    'SELECT amount, currency, card_summary, payment_method, success, token FROM payments WHERE payfac_reference = $1',
    [payfacReference],
  );
  return rows[0];
}

export async function insertToken(
  db: Queryable,
  t: {
    token: string;
    merchantId: string;
    payfacReference: string;
    recurringProcessingModel: string;
    merchantShopperReference: string | null;
    cardMasked: string;
    cardSummary: string;
    cardExpiry: string;
    paymentMethod: string;
    createdAt: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO payment_tokens (token, merchant_id, payfac_reference, recurring_processing_model, merchant_shopper_reference,
       card_masked, card_summary, card_expiry, payment_method, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [t.token, t.merchantId, t.payfacReference, t.recurringProcessingModel, t.merchantShopperReference, t.cardMasked, t.cardSummary, t.cardExpiry, t.paymentMethod, t.createdAt],
  );
}

export interface ChallengeRow {
  id: string;
  target_kind: 'link' | 'session';
  target_reference: string;
  answers: { field: string; value: string }[];
  acquirer_state: Record<string, string>;
  expires_at: Date;
  used_at: Date | null;
}

export async function insertChallenge(
  db: Queryable,
  c: { id: string; targetKind: 'link' | 'session'; targetReference: string; answers: { field: string; value: string }[]; acquirerState: Record<string, string>; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO three_d_challenges (id, target_kind, target_reference, answers, acquirer_state, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [c.id, c.targetKind, c.targetReference, JSON.stringify(c.answers), JSON.stringify(c.acquirerState), c.createdAt, c.expiresAt],
  );
}

/** Takes a 3-D Secure step for finishing: it must be this page's, unused and not expired; it is used once. */
export async function takeChallenge(db: Queryable, id: string, targetKind: 'link' | 'session', targetReference: string, now: Date): Promise<ChallengeRow | undefined> {
  const { rows } = await db.query<ChallengeRow>(
    `UPDATE three_d_challenges SET used_at = $4
      WHERE id = $1 AND target_kind = $2 AND target_reference = $3 AND used_at IS NULL AND expires_at > $4
      RETURNING id, target_kind, target_reference, answers, acquirer_state, expires_at, used_at`,
    [id, targetKind, targetReference, now],
  );
  return rows[0];
}

/** A payment as the portal lists it beside its link or session. */
export interface PaymentSummaryRow {
  payfacReference: string;
  amount: number;
  currency: string;
  success: boolean;
  reason: string | null;
  captureState: string;
  capturedAmount: number;
  refundedAmount: number;
  cardSummary: string;
  paymentMethod: string;
  createdAt: Date;
}

const SUMMARY_COLUMNS = `payfac_reference AS "payfacReference", amount, currency, success, reason, capture_state AS "captureState",
  captured_amount AS "capturedAmount", refunded_amount AS "refundedAmount", card_summary AS "cardSummary",
  payment_method AS "paymentMethod", created_at AS "createdAt"`;

/** The payments on one link or one session of the merchant, newest first (by the payments_link_idx / payments_session_idx index). */
export async function paymentsOf(
  db: Queryable,
  merchantId: string,
  of: { paymentLinkReference: string } | { checkoutReference: string },
  limit: number,
): Promise<PaymentSummaryRow[]> {
  const [column, value] = 'paymentLinkReference' in of ? ['payment_link_reference', of.paymentLinkReference] : ['checkout_reference', of.checkoutReference];
  const { rows } = await db.query<PaymentSummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM payments WHERE ${column} = $1 AND merchant_id = $2 ORDER BY created_at DESC, payfac_reference DESC LIMIT $3`,
    [value, merchantId, limit],
  );
  return rows;
}
