import { preparedRows, type Queryable } from '../../db/database.js';

// Modifications (§Modifications and saved cards) and the payment ledger they move. $n parameters only.

export type ModificationKind = 'Capture' | 'Refund' | 'Reversal' | 'Adjustment';
export type CaptureState = 'Captured' | 'Scheduled' | 'Manual' | 'None' | 'Cancelled';

/** A payment row as the ledger sees it, read under FOR UPDATE. */
export interface LedgerRow {
  payfacReference: string;
  merchantId: string;
  /** The checkout reference the payment's events carry, and so its modifications' events too. */
  eventCheckoutReference: string;
  merchantReference: string | null;
  /** Authorised amount (minor units), as adjusted by the last adjustment that succeeded. */
  amount: number;
  /** The amount the shopper first authorised. */
  originalAmount: number;
  currency: string;
  success: boolean;
  captureState: CaptureState;
  capturedAmount: number;
  refundedAmount: number;
  cardMasked: string;
  cardSummary: string;
  cardExpiry: string;
  paymentMethod: string;
  /** When the payment was authorised: its authorisation expires a configured number of days later. */
  authorisedAt: Date;
}

const LEDGER_COLUMNS = `payfac_reference AS "payfacReference", merchant_id AS "merchantId", event_checkout_reference AS "eventCheckoutReference",
  merchant_reference AS "merchantReference", COALESCE(adjusted_amount, amount) AS amount, amount AS "originalAmount", currency, success, capture_state AS "captureState", captured_amount AS "capturedAmount",
  refunded_amount AS "refundedAmount", card_masked AS "cardMasked", card_summary AS "cardSummary", card_expiry AS "cardExpiry",
  payment_method AS "paymentMethod", created_at AS "authorisedAt"`;

/**
 * The payment locked for a modification: requests for one payment queue here, so each decides on the
 * ledger and the in-progress modifications its predecessor committed (no overdraft under concurrency).
 * Another merchant's payment is not found (§Authentication).
 */
export async function lockPayment(db: Queryable, payfacReference: string, merchantId: string | null): Promise<LedgerRow | undefined> {
  const { rows } = await db.query<LedgerRow>(
    `SELECT ${LEDGER_COLUMNS} FROM payments WHERE payfac_reference = $1 AND ($2::text IS NULL OR merchant_id = $2) FOR UPDATE`,
    [payfacReference, merchantId],
  );
  return rows[0];
}

/** The payment's ledger as it stands, unlocked (for showing what it can still take). */
export async function readLedger(db: Queryable, payfacReference: string, merchantId: string): Promise<LedgerRow | undefined> {
  const { rows } = await db.query<LedgerRow>(`SELECT ${LEDGER_COLUMNS} FROM payments WHERE payfac_reference = $1 AND merchant_id = $2`, [
    payfacReference,
    merchantId,
  ]);
  return rows[0];
}

/** What Received modifications of a payment will still move, and whether it is (being) reversed. */
export interface InProgress {
  pendingCapture: number;
  pendingRefund: number;
  reversed: boolean;
}

export async function inProgress(db: Queryable, payfacReference: string): Promise<InProgress> {
  const { rows } = await db.query<InProgress>(
    `SELECT COALESCE(sum(amount) FILTER (WHERE kind = 'Capture' AND state = 'Received'), 0)::bigint AS "pendingCapture",
            COALESCE(sum(amount) FILTER (WHERE kind = 'Refund' AND state = 'Received'), 0)::bigint AS "pendingRefund",
            COALESCE(bool_or(kind = 'Reversal' AND state <> 'Failed'), false) AS reversed
       FROM modifications WHERE original_payfac_reference = $1`,
    [payfacReference],
  );
  return rows[0] ?? { pendingCapture: 0, pendingRefund: 0, reversed: false };
}

interface NewModification {
  payfacReference: string;
  merchantId: string;
  originalPayfacReference: string;
  kind: ModificationKind;
  source: 'Api' | 'Scheduled';
  reference: string | null;
  amount: number | null;
  currency: string;
  refundReason: string | null;
  createdAt: Date;
}

export async function insertModification(db: Queryable, m: NewModification): Promise<void> {
  await db.query(
    `INSERT INTO modifications (payfac_reference, merchant_id, original_payfac_reference, kind, source, reference, amount, currency,
       refund_reason, state, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'Received', $10)`,
    [m.payfacReference, m.merchantId, m.originalPayfacReference, m.kind, m.source, m.reference, m.amount, m.currency, m.refundReason, m.createdAt],
  );
}

/** The NOTIFY channel that announces accepted modifications to the processors. */
export const MODIFICATIONS_CHANNEL = 'paylinks_modifications';

/** Announces work to the processors; delivered when the calling transaction commits. */
export async function notifyModifications(db: Queryable): Promise<void> {
  await db.query(`NOTIFY ${MODIFICATIONS_CHANNEL}`);
}

/** A modification as the processor claims it: as accepted, with its place in line. */
export interface ModificationRow extends Omit<NewModification, 'createdAt'> {
  seq: number;
}

/**
 * Claims the oldest Received modification that is first in line for its payment: the modifications
 * of one payment complete in the order they were accepted, so a reversal settles on the captures and
 * refunds accepted before it. A row another processor holds is skipped, and so are those behind it.
 */
const MODIFICATION_COLUMNS = `payfac_reference AS "payfacReference", seq, merchant_id AS "merchantId", original_payfac_reference AS "originalPayfacReference",
            kind, source, reference, amount, currency, refund_reason AS "refundReason"`;

/**
 * Claims the next modification in line under a lease until `leaseUntil`: the first Received one of
 * its payment (those of one payment are completed one after another, in order), not claimed by a
 * live lease. A claim whose processor died is taken again once its lease has run out.
 */
export async function claimNext(db: Queryable, now: Date, leaseUntil: Date, token: string): Promise<ModificationRow | undefined> {
  const { rows } = await db.query<ModificationRow>(
    `UPDATE modifications SET claim_token = $3, claimed_until = $2
      WHERE payfac_reference = (
        SELECT m.payfac_reference FROM modifications m
         WHERE m.state = 'Received' AND (m.claimed_until IS NULL OR m.claimed_until <= $1)
           AND NOT EXISTS (SELECT 1 FROM modifications e
                            WHERE e.original_payfac_reference = m.original_payfac_reference AND e.state = 'Received' AND e.seq < m.seq)
         ORDER BY m.seq
         LIMIT 1
         FOR UPDATE SKIP LOCKED)
      RETURNING ${MODIFICATION_COLUMNS}`,
    [now, leaseUntil, token],
  );
  return rows[0];
}

/** Whether the claim is still this one's (its lease did not run out into another's claim), the row locked for recording its outcome. */
export async function holdsClaim(db: Queryable, payfacReference: string, token: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM modifications WHERE payfac_reference = $1 AND state = 'Received' AND claim_token = $2 FOR UPDATE`, [
    payfacReference,
    token,
  ]);
  return rows.length === 1;
}

export async function completeModification(
  db: Queryable,
  m: {
    payfacReference: string;
    state: 'Succeeded' | 'Failed';
    amount: number | null;
    outcome: 'Captured' | 'Refunded' | 'Cancelled' | 'Adjusted' | null;
    reason: string | null;
    completedAt: Date;
  },
): Promise<void> {
  await db.query(
    `UPDATE modifications SET state = $2, amount = COALESCE($3, amount), outcome = $4, reason = $5, completed_at = $6, claim_token = NULL, claimed_until = NULL
      WHERE payfac_reference = $1`,
    [m.payfacReference, m.state, m.amount, m.outcome, m.reason, m.completedAt],
  );
}

/** A capture succeeded: the ledger grows, and a payment captured in full is Captured. */
export async function recordCapture(db: Queryable, payfacReference: string, amount: number): Promise<void> {
  await db.query(
    `UPDATE payments SET captured_amount = captured_amount + $2,
            capture_state = CASE WHEN captured_amount + $2 >= COALESCE(adjusted_amount, amount) THEN 'Captured' ELSE capture_state END,
            capture_due_at = CASE WHEN captured_amount + $2 >= COALESCE(adjusted_amount, amount) THEN NULL ELSE capture_due_at END
      WHERE payfac_reference = $1`,
    [payfacReference, amount],
  );
}

/**
 * An adjustment succeeded: the authorised amount is the new one (the amount first authorised stays in
 * `amount`). Lowered to what is already captured, the payment is captured in full.
 */
export async function recordAdjustment(db: Queryable, payfacReference: string, amount: number): Promise<void> {
  await db.query(
    `UPDATE payments SET adjusted_amount = $2, capture_state = CASE WHEN captured_amount >= $2 THEN 'Captured' ELSE capture_state END
      WHERE payfac_reference = $1`,
    [payfacReference, amount],
  );
}

export async function recordRefund(db: Queryable, payfacReference: string, amount: number): Promise<void> {
  await db.query('UPDATE payments SET refunded_amount = refunded_amount + $2 WHERE payfac_reference = $1', [payfacReference, amount]);
}

/**
 * A reversal succeeded: nothing more will be captured. An uncaptured payment is Cancelled; a delayed
 * capture still scheduled is called off.
 */
export async function recordReversal(db: Queryable, payfacReference: string): Promise<void> {
  await db.query(
    `UPDATE payments SET capture_state = CASE WHEN captured_amount = 0 THEN 'Cancelled' WHEN capture_state = 'Scheduled' THEN 'Manual' ELSE capture_state END,
            capture_due_at = NULL
      WHERE payfac_reference = $1`,
    [payfacReference],
  );
}

/**
 * Delayed captures (§Hosted checkout captureHoursDelay) that are due by the injected clock, locked; a payment being
 * reversed is left alone. A handful of rows at a time: the partial index holds only Scheduled payments.
 */
export async function lockDueCaptures(db: Queryable, now: Date, limit: number): Promise<LedgerRow[]> {
  const { rows } = await db.query<LedgerRow>(
    `SELECT ${LEDGER_COLUMNS} FROM payments p
      WHERE p.capture_state = 'Scheduled' AND p.capture_due_at <= $1
        AND NOT EXISTS (SELECT 1 FROM modifications m
                         WHERE m.original_payfac_reference = p.payfac_reference AND m.kind = 'Reversal' AND m.state <> 'Failed')
      ORDER BY p.capture_due_at
      LIMIT $2
      FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows;
}

/** The schedule has been turned into a capture modification: from now on it is a manual-capture payment. */
export async function unschedule(db: Queryable, payfacReference: string): Promise<void> {
  await db.query(`UPDATE payments SET capture_state = 'Manual', capture_due_at = NULL WHERE payfac_reference = $1 AND capture_state = 'Scheduled'`, [
    payfacReference,
  ]);
}

export interface ModificationHistoryRow extends Omit<NewModification, 'merchantId' | 'originalPayfacReference'> {
  state: 'Received' | 'Succeeded' | 'Failed';
  outcome: 'Captured' | 'Refunded' | 'Cancelled' | 'Adjusted' | null;
  reason: string | null;
  completedAt: Date | null;
}

/** Every modification of one payment of the merchant, in the order they were accepted. */
export async function modificationsOf(db: Queryable, merchantId: string, originalPayfacReference: string): Promise<ModificationHistoryRow[]> {
  const { rows } = await db.query<ModificationHistoryRow>(
    `SELECT payfac_reference AS "payfacReference", kind, source, reference, amount, currency, refund_reason AS "refundReason", state, outcome, reason,
            created_at AS "createdAt", completed_at AS "completedAt"
       FROM modifications WHERE original_payfac_reference = $1 AND merchant_id = $2 ORDER BY seq`,
    [originalPayfacReference, merchantId],
  );
  return rows;
}

/** A movement of money the acquirer settles: a capture (at authorisation, or a capture modification) or a refund (a refund, or a reversal that refunded). */
export interface MoneyMovementRow {
  /** The capture's or refund's own payfacReference (an immediate capture's is the payment's). */
  payfacReference: string;
  originalPayfacReference: string;
  merchantId: string;
  currency: string;
  type: 'Capture' | 'Refund';
  /** Minor units, positive. */
  amount: number;
  /** When it was captured or refunded: the payment's time for an immediate capture, else the modification's completion. */
  bookedAt: Date;
}

/**
 * Every capture and refund booked in [from, until) (from null: from the start), of one merchant or of all.
 * An immediate capture is what the payment captured beyond its capture modifications (none, for such a payment).
 */
export async function moneyMovements(db: Queryable, o: { merchantId: string | null; from: Date | null; until: Date }): Promise<MoneyMovementRow[]> {
  return preparedRows<MoneyMovementRow>(
    db,
    'modifications.moneyMovements',
    `SELECT * FROM (
             SELECT p.payfac_reference AS "payfacReference", p.payfac_reference AS "originalPayfacReference", p.merchant_id AS "merchantId",
                    p.currency, 'Capture' AS type,
                    (p.captured_amount - COALESCE((SELECT sum(m.amount) FROM modifications m
                                                    WHERE m.original_payfac_reference = p.payfac_reference AND m.kind = 'Capture' AND m.state = 'Succeeded'), 0))::bigint AS amount,
                    p.created_at AS "bookedAt"
               FROM payments p
              WHERE p.success AND p.captured_amount > 0 AND p.created_at < $1 AND ($2::timestamptz IS NULL OR p.created_at >= $2)
                AND ($3::text IS NULL OR p.merchant_id = $3)
           ) immediate WHERE amount > 0
           UNION ALL
           SELECT m.payfac_reference, m.original_payfac_reference, m.merchant_id, m.currency,
                  CASE WHEN m.kind = 'Capture' THEN 'Capture' ELSE 'Refund' END, m.amount, m.completed_at
             FROM modifications m
            WHERE m.state = 'Succeeded' AND m.amount > 0
              AND (m.kind IN ('Capture', 'Refund') OR (m.kind = 'Reversal' AND m.outcome = 'Refunded'))
              AND m.completed_at < $1 AND ($2::timestamptz IS NULL OR m.completed_at >= $2)
              AND ($3::text IS NULL OR m.merchant_id = $3)
           ORDER BY 7, 1`,
    [o.until, o.from, o.merchantId],
  );
}

/** Captures accepted before `before` that are still waiting for the acquirer (reconciliation's stuck captures). */
export async function capturesStillReceived(
  db: Queryable,
  before: Date,
): Promise<{ payfacReference: string; originalPayfacReference: string; merchantId: string; amount: number; currency: string; createdAt: Date }[]> {
  const { rows } = await db.query<{
    payfacReference: string;
    originalPayfacReference: string;
    merchantId: string;
    amount: number;
    currency: string;
    createdAt: Date;
  }>(
    `SELECT payfac_reference AS "payfacReference", original_payfac_reference AS "originalPayfacReference", merchant_id AS "merchantId",
            amount, currency, created_at AS "createdAt"
       FROM modifications WHERE kind = 'Capture' AND state = 'Received' AND created_at < $1 ORDER BY seq`,
    [before],
  );
  return rows;
}
