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
  merchant_id: string;
  merchant_name: string;
  terminal_identifier: string;
  amount: number;
  currency: string;
  return_url: string;
  merchant_reference: string;
  culture: string;
  is_manual_capture: boolean;
  capture_hours_delay: number | null;
  is_pre_auth: boolean;
  expires_at: Date;
  merchant_shopper_reference: string | null;
  items: CheckoutItem[];
  theme_key: string | null;
  shopper_email: string | null;
  recurring_processing_model: string | null;
  abandon_url: string | null;
  completed_at: Date | null;
  payfac_reference: string | null;
  created_at: Date;
}

export interface NewSession {
  reference: string;
  merchantId: string;
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
  createdAt: Date;
}

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

const SESSION_COLUMNS = `s.reference, s.merchant_id, m.name AS merchant_name, s.terminal_identifier, s.amount, s.currency,
  s.return_url, s.merchant_reference, s.culture, s.is_manual_capture, s.capture_hours_delay, s.is_pre_auth, s.expires_at,
  s.merchant_shopper_reference, s.items, s.theme_key, s.shopper_email, s.recurring_processing_model, s.abandon_url,
  s.completed_at, s.payfac_reference, s.created_at`;

export async function findSession(db: Queryable, reference: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id WHERE s.reference = $1`,
    [reference],
  );
  return rows[0];
}

/** The session row locked for the payment transaction: a session is paid at most once (§Hosted checkout). */
export async function lockSession(db: Queryable, reference: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id
     WHERE s.reference = $1 FOR UPDATE OF s`,
    [reference],
  );
  return rows[0];
}

export async function sessionStatusRow(
  db: Queryable,
  merchantId: string,
  reference: string,
): Promise<{ expires_at: Date; completed_at: Date | null; payfac_reference: string | null } | undefined> {
  const { rows } = await db.query<{ expires_at: Date; completed_at: Date | null; payfac_reference: string | null }>(
    'SELECT expires_at, completed_at, payfac_reference FROM checkout_sessions WHERE reference = $1 AND merchant_id = $2',
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
export interface SessionSummaryRow {
  reference: string;
  merchant_reference: string;
  amount: number;
  currency: string;
  expires_at: Date;
  completed_at: Date | null;
  payfac_reference: string | null;
  created_at: Date;
  /** created_at to the microsecond, for the cursor of the next page. */
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
    text: `SELECT reference, merchant_reference, amount, currency, expires_at, completed_at, payfac_reference, created_at, ${cursorTimeSql('created_at')} AS at
             FROM checkout_sessions WHERE merchant_id = $1 ${after}
            ORDER BY created_at ${newer ? 'ASC' : 'DESC'}, reference ${newer ? 'ASC' : 'DESC'} LIMIT $2`,
    values,
  });
  return rows;
}

/** One of the merchant's sessions, every column; another merchant's is not found (§Authentication). */
export async function findMerchantSession(db: Queryable, merchantId: string, reference: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id WHERE s.reference = $1 AND s.merchant_id = $2`,
    [reference, merchantId],
  );
  return rows[0];
}
