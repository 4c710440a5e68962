import type { Queryable } from '../db/database.js';
import { columnsOf } from '../db/columns.js';

// The settlements module's tables (migrations/0031_settlements.sql): fee settings, batches, their lines and
// the schedule row that serialises runs. $n parameters only.

export interface FeeRow {
  currency: string;
  percentBp: number;
  fixedAmount: number;
  updatedAt: Date;
}

export async function feesOf(db: Queryable, merchantId: string): Promise<FeeRow[]> {
  const { rows } = await db.query<FeeRow>(
    `SELECT currency, percent_bp AS "percentBp", fixed_amount AS "fixedAmount", updated_at AS "updatedAt"
       FROM merchant_fees WHERE merchant_id = $1 ORDER BY currency`,
    [merchantId],
  );
  return rows;
}

export async function upsertFee(db: Queryable, merchantId: string, f: FeeRow): Promise<void> {
  await db.query(
    `INSERT INTO merchant_fees (merchant_id, currency, percent_bp, fixed_amount, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (merchant_id, currency) DO UPDATE SET percent_bp = EXCLUDED.percent_bp, fixed_amount = EXCLUDED.fixed_amount, updated_at = EXCLUDED.updated_at`,
    [merchantId, f.currency, f.percentBp, f.fixedAmount, f.updatedAt],
  );
}

/**
 * Takes the schedule row for this transaction: settlement runs happen one at a time across every
 * process. `skipLocked`: answers undefined at once when another run holds it (the worker's pass);
 * otherwise waits for it (a sandbox run). Answers the last daily cut-off settled (null: none yet).
 */
export async function lockSchedule(db: Queryable, skipLocked: boolean): Promise<{ settledUntil: Date | null } | undefined> {
  const { rows } = await db.query<{ settledUntil: Date | null }>(
    `SELECT settled_until AS "settledUntil" FROM settlement_schedule WHERE id = 1 FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''}`,
  );
  return rows[0];
}

export async function setSettledUntil(db: Queryable, at: Date): Promise<void> {
  await db.query('UPDATE settlement_schedule SET settled_until = $1 WHERE id = 1', [at]);
}

/** Which of these capture and refund references are in a batch already. */
export async function settledAmong(db: Queryable, references: readonly string[]): Promise<Set<string>> {
  if (references.length === 0) return new Set();
  const { rows } = await db.query<{ r: string }>('SELECT payfac_reference AS r FROM settlement_lines WHERE payfac_reference = ANY($1::text[])', [references]);
  return new Set(rows.map((x) => x.r));
}

export interface BatchRow {
  settlementId: string;
  merchantId: string;
  currency: string;
  cutoffAt: Date;
  grossAmount: number;
  feeAmount: number;
  netAmount: number;
  lineCount: number;
  createdAt: Date;
}

export interface LineRow {
  payfacReference: string;
  originalPayfacReference: string;
  type: 'Capture' | 'Refund';
  /** Signed: a refund's is negative. */
  amount: number;
  fee: number;
  bookedAt: Date;
}

export async function insertBatch(db: Queryable, b: BatchRow, lines: readonly LineRow[]): Promise<void> {
  await db.query(
    `INSERT INTO settlement_batches (settlement_id, merchant_id, currency, cutoff_at, gross_amount, fee_amount, net_amount, line_count, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [b.settlementId, b.merchantId, b.currency, b.cutoffAt, b.grossAmount, b.feeAmount, b.netAmount, b.lineCount, b.createdAt],
  );
  // One statement for every line: a day's batch of a busy merchant is thousands of lines.
  await db.query(
    `INSERT INTO settlement_lines (payfac_reference, settlement_id, original_payfac_reference, type, amount, fee, booked_at)
     SELECT r, $1, o, t, a, f, b FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::timestamptz[]) AS x(r, o, t, a, f, b)`,
    [b.settlementId, ...columnsOf(lines, 'payfacReference', 'originalPayfacReference', 'type', 'amount', 'fee', 'bookedAt')],
  );
}

const batchColumns = (t: string): string =>
  `${t}.settlement_id AS "settlementId", ${t}.merchant_id AS "merchantId", ${t}.currency, ${t}.cutoff_at AS "cutoffAt", ${t}.gross_amount AS "grossAmount",
   ${t}.fee_amount AS "feeAmount", ${t}.net_amount AS "netAmount", ${t}.line_count AS "lineCount", ${t}.created_at AS "createdAt"`;
const BATCH_COLUMNS = batchColumns('settlement_batches');

/** One page of the merchant's batches, newest first, and how many it has (as the link list pages). */
export async function batchPage(db: Queryable, merchantId: string, limit: number, offset: number): Promise<{ rows: BatchRow[]; totalCount: number }> {
  const [page, count] = await Promise.all([
    db.query<BatchRow>(`SELECT ${BATCH_COLUMNS} FROM settlement_batches WHERE merchant_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3`, [
      merchantId,
      limit,
      offset,
    ]),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM settlement_batches WHERE merchant_id = $1', [merchantId]),
  ]);
  return { rows: page.rows, totalCount: count.rows[0]?.n ?? 0 };
}

export async function findBatch(db: Queryable, merchantId: string, settlementId: string): Promise<BatchRow | undefined> {
  const { rows } = await db.query<BatchRow>(`SELECT ${BATCH_COLUMNS} FROM settlement_batches WHERE settlement_id = $1 AND merchant_id = $2`, [
    settlementId,
    merchantId,
  ]);
  return rows[0];
}

export async function linesOf(db: Queryable, settlementId: string): Promise<LineRow[]> {
  const { rows } = await db.query<LineRow>(
    `SELECT payfac_reference AS "payfacReference", original_payfac_reference AS "originalPayfacReference", type, amount, fee, booked_at AS "bookedAt"
       FROM settlement_lines WHERE settlement_id = $1 ORDER BY booked_at, payfac_reference`,
    [settlementId],
  );
  return rows;
}

/** Batches (from `since` on, by cut-off) whose totals are not the sums of their lines. */
export async function batchesNotAddingUp(
  db: Queryable,
  since: Date | null,
): Promise<(BatchRow & { linesGross: number; linesFee: number; linesCount: number })[]> {
  const { rows } = await db.query<BatchRow & { linesGross: number; linesFee: number; linesCount: number }>(
    `SELECT ${batchColumns('b')},
            COALESCE(l.gross, 0)::bigint AS "linesGross", COALESCE(l.fee, 0)::bigint AS "linesFee", COALESCE(l.n, 0)::int AS "linesCount"
       FROM settlement_batches b
       LEFT JOIN (SELECT settlement_id, sum(amount) AS gross, sum(fee) AS fee, count(*) AS n FROM settlement_lines GROUP BY settlement_id) l
         ON l.settlement_id = b.settlement_id
      WHERE ($1::timestamptz IS NULL OR b.cutoff_at >= $1)
        AND (b.gross_amount <> COALESCE(l.gross, 0) OR b.fee_amount <> COALESCE(l.fee, 0) OR b.line_count <> COALESCE(l.n, 0)
             OR b.net_amount <> b.gross_amount - b.fee_amount)
      ORDER BY b.seq`,
    [since],
  );
  return rows;
}

/** The lines of these capture and refund references that are in a batch, with their batch's merchant, currency and cut-off. */
export async function settledLinesAmong(
  db: Queryable,
  references: readonly string[],
): Promise<{ payfacReference: string; settlementId: string; cutoffAt: Date; amount: number; merchantId: string; currency: string }[]> {
  if (references.length === 0) return [];
  const { rows } = await db.query<{ payfacReference: string; settlementId: string; cutoffAt: Date; amount: number; merchantId: string; currency: string }>(
    `SELECT l.payfac_reference AS "payfacReference", b.settlement_id AS "settlementId", b.cutoff_at AS "cutoffAt", l.amount,
            b.merchant_id AS "merchantId", b.currency
       FROM settlement_lines l JOIN settlement_batches b ON b.settlement_id = l.settlement_id WHERE l.payfac_reference = ANY($1::text[])`,
    [references],
  );
  return rows;
}
