import type { Queryable } from '../db/database.js';

// Every statement of the promotion codes module (migrations/0035_promotion_codes.sql); $n parameters only.

export interface CodeRow {
  id: string;
  merchantId: string;
  code: string;
  percentOff: number | null;
  amountOff: number | null;
  currency: string | null;
  expiresAt: Date | null;
  maxRedemptions: number | null;
  redemptionCount: number;
  active: boolean;
  createdAt: Date;
}

const COLUMNS = `id, merchant_id AS "merchantId", code, percent_off AS "percentOff", amount_off AS "amountOff", currency,
  expires_at AS "expiresAt", max_redemptions AS "maxRedemptions", redemption_count AS "redemptionCount", active, created_at AS "createdAt"`;

export type NewCode = Omit<CodeRow, 'redemptionCount'>;

export async function insertCode(db: Queryable, c: NewCode): Promise<void> {
  await db.query(
    `INSERT INTO promotion_codes (id, merchant_id, code, percent_off, amount_off, currency, expires_at, max_redemptions, active, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
    [c.id, c.merchantId, c.code, c.percentOff, c.amountOff, c.currency, c.expiresAt, c.maxRedemptions, c.active, c.createdAt],
  );
}

/** The unique index that keeps one code of a name per merchant, whatever its case. */
export const UNIQUE_CODE_CONSTRAINT = 'promotion_codes_merchant_code';

export async function listCodes(db: Queryable, merchantId: string, offset: number, limit: number): Promise<{ rows: CodeRow[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query<CodeRow>(`SELECT ${COLUMNS} FROM promotion_codes WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`, [
      merchantId,
      offset,
      limit,
    ]),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM promotion_codes WHERE merchant_id = $1', [merchantId]),
  ]);
  return { rows: page.rows, total: count.rows[0]?.n ?? 0 };
}

/** A merchant's code by its id; `forUpdate` locks it until the caller's transaction ends. */
export async function findCode(db: Queryable, merchantId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<CodeRow | undefined> {
  const { rows } = await db.query<CodeRow>(
    `SELECT ${COLUMNS} FROM promotion_codes WHERE merchant_id = $1 AND id = $2${opts.forUpdate === true ? ' FOR UPDATE' : ''}`,
    [merchantId, id],
  );
  return rows[0];
}

/**
 * A merchant's code by what a shopper typed, without regard to case. `forUpdate` locks it for a
 * payment: payments using the same code queue here, and each decides on the redemptionCount its
 * predecessor committed, so the cap holds exactly.
 */
export async function findCodeByName(db: Queryable, merchantId: string, code: string, opts: { forUpdate?: boolean } = {}): Promise<CodeRow | undefined> {
  const { rows } = await db.query<CodeRow>(
    `SELECT ${COLUMNS} FROM promotion_codes WHERE merchant_id = $1 AND lower(code) = lower($2)${opts.forUpdate === true ? ' FOR UPDATE' : ''}`,
    [merchantId, code],
  );
  return rows[0];
}

export async function updateCode(
  db: Queryable,
  merchantId: string,
  id: string,
  c: { active: boolean; expiresAt: Date | null; maxRedemptions: number | null; now: Date },
): Promise<CodeRow | undefined> {
  const { rows } = await db.query<CodeRow>(
    `UPDATE promotion_codes SET active = $3, expires_at = $4, max_redemptions = $5, updated_at = $6
      WHERE merchant_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [merchantId, id, c.active, c.expiresAt, c.maxRedemptions, c.now],
  );
  return rows[0];
}

/**
 * Counts one redemption, only while the code is under its cap: the condition is the guard if a caller
 * ever redeems without holding the row (the row lock of findCodeByName is the rule). True when counted.
 */
export async function redeem(db: Queryable, id: string, now: Date, opts: { pastCap?: boolean } = {}): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE promotion_codes SET redemption_count = redemption_count + 1, updated_at = $2
      WHERE id = $1 AND ($3 OR max_redemptions IS NULL OR redemption_count < max_redemptions)`,
    [id, now, opts.pastCap === true],
  );
  return rowCount === 1;
}
