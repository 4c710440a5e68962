import type { Queryable } from '../db/database.js';
import type { PaymentLinkRow } from '../paymentLinks/sql.js';

// The payment side's queries on payment links (visits, the locked row of a payment, sales and
// submissions), on payments, tokens, 3-D Secure steps and the page-signing key. $n parameters only.

export interface LinkForPage extends PaymentLinkRow {
  merchantName: string;
}

const LINK_COLUMNS = `l.reference, l.merchant_id AS "merchantId", l.terminal_identifier AS "terminalIdentifier", l.type, l.description,
  l.theme_key AS "themeKey", l.amount, l.currency, l.return_url AS "returnUrl", l.culture, l.valid_until AS "validUntil",
  l.recurring_processing_model AS "recurringProcessingModel", l.visit_count AS "visitCount", l.sales_count AS "salesCount",
  l.max_sales_count AS "maxSalesCount", l.items, l.shopper_infos AS "shopperInfos", l.disabled_at AS "disabledAt",
  l.completed_at AS "completedAt", l.created_at AS "createdAt", m.name AS "merchantName"`;

/**
 * Page views of several links, `views[i]` of `references[i]`, counted by one statement (issue 8:
 * views that arrive together share a round trip and a commit), and the links as the pages show them.
 */
export async function countLinkVisits(db: Queryable, references: readonly string[], views: readonly number[]): Promise<LinkForPage[]> {
  const { rows } = await db.query<LinkForPage>({
    name: 'payments.countLinkVisits',
    // The rows are locked in reference order before the UPDATE: two batches holding the same links
    // in different orders would otherwise deadlock.
    text: `WITH v AS (SELECT * FROM unnest($1::text[], $2::bigint[]) AS v(reference, n)),
                k AS (SELECT p.reference FROM payment_links p JOIN v ON v.reference = p.reference ORDER BY p.reference FOR NO KEY UPDATE OF p),
                l AS (UPDATE payment_links p SET visit_count = p.visit_count + v.n FROM v, k
                       WHERE p.reference = v.reference AND k.reference = v.reference RETURNING p.*)
           SELECT ${LINK_COLUMNS} FROM l JOIN merchants m ON m.id = l.merchant_id`,
    values: [references, views],
  });
  return rows;
}

/** The link without counting a view (a form post re-rendering the page). */
export async function findLinkForPage(db: Queryable, reference: string): Promise<LinkForPage | undefined> {
  const { rows } = await db.query<LinkForPage>(
    `SELECT ${LINK_COLUMNS} FROM payment_links l JOIN merchants m ON m.id = l.merchant_id WHERE l.reference = $1`,
    [reference],
  );
  return rows[0];
}

/**
 * The link row locked for one payment: concurrent shoppers on the same link queue here, and each
 * decides on the salesCount its predecessor committed, so no sale goes past maxSalesCount (D6).
 */
export async function lockLinkForPayment(db: Queryable, reference: string): Promise<LinkForPage | undefined> {
  const { rows } = await db.query<LinkForPage>(
    `SELECT ${LINK_COLUMNS} FROM payment_links l JOIN merchants m ON m.id = l.merchant_id WHERE l.reference = $1 FOR UPDATE OF l`,
    [reference],
  );
  return rows[0];
}

export async function recordLinkSale(db: Queryable, reference: string, now: Date): Promise<void> {
  await db.query('UPDATE payment_links SET sales_count = sales_count + 1, updated_at = $2 WHERE reference = $1', [reference, now]);
}

export async function completeTokenizeLink(db: Queryable, reference: string, now: Date): Promise<void> {
  await db.query('UPDATE payment_links SET completed_at = $2, updated_at = $2 WHERE reference = $1 AND completed_at IS NULL', [reference, now]);
}

export async function insertLinkSubmission(
  db: Queryable,
  s: {
    id: string;
    paymentLinkReference: string;
    answers: { field: string; value: string }[];
    completed: boolean;
    amount: number;
    currency: string;
    token: string | null;
    payfacReference: string | null;
    createdAt: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO payment_link_submissions (id, payment_link_reference, answers, completed, amount, currency, token, payfac_reference, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [s.id, s.paymentLinkReference, JSON.stringify(s.answers), s.completed, s.amount, s.currency, s.token, s.payfacReference, s.createdAt],
  );
}

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

export async function findChallenge(db: Queryable, id: string): Promise<ChallengeRow | undefined> {
  const { rows } = await db.query<ChallengeRow>(
    'SELECT id, target_kind, target_reference, answers, acquirer_state, expires_at, used_at FROM three_d_challenges WHERE id = $1',
    [id],
  );
  return rows[0];
}

/** The page-signing key: the first instance to ask creates it, every other reads the same one. */
export async function pageSigningKey(db: Queryable, candidate: string): Promise<string> {
  await db.query('INSERT INTO page_signing_keys (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [candidate]);
  const { rows } = await db.query<{ secret: string }>('SELECT secret FROM page_signing_keys WHERE id = 1');
  const secret = rows[0]?.secret;
  if (secret === undefined) throw new Error('page signing key missing');
  return secret;
}
