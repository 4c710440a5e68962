import type { Queryable } from '../db/database.js';
import { cursorTimeSql, type Keyset } from '../db/keyset.js';

// Hosted checkout sessions (§Hosted checkout). The status is computed from these columns and the clock, never
// stored, so an expiry is visible the moment it passes.

export interface CheckoutItem {
  name: string;
  amount: number;
  quantity: number | null;
  unitPrice: number | null;
}

export interface SessionRow {
  reference: string;
  merchantId: string;
  merchantName: string;
  terminalIdentifier: string;
  amount: number;
  currency: string;
  returnUrl: string;
  merchantReference: string;
  culture: string;
  isManualCapture: boolean;
  captureHoursDelay: number | null;
  isPreAuth: boolean;
  expiresAt: Date;
  merchantShopperReference: string | null;
  items: CheckoutItem[];
  themeKey: string | null;
  shopperEmail: string | null;
  recurringProcessingModel: string | null;
  abandonUrl: string | null;
  completedAt: Date | null;
  payfacReference: string | null;
  createdAt: Date;
}

/** A session as it is inserted: what the shop sent, before its merchant's name or a payment is known. */
type NewSession = Omit<SessionRow, 'merchantName' | 'completedAt' | 'payfacReference'>;

export async function insertSession(db: Queryable, s: NewSession): Promise<void> {
  await db.query(
    `INSERT INTO checkout_sessions (reference, merchant_id, terminal_identifier, amount, currency, return_url,
       merchant_reference, culture, is_manual_capture, capture_hours_delay, is_pre_auth, expires_at,
       merchant_shopper_reference, items, theme_key, shopper_email, recurring_processing_model, abandon_url, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
    [
      s.reference,
      s.merchantId,
      s.terminalIdentifier,
      s.amount,
      s.currency,
      s.returnUrl,
      s.merchantReference,
      s.culture,
      s.isManualCapture,
      s.captureHoursDelay,
      s.isPreAuth,
      s.expiresAt,
      s.merchantShopperReference,
      JSON.stringify(s.items),
      s.themeKey,
      s.shopperEmail,
      s.recurringProcessingModel,
      s.abandonUrl,
      s.createdAt,
    ],
  );
}

const SESSION_COLUMNS = `s.reference, s.merchant_id AS "merchantId", s.terminal_identifier AS "terminalIdentifier",
  s.amount, s.currency, s.return_url AS "returnUrl", s.merchant_reference AS "merchantReference", s.culture,
  s.is_manual_capture AS "isManualCapture", s.capture_hours_delay AS "captureHoursDelay", s.is_pre_auth AS "isPreAuth",
  s.expires_at AS "expiresAt", s.merchant_shopper_reference AS "merchantShopperReference", s.items, s.theme_key AS "themeKey",
  s.shopper_email AS "shopperEmail", s.recurring_processing_model AS "recurringProcessingModel", s.abandon_url AS "abandonUrl",
  s.completed_at AS "completedAt", s.payfac_reference AS "payfacReference", s.created_at AS "createdAt"`;

export async function findSession(db: Queryable, reference: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS}, m.name AS "merchantName" FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id WHERE s.reference = $1`,
    [reference],
  );
  return rows[0];
}

/** The session row locked for the payment transaction: a session is paid at most once (§Hosted checkout). */
export async function lockSession(db: Queryable, reference: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS}, m.name AS "merchantName" FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id
     WHERE s.reference = $1 FOR UPDATE OF s`,
    [reference],
  );
  return rows[0];
}

export async function sessionStatusRow(
  db: Queryable,
  merchantId: string,
  reference: string,
): Promise<{ expiresAt: Date; completedAt: Date | null; payfacReference: string | null } | undefined> {
  const { rows } = await db.query<{ expiresAt: Date; completedAt: Date | null; payfacReference: string | null }>(
    'SELECT expires_at AS "expiresAt", completed_at AS "completedAt", payfac_reference AS "payfacReference" FROM checkout_sessions WHERE reference = $1 AND merchant_id = $2',
    [reference, merchantId],
  );
  return rows[0];
}

export async function completeSession(db: Queryable, reference: string, payfacReference: string, at: Date): Promise<void> {
  await db.query('UPDATE checkout_sessions SET completed_at = $3, payfac_reference = $2 WHERE reference = $1 AND completed_at IS NULL', [
    reference,
    payfacReference,
    at,
  ]);
}

/** The page-signing key: the first instance to ask creates it, every other reads the same one. */
export async function pageSigningKey(db: Queryable, candidate: string): Promise<string> {
  await db.query('INSERT INTO page_signing_keys (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [candidate]);
  const { rows } = await db.query<{ secret: string }>('SELECT secret FROM page_signing_keys WHERE id = 1');
  const secret = rows[0]?.secret;
  if (secret === undefined) throw new Error('page signing key missing');
  return secret;
}

/** A session as the portal lists it. */
interface SessionSummaryRow {
  reference: string;
  merchantReference: string;
  amount: number;
  currency: string;
  expiresAt: Date;
  completedAt: Date | null;
  payfacReference: string | null;
  createdAt: Date;
  /** createdAt to the microsecond, for the cursor of the next page. */
  at: string;
}

/**
 * Up to `limit` of the merchant's sessions next to the cursor's row in its direction (from the newest
 * when there is none), oldest first when going newer, on the (merchant_id, created_at) index.
 */
export async function listSessions(db: Queryable, merchantId: string, keyset: Keyset | null, limit: number): Promise<SessionSummaryRow[]> {
  const newer = keyset?.direction === 'newer';
  const values: unknown[] = [merchantId, limit];
  const after = keyset ? `AND (created_at, reference) ${newer ? '>' : '<'} ($3::timestamptz, $4)` : '';
  if (keyset) values.push(keyset.at, keyset.reference);
  const { rows } = await db.query<SessionSummaryRow>({
    name: `checkout.listSessions.${keyset?.direction ?? 'first'}`,
    text: `SELECT reference, merchant_reference AS "merchantReference", amount, currency, expires_at AS "expiresAt", completed_at AS "completedAt",
                  payfac_reference AS "payfacReference", created_at AS "createdAt", ${cursorTimeSql('created_at')} AS at
             FROM checkout_sessions WHERE merchant_id = $1 ${after}
            ORDER BY created_at ${newer ? 'ASC' : 'DESC'}, reference ${newer ? 'ASC' : 'DESC'} LIMIT $2`,
    values,
  });
  return rows;
}

/** A session as the merchant's own pages show it: the merchant is known, so its name is not read. */
type MerchantSessionRow = Omit<SessionRow, 'merchantName'>;

/** One of the merchant's sessions, every column; another merchant's is not found (§Authentication). */
export async function findMerchantSession(db: Queryable, merchantId: string, reference: string): Promise<MerchantSessionRow | undefined> {
  const { rows } = await db.query<MerchantSessionRow>(`SELECT ${SESSION_COLUMNS} FROM checkout_sessions s WHERE s.reference = $1 AND s.merchant_id = $2`, [
    reference,
    merchantId,
  ]);
  return rows[0];
}

// ---------------------------------------------------------------- places held while the acquirer answers

export interface HoldInput {
  id: string;
  targetKind: 'link' | 'session';
  targetReference: string;
  promotionCodeId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertHold(db: Queryable, h: HoldInput): Promise<void> {
  await db.query(`INSERT INTO payment_holds (id, target_kind, target_reference, promotion_code_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    h.id,
    h.targetKind,
    h.targetReference,
    h.promotionCodeId,
    h.createdAt,
    h.expiresAt,
  ]);
}

/** The live holds on a link or a session, and those of payments using one promotion code (null: none asked). */
export async function liveHolds(
  db: Queryable,
  target: { kind: 'link' | 'session'; reference: string },
  promotionCodeId: string | null,
  now: Date,
): Promise<{ onTarget: number; onCode: number }> {
  const { rows } = await db.query<{ onTarget: number; onCode: number }>(
    `SELECT (SELECT count(*)::int FROM payment_holds WHERE target_kind = $1 AND target_reference = $2 AND expires_at > $4) AS "onTarget",
            (SELECT count(*)::int FROM payment_holds WHERE $3::text IS NOT NULL AND promotion_code_id = $3 AND expires_at > $4) AS "onCode"`,
    [target.kind, target.reference, promotionCodeId, now],
  );
  return rows[0] ?? { onTarget: 0, onCode: 0 };
}

/** Takes a hold out (its payment is recorded, or its call failed); false when it was no longer there. */
export async function deleteHold(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM payment_holds WHERE id = $1', [id]);
  return rowCount === 1;
}

/** Moves a hold's end (a 3-D Secure step keeps its place until the step expires). */
export async function extendHold(db: Queryable, id: string, expiresAt: Date): Promise<void> {
  await db.query('UPDATE payment_holds SET expires_at = $2 WHERE id = $1', [id, expiresAt]);
}

/** Removes up to `limit` holds that ended before `now` (they count no more already); how many. */
export async function deleteExpiredHolds(db: Queryable, now: Date, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM payment_holds WHERE id IN (SELECT id FROM payment_holds WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)',
    [now, limit],
  );
  return rowCount ?? 0;
}
