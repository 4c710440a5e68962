import { preparedRows, type Queryable } from '../../db/database.js';
import { cursorTimeSql, type Keyset } from '../../db/keyset.js';
import type { Read } from '../../db/together.js';

// Authorisations waiting for capture (docs/api.md, Authorisations expire): payments with manual capture or
// pre-authorisations not captured in full (capture_state 'Manual'), made after `notBefore` (those made
// earlier have expired), and not reversed nor being reversed (a reversal of a payment partly captured
// leaves it Manual). Each reads the range of one partial index of migrations/0030_waiting_authorisations.sql.
// $n parameters only.

/** `p` is the payments table; `$notBefore` the parameter of the oldest moment a waiting authorisation was made after. */
const waiting = (notBefore: string): string => `p.capture_state = 'Manual' AND p.success AND p.created_at > ${notBefore}
  AND NOT EXISTS (SELECT 1 FROM modifications m
                   WHERE m.original_payfac_reference = p.payfac_reference AND m.kind = 'Reversal' AND m.state <> 'Failed')`;

/** What an authorisation still holds: the authorised amount (as adjusted) less what is captured. */
const REMAINING = 'COALESCE(p.adjusted_amount, p.amount) - p.captured_amount';

export interface WaitingTotalsRow {
  currency: string;
  count: number;
  /** Minor units still authorised and not captured. */
  amount: number;
  /** When the oldest of them was made. */
  oldest: Date;
}

/** Every merchant's waiting authorisations per currency (the metrics' gauges), by payments_waiting_idx. */
export async function waitingTotals(db: Queryable, notBefore: Date): Promise<WaitingTotalsRow[]> {
  return preparedRows<WaitingTotalsRow>(
    db,
    'authorisations.waitingTotals',
    `SELECT p.currency, count(*)::int AS count, sum(${REMAINING})::bigint AS amount, min(p.created_at) AS oldest
             FROM payments p WHERE ${waiting('$1')}
            GROUP BY p.currency ORDER BY p.currency`,
    [notBefore],
  );
}

export interface MerchantWaitingRow {
  currency: string;
  count: number;
  amount: number;
  /** How many were made at or before `soonAfter`: they expire within the window the caller chose. */
  expiringSoon: number;
}

/**
 * One merchant's waiting authorisations per currency (the portal's overview), by
 * payments_merchant_waiting_idx, as a read that can share a statement (src/db/together.ts).
 */
export function merchantWaiting(merchantId: string, notBefore: Date, soonAfter: Date): Read<MerchantWaitingRow[]> {
  return {
    name: 'waiting',
    sql: `SELECT COALESCE(json_agg(w ORDER BY w.currency), '[]'::json)
            FROM (SELECT p.currency, count(*)::int AS count, sum(${REMAINING})::bigint AS amount,
                         count(*) FILTER (WHERE p.created_at <= $3)::int AS "expiringSoon"
                    FROM payments p WHERE p.merchant_id = $1 AND ${waiting('$2')}
                   GROUP BY p.currency) w`,
    values: [merchantId, notBefore, soonAfter],
    decode: (rows) => rows as MerchantWaitingRow[],
  };
}

export interface WaitingRow {
  payfacReference: string;
  merchantReference: string | null;
  /** Authorised amount, as adjusted. */
  authorised: number;
  capturedAmount: number;
  remaining: number;
  currency: string;
  isPreAuth: boolean;
  cardSummary: string;
  paymentMethod: string;
  authorisedAt: Date;
  /** The cursor's time (created_at to the microsecond). */
  at: string;
  reference: string;
}

/**
 * One merchant's waiting authorisations, newest first, `limit` rows from a keyset; with `madeBy`,
 * only those made at or before it (those that expire soonest).
 */
export async function waitingPage(
  db: Queryable,
  merchantId: string,
  notBefore: Date,
  madeBy: Date | null,
  keyset: Keyset | null,
  limit: number,
): Promise<WaitingRow[]> {
  const values: unknown[] = [merchantId, limit, notBefore];
  const param = (v: unknown): string => `$${values.push(v)}`;
  const where = ['p.merchant_id = $1', waiting('$3')];
  if (madeBy !== null) where.push(`p.created_at <= ${param(madeBy)}`);
  const newer = keyset?.direction === 'newer';
  if (keyset) where.push(`(p.created_at, p.payfac_reference) ${newer ? '>' : '<'} (${param(keyset.at)}::timestamptz, ${param(keyset.reference)})`);
  const order = newer ? 'p.created_at ASC, p.payfac_reference ASC' : 'p.created_at DESC, p.payfac_reference DESC';
  const { rows } = await db.query<WaitingRow>({
    name: `authorisations.page.${madeBy === null ? 'all' : 'soon'}.${keyset ? keyset.direction : 'first'}`,
    text: `SELECT p.payfac_reference AS "payfacReference", p.merchant_reference AS "merchantReference",
                  COALESCE(p.adjusted_amount, p.amount) AS authorised, p.captured_amount AS "capturedAmount", ${REMAINING} AS remaining,
                  p.currency, p.is_pre_auth AS "isPreAuth", p.card_summary AS "cardSummary", p.payment_method AS "paymentMethod",
                  p.created_at AS "authorisedAt", ${cursorTimeSql('p.created_at')} AS at, p.payfac_reference AS reference
             FROM payments p WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $2`,
    values,
  });
  return rows;
}
