import { limitSql, type Queryable } from '../db/database.js';
import { cursorTimeSql, type Keyset } from '../db/keyset.js';
import type { Read } from '../db/together.js';

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
  /** Set on a charge of a saved card (§Modifications and saved cards): the token, the model asked for and the channel given. */
  charge?: { token: string; recurringProcessingModel: string; channel: string };
  /** When the shopper accepted the link's terms on its payment page (docs/api.md, Messages and terms); absent: none were asked. */
  termsAcceptedAt?: Date | null;
  /** The answers to the link's custom fields (docs/api.md, Custom fields); absent or null: it asked for none. */
  customFieldAnswers?: { key: string; value: string }[] | null;
  /** The items at the quantities the shopper chose on a link's page (docs/rules.md, Adjustable quantities); absent: no choice offered. */
  chosenItems?: ChosenItem[] | null;
  /** The promotion code the shopper used (docs/api.md, Promotion codes); absent: none. */
  promotionCode?: string | null;
  /** What the code took off; `amount` is what was charged. */
  discountAmount?: number | null;
}

/** An item of a link at the quantity the shopper chose, and its amount at it. */
export interface ChosenItem {
  name: string;
  quantity: number;
  amount: number;
}

export async function insertPayment(db: Queryable, p: NewPayment): Promise<void> {
  await db.query({
    name: 'payments.insertPayment',
    text: `INSERT INTO payments (payfac_reference, merchant_id, terminal_identifier, checkout_reference, payment_link_reference,
       merchant_reference, amount, currency, success, reason, card_masked, card_summary, card_expiry, payment_method,
       three_d_authenticated, auth_code, is_pre_auth, token, capture_state, captured_amount, capture_due_at, created_at,
       event_checkout_reference, charged_token, recurring_processing_model, channel, terms_accepted_at, custom_field_answers,
       chosen_items, promotion_code, discount_amount)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31)`,
    values: [
      p.payfacReference,
      p.merchantId,
      p.terminalIdentifier,
      p.checkoutReference,
      p.paymentLinkReference,
      p.merchantReference,
      p.amount,
      p.currency,
      p.success,
      p.reason,
      p.cardMasked,
      p.cardSummary,
      p.cardExpiry,
      p.paymentMethod,
      p.threeDAuthenticated,
      p.authCode,
      p.isPreAuth,
      p.token,
      p.captureState,
      p.capturedAmount,
      p.captureDueAt,
      p.createdAt,
      p.eventCheckoutReference,
      p.charge?.token ?? null,
      p.charge?.recurringProcessingModel ?? null,
      p.charge?.channel ?? null,
      p.termsAcceptedAt ?? null,
      p.customFieldAnswers ? JSON.stringify(p.customFieldAnswers) : null,
      p.chosenItems ? JSON.stringify(p.chosenItems) : null,
      p.promotionCode ?? null,
      p.discountAmount ?? null,
    ],
  });
}

/** A payment as its receipt page shows it. */
interface ReceiptRow {
  amount: number;
  currency: string;
  cardSummary: string;
  paymentMethod: string;
  success: boolean;
  token: string | null;
  /** The promotion code the shopper used and what it took off; null: none. */
  promotionCode: string | null;
  discountAmount: number | null;
}

export async function findPayment(db: Queryable, payfacReference: string): Promise<ReceiptRow | undefined> {
  const { rows } = await db.query<ReceiptRow>(
    `SELECT amount, currency, card_summary AS "cardSummary", payment_method AS "paymentMethod", success, token,
            promotion_code AS "promotionCode", discount_amount AS "discountAmount"
       FROM payments WHERE payfac_reference = $1`,
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
    [
      t.token,
      t.merchantId,
      t.payfacReference,
      t.recurringProcessingModel,
      t.merchantShopperReference,
      t.cardMasked,
      t.cardSummary,
      t.cardExpiry,
      t.paymentMethod,
      t.createdAt,
    ],
  );
}

/** A 3-D Secure step as a page leaves it: whose page, what the shopper entered, and the acquirer's state. */
export interface ChallengeInput {
  targetKind: 'link' | 'session';
  targetReference: string;
  answers: { field: string; value: string }[];
  acquirerState: Record<string, string>;
  termsAcceptedAt: Date | null;
  customFieldAnswers: { key: string; value: string }[] | null;
  /** The quantities chosen on the page, one per item of the link; null when the link offers no choice. */
  itemQuantities: number[] | null;
  promotionCode: string | null;
}

interface ChallengeRow extends ChallengeInput {
  id: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function insertChallenge(db: Queryable, c: Omit<ChallengeRow, 'usedAt'> & { createdAt: Date }): Promise<void> {
  await db.query(
    `INSERT INTO three_d_challenges (id, target_kind, target_reference, answers, acquirer_state, created_at, expires_at, terms_accepted_at,
       custom_field_answers, item_quantities, promotion_code)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      c.id,
      c.targetKind,
      c.targetReference,
      JSON.stringify(c.answers),
      JSON.stringify(c.acquirerState),
      c.createdAt,
      c.expiresAt,
      c.termsAcceptedAt,
      c.customFieldAnswers === null ? null : JSON.stringify(c.customFieldAnswers),
      c.itemQuantities === null ? null : JSON.stringify(c.itemQuantities),
      c.promotionCode,
    ],
  );
}

/** Takes a 3-D Secure step for finishing: it must be this page's, unused and not expired; it is used once. */
export async function takeChallenge(
  db: Queryable,
  id: string,
  targetKind: 'link' | 'session',
  targetReference: string,
  now: Date,
): Promise<ChallengeRow | undefined> {
  const { rows } = await db.query<ChallengeRow>(
    `UPDATE three_d_challenges SET used_at = $4
      WHERE id = $1 AND target_kind = $2 AND target_reference = $3 AND used_at IS NULL AND expires_at > $4
      RETURNING id, target_kind AS "targetKind", target_reference AS "targetReference", answers, acquirer_state AS "acquirerState",
                terms_accepted_at AS "termsAcceptedAt", custom_field_answers AS "customFieldAnswers",
                item_quantities AS "itemQuantities", promotion_code AS "promotionCode", expires_at AS "expiresAt", used_at AS "usedAt"`,
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
  /** What the authorisation holds now: `amount` as authorised, or the amount an adjustment set it to. */
  authorisedAmount: number;
}

const SUMMARY_COLUMNS = `payfac_reference AS "payfacReference", amount, currency, success, reason, capture_state AS "captureState",
  captured_amount AS "capturedAmount", refunded_amount AS "refundedAmount", card_summary AS "cardSummary",
  payment_method AS "paymentMethod", created_at AS "createdAt", COALESCE(adjusted_amount, amount) AS "authorisedAmount"`;

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

/**
 * The outcome of the payment made in a checkout that is not a session's (a link payment's, a
 * saved-card charge's), by the reference its events carry: a success first, if there is one.
 */
export async function paymentOfEventCheckout(
  db: Queryable,
  merchantId: string,
  checkoutReference: string,
): Promise<{ payfacReference: string; success: boolean } | undefined> {
  const { rows } = await db.query<{ payfacReference: string; success: boolean }>(
    `SELECT payfac_reference AS "payfacReference", success FROM payments
      WHERE merchant_id = $1 AND event_checkout_reference = $2 AND checkout_reference IS NULL
      ORDER BY success DESC LIMIT 1`,
    [merchantId, checkoutReference],
  );
  return rows[0];
}

// ---------------------------------------------------------------- the portal's payments pages

/**
 * Where a payment stands, as one word, and the SQL that finds payments in it: one table, so that the
 * list's filter and the badge of each row never disagree. `p` is the payments table's alias.
 */
export const PAYMENT_STATES = {
  refused: 'NOT p.success',
  cancelled: "p.success AND p.capture_state = 'Cancelled'",
  refunded: "p.success AND p.capture_state <> 'Cancelled' AND p.refunded_amount > 0 AND p.refunded_amount >= p.captured_amount",
  partlyRefunded: "p.success AND p.capture_state <> 'Cancelled' AND p.refunded_amount > 0 AND p.refunded_amount < p.captured_amount",
  captured: "p.success AND p.capture_state = 'Captured' AND p.refunded_amount = 0",
  scheduled: "p.success AND p.capture_state = 'Scheduled' AND p.refunded_amount = 0",
  authorised: "p.success AND p.capture_state = 'Manual' AND p.refunded_amount = 0",
  cardSaved: "p.success AND p.capture_state = 'None' AND p.refunded_amount = 0",
} as const;
export type PaymentState = keyof typeof PAYMENT_STATES;

export interface PaymentFilter {
  state: PaymentState | null;
  /** Made at or after. */
  from: Date | null;
  /** Made before. */
  until: Date | null;
  /** A payfacReference, the merchant's reference, a link's or a session's reference: matched exactly. */
  reference: string | null;
}

export interface PaymentListRow extends PaymentSummaryRow {
  merchantReference: string | null;
  paymentLinkReference: string | null;
  checkoutReference: string | null;
  byToken: boolean;
  threeDAuthenticated: boolean;
  /** The answers to a link's custom fields (docs/api.md, Custom fields); null when it asked for none. */
  customFieldAnswers: { key: string; value: string }[] | null;
  /** What the authorisation holds now: `amount` as authorised, or the amount an adjustment set it to. */
  authorisedAmount: number;
  /** The cursor's time (created_at to the microsecond). */
  at: string;
  reference: string;
}

const LIST_COLUMNS = `p.payfac_reference AS "payfacReference", p.amount, p.currency, p.success, p.reason, p.capture_state AS "captureState",
  p.captured_amount AS "capturedAmount", p.refunded_amount AS "refundedAmount", p.card_summary AS "cardSummary",
  p.payment_method AS "paymentMethod", p.created_at AS "createdAt", p.merchant_reference AS "merchantReference",
  p.payment_link_reference AS "paymentLinkReference", p.checkout_reference AS "checkoutReference",
  p.charged_token IS NOT NULL AS "byToken", p.three_d_authenticated AS "threeDAuthenticated",
  p.custom_field_answers AS "customFieldAnswers", COALESCE(p.adjusted_amount, p.amount) AS "authorisedAmount",
  ${cursorTimeSql('p.created_at')} AS at, p.payfac_reference AS reference`;

/**
 * The merchant's payments under a filter, newest first, `limit` rows from a keyset (by the
 * payments_merchant_keyset_idx index). A reference is looked up by the index of each column it may
 * name, never by reading every payment of the merchant.
 */
export async function searchPayments(
  db: Queryable,
  merchantId: string,
  filter: PaymentFilter,
  keyset: Keyset | null,
  limit: number,
): Promise<PaymentListRow[]> {
  const values: unknown[] = [merchantId, limit];
  const param = (v: unknown): string => `$${values.push(v)}`;
  const where = ['p.merchant_id = $1'];
  if (filter.state !== null) where.push(`(${PAYMENT_STATES[filter.state]})`);
  if (filter.from !== null) where.push(`p.created_at >= ${param(filter.from)}`);
  if (filter.until !== null) where.push(`p.created_at < ${param(filter.until)}`);
  if (filter.reference !== null) {
    const r = param(filter.reference);
    where.push(`p.payfac_reference IN (
      SELECT payfac_reference FROM payments WHERE payfac_reference = ${r}
      UNION ALL SELECT payfac_reference FROM payments WHERE payment_link_reference = ${r}
      UNION ALL SELECT payfac_reference FROM payments WHERE checkout_reference = ${r}
      UNION ALL SELECT payfac_reference FROM payments WHERE merchant_id = $1 AND merchant_reference = ${r})`);
  }
  const newer = keyset?.direction === 'newer';
  if (keyset) where.push(`(p.created_at, p.payfac_reference) ${newer ? '>' : '<'} (${param(keyset.at)}::timestamptz, ${param(keyset.reference)})`);
  const order = newer ? 'p.created_at ASC, p.payfac_reference ASC' : 'p.created_at DESC, p.payfac_reference DESC';
  const shape = `${filter.state ?? ''}.${filter.from ? 'f' : ''}${filter.until ? 'u' : ''}${filter.reference !== null ? 'r' : ''}.${keyset ? keyset.direction : 'first'}`;
  const { rows } = await db.query<PaymentListRow>({
    name: `payments.search.${shape}`,
    text: `SELECT ${LIST_COLUMNS} FROM payments p WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $2`,
    values,
  });
  return rows;
}

export interface PaymentDetailRow extends PaymentListRow {
  terminalIdentifier: string;
  cardMasked: string;
  cardExpiry: string;
  authCode: string | null;
  isPreAuth: boolean;
  token: string | null;
  chargedToken: string | null;
  recurringProcessingModel: string | null;
  captureDueAt: Date | null;
  eventCheckoutReference: string;
  termsAcceptedAt: Date | null;
  chosenItems: ChosenItem[] | null;
  /** The promotion code the shopper used, and what it took off `amount`'s price; null: none. */
  promotionCode: string | null;
  discountAmount: number | null;
}

/** One payment of the merchant with everything the portal shows of it (card data masked, as stored). */
export async function paymentDetail(db: Queryable, merchantId: string, payfacReference: string): Promise<PaymentDetailRow | undefined> {
  const { rows } = await db.query<PaymentDetailRow>(
    `SELECT ${LIST_COLUMNS}, p.terminal_identifier AS "terminalIdentifier", p.card_masked AS "cardMasked", p.card_expiry AS "cardExpiry",
            p.auth_code AS "authCode", p.is_pre_auth AS "isPreAuth", p.token, p.charged_token AS "chargedToken",
            p.recurring_processing_model AS "recurringProcessingModel", p.capture_due_at AS "captureDueAt",
            p.event_checkout_reference AS "eventCheckoutReference", p.terms_accepted_at AS "termsAcceptedAt",
            p.chosen_items AS "chosenItems",
            p.promotion_code AS "promotionCode", p.discount_amount AS "discountAmount"
       FROM payments p WHERE p.payfac_reference = $1 AND p.merchant_id = $2`,
    [payfacReference, merchantId],
  );
  return rows[0];
}

export interface DailySalesRow {
  /** The day in UTC, YYYY-MM-DD. */
  day: string;
  currency: string;
  /** Authorised amounts of successful payments (as first authorised). */
  sales: number;
  /** Successful payments of an amount (card saves of none left out). */
  payments: number;
  refused: number;
  /** Refunded on that day (refunds and reversals that refunded, by when they completed). */
  refunded: number;
}

/**
 * The merchant's sums per day (UTC) and currency from the day `since` (YYYY-MM-DD) on, oldest first,
 * as a read that can share a statement (src/db/together.ts): the rows the triggers of
 * migrations/0038_daily_sales.sql keep, a row per slot, summed.
 */
export function dailySales(merchantId: string, since: string): Read<DailySalesRow[]> {
  return {
    name: 'sales',
    sql: `SELECT COALESCE(json_agg(d ORDER BY d.day, d.currency), '[]'::json)
            FROM (SELECT to_char(day, 'YYYY-MM-DD') AS day, currency, sum(sales)::bigint AS sales, sum(payments)::int AS payments,
                         sum(refused)::int AS refused, sum(refunded)::bigint AS refunded
                    FROM payment_daily_sales
                   WHERE merchant_id = $1 AND day >= $2::date
                   GROUP BY day, currency) d`,
    values: [merchantId, since],
    decode: (rows) => rows as DailySalesRow[],
  };
}

/** The merchant's newest payments, newest first, as a read that can share a statement (by the payments_merchant_keyset_idx index). */
export function newestPayments(merchantId: string, limit: number): Read<PaymentListRow[]> {
  return {
    name: `newest${limit}`,
    sql: `SELECT COALESCE(json_agg(r ORDER BY r.at DESC, r.reference DESC), '[]'::json)
            FROM (SELECT ${LIST_COLUMNS} FROM payments p WHERE p.merchant_id = $1
                   ORDER BY p.created_at DESC, p.payfac_reference DESC LIMIT ${limitSql(limit)}) r`,
    values: [merchantId],
    // In JSON a time is text.
    decode: (rows) => (rows as (Omit<PaymentListRow, 'createdAt'> & { createdAt: string })[]).map((r) => ({ ...r, createdAt: new Date(r.createdAt) })),
  };
}
