import { anyOfArray, type Queryable } from '../db/database.js';

// The portal's people: users, their sessions and one-time links (migration 0016; the sign-in throttle's counters are src/throttle/'s).

export interface UserRow {
  id: string;
  email: string;
  merchantId: string | null;
  partnerId: string | null;
  role: string;
  passwordHash: string | null;
  language: string;
  createdAt: Date;
  createdBy: string | null;
  lastSignInAt: Date | null;
}

const USER_COLUMNS = `id, email, merchant_id AS "merchantId", partner_id AS "partnerId", role, password_hash AS "passwordHash", language,
  created_at AS "createdAt", created_by AS "createdBy", last_sign_in_at AS "lastSignInAt"`;

export async function insertUser(db: Queryable, u: Omit<UserRow, 'lastSignInAt'>): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO portal_users (id, email, merchant_id, partner_id, role, password_hash, language, created_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (email) WHERE removed_at IS NULL DO NOTHING`,
    [u.id, u.email, u.merchantId, u.partnerId, u.role, u.passwordHash, u.language, u.createdAt, u.createdBy],
  );
  return (r.rowCount ?? 0) === 1;
}

/**
 * The account of an address an owner invites: a new one with these values, or the live one the
 * address has. Both write a row version (the existing row's is the same values again) and answer the
 * row, so that the statement's time does not tell which it was (docs/portal.md, "Users").
 */
export async function upsertInvitedUser(db: Queryable, u: Omit<UserRow, 'lastSignInAt'>): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO portal_users (id, email, merchant_id, partner_id, role, password_hash, language, created_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (email) WHERE removed_at IS NULL DO UPDATE SET email = EXCLUDED.email
     RETURNING ${USER_COLUMNS}`,
    [u.id, u.email, u.merchantId, u.partnerId, u.role, u.passwordHash, u.language, u.createdAt, u.createdBy],
  );
  const row = rows[0];
  if (!row) throw new Error('an upsert answers its row');
  return row;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM portal_users WHERE email = $1 AND removed_at IS NULL`, [email]);
  return rows[0];
}

export async function findUser(db: Queryable, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM portal_users WHERE id = $1 AND removed_at IS NULL`, [id]);
  return rows[0];
}

export async function listPartnerUsers(db: Queryable, partnerId: string): Promise<UserRow[]> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM portal_users WHERE partner_id = $1 AND removed_at IS NULL ORDER BY created_at, id`, [
    partnerId,
  ]);
  return rows;
}

export async function setPassword(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE portal_users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
}

export async function setLanguage(db: Queryable, userId: string, language: string): Promise<void> {
  await db.query('UPDATE portal_users SET language = $2 WHERE id = $1', [userId, language]);
}

export async function markSignedIn(db: Queryable, userId: string, at: Date): Promise<void> {
  await db.query('UPDATE portal_users SET last_sign_in_at = $2 WHERE id = $1', [userId, at]);
}

/** Removes an account (its last membership went): the row stays (the audit log names it), its sessions and links go. */
export async function removeAccount(db: Queryable, userId: string, at: Date): Promise<void> {
  await db.query('UPDATE portal_users SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL', [userId, at]);
  await db.query('DELETE FROM portal_sessions WHERE user_id = $1', [userId]);
  await db.query('DELETE FROM portal_tokens WHERE user_id = $1', [userId]);
}

// ---- sessions

export interface SessionRow {
  userId: string;
  merchantId: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  email: string;
  /** The account's role on its partner's merchants (a partner's user). */
  role: string;
  /** The role of the live, accepted membership of the session's merchant, if there is one. */
  memberRole: string | null;
  language: string;
  partnerId: string | null;
  /** The name of the session's merchant (null: none by that id, as a name looked up alone would be). */
  merchantName: string | null;
  /** The person's live, accepted memberships, oldest first, with each merchant's name (the merchant switcher). */
  memberships: { merchantId: string; role: string; name: string | null }[];
}

export async function insertSession(db: Queryable, s: { tokenHash: Buffer; userId: string; merchantId: string; at: Date; expiresAt: Date }): Promise<void> {
  await db.query('INSERT INTO portal_sessions (token_hash, user_id, merchant_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $4, $5)', [
    s.tokenHash,
    s.userId,
    s.merchantId,
    s.at,
    s.expiresAt,
  ]);
}

/**
 * The sessions with these hashes, with their users (removed users have no sessions left), the
 * accepted membership of the session's merchant and the person's other accepted memberships (the
 * merchant switcher of every page), in the one statement of every portal request. The names of the
 * session's merchant and of the memberships' merchants come with it, read from the accounts module's
 * table on purpose (docs/style.md, Modules and their tables): every page shows them, and a statement
 * of their own was a third round trip of each page (docs/performance.md, The portal's pages).
 */
export async function findSessions(db: Queryable, hashes: readonly Buffer[]): Promise<(SessionRow & { tokenHash: Buffer })[]> {
  const { rows } = await db.query<SessionRow & { tokenHash: Buffer }>({
    name: 'portal_find_sessions_memberships_names',
    text: `SELECT s.token_hash AS "tokenHash", s.user_id AS "userId", s.merchant_id AS "merchantId", s.created_at AS "createdAt",
                  s.last_seen_at AS "lastSeenAt", s.expires_at AS "expiresAt", u.email, u.role, m.role AS "memberRole", u.language,
                  u.partner_id AS "partnerId", (SELECT n.name FROM merchants n WHERE n.id = s.merchant_id) AS "merchantName",
                  COALESCE((SELECT json_agg(json_build_object('merchantId', a.merchant_id, 'role', a.role, 'name', n.name) ORDER BY a.created_at, a.id)
                              FROM portal_memberships a LEFT JOIN merchants n ON n.id = a.merchant_id
                             WHERE a.user_id = s.user_id AND a.removed_at IS NULL AND a.accepted_at IS NOT NULL), '[]'::json) AS memberships
             FROM portal_sessions s JOIN portal_users u ON u.id = s.user_id AND u.removed_at IS NULL
             LEFT JOIN portal_memberships m ON m.user_id = s.user_id AND m.merchant_id = s.merchant_id
                   AND m.removed_at IS NULL AND m.accepted_at IS NOT NULL
            WHERE s.token_hash = ${anyOfArray('$1::bytea[]')}`,
    values: [hashes],
  });
  return rows;
}

export async function touchSessions(db: Queryable, hashes: readonly Buffer[], at: Date): Promise<void> {
  await db.query('UPDATE portal_sessions SET last_seen_at = $2 WHERE token_hash = ANY($1::bytea[]) AND last_seen_at < $2', [hashes, at]);
}

export async function deleteSession(db: Queryable, tokenHash: Buffer): Promise<void> {
  await db.query('DELETE FROM portal_sessions WHERE token_hash = $1', [tokenHash]);
}

export async function deleteUserSessions(db: Queryable, userId: string, except: Buffer | null): Promise<number> {
  const r = await db.query('DELETE FROM portal_sessions WHERE user_id = $1 AND ($2::bytea IS NULL OR token_hash <> $2)', [userId, except]);
  return r.rowCount ?? 0;
}

export async function setSessionMerchant(db: Queryable, tokenHash: Buffer, merchantId: string): Promise<void> {
  await db.query('UPDATE portal_sessions SET merchant_id = $2 WHERE token_hash = $1', [tokenHash, merchantId]);
}

export async function deleteExpiredSessions(db: Queryable, now: Date, idleBefore: Date): Promise<number> {
  const r = await db.query('DELETE FROM portal_sessions WHERE expires_at <= $1 OR last_seen_at <= $2', [now, idleBefore]);
  return r.rowCount ?? 0;
}

// ---- one-time links

export async function insertToken(
  db: Queryable,
  t: { tokenHash: Buffer; userId: string; purpose: 'sign-in' | 'invite'; at: Date; expiresAt: Date },
): Promise<void> {
  await db.query('INSERT INTO portal_tokens (token_hash, user_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    t.tokenHash,
    t.userId,
    t.purpose,
    t.at,
    t.expiresAt,
  ]);
}

export interface TokenRow {
  userId: string;
  purpose: 'sign-in' | 'invite';
  expiresAt: Date;
  usedAt: Date | null;
}

export async function findToken(db: Queryable, tokenHash: Buffer): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>(
    `SELECT t.user_id AS "userId", t.purpose, t.expires_at AS "expiresAt", t.used_at AS "usedAt" FROM portal_tokens t JOIN portal_users u ON u.id = t.user_id AND u.removed_at IS NULL WHERE t.token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

/** Uses a live token once: answers its user, or nothing when it is unknown, used or expired. */
export async function useToken(db: Queryable, tokenHash: Buffer, now: Date): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>(
    `UPDATE portal_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
      RETURNING user_id AS "userId", purpose, expires_at AS "expiresAt", used_at AS "usedAt"`,
    [tokenHash, now],
  );
  return rows[0];
}

/** A user's earlier links stop working when a new one is made. */
export async function expireTokensOf(db: Queryable, userId: string, now: Date): Promise<void> {
  await db.query('UPDATE portal_tokens SET expires_at = $2 WHERE user_id = $1 AND used_at IS NULL AND expires_at > $2', [userId, now]);
}

/** Ends the account's invitation links not yet used (made before invitations stopped making links). */
export async function expireInviteLinks(db: Queryable, userId: string, now: Date): Promise<void> {
  await db.query("UPDATE portal_tokens SET expires_at = $2 WHERE user_id = $1 AND purpose = 'invite' AND used_at IS NULL AND expires_at > $2", [userId, now]);
}

/** Users with an invitation link not yet used (made before invitations stopped making links), and when it runs out. */
export async function pendingInvites(db: Queryable, userIds: readonly string[], now: Date): Promise<Map<string, Date>> {
  const { rows } = await db.query<{ userId: string; expiresAt: Date }>(
    `SELECT user_id AS "userId", max(expires_at) AS "expiresAt" FROM portal_tokens
      WHERE user_id = ANY($1::text[]) AND purpose = 'invite' AND used_at IS NULL AND expires_at > $2 GROUP BY user_id`,
    [userIds, now],
  );
  return new Map(rows.map((r) => [r.userId, r.expiresAt]));
}
