import type { Queryable } from '../../db/database.js';
import type { Read } from '../../db/together.js';

// A person's memberships of merchants, each with its own role (migration 0025). A membership is
// pending until the person accepts it, live until it is removed or declined.

export interface MembershipRow {
  userId: string;
  merchantId: string;
  role: string;
  createdAt: Date;
  acceptedAt: Date | null;
  /** When an owner's invitation runs out; null for a membership the operator made with the account. */
  inviteExpiresAt: Date | null;
}

const MEMBERSHIP_COLUMNS = `user_id AS "userId", merchant_id AS "merchantId", role, created_at AS "createdAt", accepted_at AS "acceptedAt",
  invite_expires_at AS "inviteExpiresAt"`;

/**
 * A new membership; false when the person is a live member (or invitee) of the merchant already. An
 * owner's invitation runs out at `inviteExpiresAt`; invite_token_hash, which the code before
 * invitations stopped handing out links wrote, is left null.
 */
export async function insertMembership(
  db: Queryable,
  m: { userId: string; merchantId: string; role: string; at: Date; createdBy: string | null; inviteExpiresAt: Date | null },
): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO portal_memberships (user_id, merchant_id, role, created_at, created_by, invite_expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id, merchant_id) WHERE removed_at IS NULL DO NOTHING`,
    [m.userId, m.merchantId, m.role, m.at, m.createdBy, m.inviteExpiresAt],
  );
  return (r.rowCount ?? 0) === 1;
}

export async function findMembership(db: Queryable, userId: string, merchantId: string): Promise<MembershipRow | undefined> {
  const { rows } = await db.query<MembershipRow>(
    `SELECT ${MEMBERSHIP_COLUMNS} FROM portal_memberships WHERE user_id = $1 AND merchant_id = $2 AND removed_at IS NULL`,
    [userId, merchantId],
  );
  return rows[0];
}

/** A person's live memberships, accepted or not, oldest first. */
export async function membershipsOf(db: Queryable, userId: string): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>(
    `SELECT ${MEMBERSHIP_COLUMNS} FROM portal_memberships WHERE user_id = $1 AND removed_at IS NULL ORDER BY created_at, id`,
    [userId],
  );
  return rows;
}

/** Whether an unexpired invitation waits for this person's answer: the overview's notice, with no merchant names to read. */
export function hasPendingInvitation(userId: string, now: Date): Read<boolean> {
  return {
    name: 'invited',
    sql: `SELECT EXISTS (SELECT 1 FROM portal_memberships
                          WHERE user_id = $1 AND removed_at IS NULL AND accepted_at IS NULL AND invite_expires_at > $2)`,
    values: [userId, now],
    decode: (found) => found === true,
  };
}

export interface MemberRow extends MembershipRow {
  email: string;
  hasPassword: boolean;
  lastSignInAt: Date | null;
}

/** A merchant's live members and invitees, oldest first (a partner's users are not members). */
export async function listMembers(db: Queryable, merchantId: string): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT m.user_id AS "userId", m.merchant_id AS "merchantId", m.role, m.created_at AS "createdAt", m.accepted_at AS "acceptedAt",
            m.invite_expires_at AS "inviteExpiresAt", u.email,
            u.password_hash IS NOT NULL AS "hasPassword", u.last_sign_in_at AS "lastSignInAt"
       FROM portal_memberships m JOIN portal_users u ON u.id = m.user_id AND u.removed_at IS NULL
      WHERE m.merchant_id = $1 AND m.removed_at IS NULL
      ORDER BY m.created_at, m.id`,
    [merchantId],
  );
  return rows;
}

/** Owners of the merchant who have accepted and can sign in. */
export async function countOwners(db: Queryable, merchantId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM portal_memberships m JOIN portal_users u ON u.id = m.user_id AND u.removed_at IS NULL
      WHERE m.merchant_id = $1 AND m.role = 'owner' AND m.removed_at IS NULL AND m.accepted_at IS NOT NULL AND u.password_hash IS NOT NULL`,
    [merchantId],
  );
  return rows[0]?.n ?? 0;
}

/** Accepts a pending membership (an invitation to an existing account only while it is unexpired). */
export async function acceptMembership(db: Queryable, userId: string, merchantId: string, now: Date): Promise<MembershipRow | undefined> {
  const { rows } = await db.query<MembershipRow>(
    `UPDATE portal_memberships SET accepted_at = $3, invite_token_hash = NULL
      WHERE user_id = $1 AND merchant_id = $2 AND removed_at IS NULL AND accepted_at IS NULL
        AND (invite_expires_at IS NULL OR invite_expires_at > $3)
      RETURNING ${MEMBERSHIP_COLUMNS}`,
    [userId, merchantId, now],
  );
  return rows[0];
}

/**
 * The memberships waiting for an account with no password, accepted when its first sign-in link is
 * used: the one it was made with (no end) and invitations not yet run out.
 */
export async function acceptWaitingMemberships(db: Queryable, userId: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE portal_memberships SET accepted_at = $2, invite_token_hash = NULL
      WHERE user_id = $1 AND removed_at IS NULL AND accepted_at IS NULL AND (invite_expires_at IS NULL OR invite_expires_at > $2)`,
    [userId, now],
  );
}

/** A pending invitation runs again until `expiresAt`; false when there is none (accepted, removed, never made). */
export async function renewInvitation(db: Queryable, userId: string, merchantId: string, expiresAt: Date): Promise<boolean> {
  const r = await db.query(
    `UPDATE portal_memberships SET invite_token_hash = NULL, invite_expires_at = $3
      WHERE user_id = $1 AND merchant_id = $2 AND removed_at IS NULL AND accepted_at IS NULL`,
    [userId, merchantId, expiresAt],
  );
  return (r.rowCount ?? 0) === 1;
}

export async function setMembershipRole(db: Queryable, userId: string, merchantId: string, role: string): Promise<void> {
  await db.query('UPDATE portal_memberships SET role = $3 WHERE user_id = $1 AND merchant_id = $2 AND removed_at IS NULL', [userId, merchantId, role]);
}

/** Ends a membership (removed by an owner, or declined): the person's sessions on that merchant end with it. */
export async function removeMembership(db: Queryable, userId: string, merchantId: string, at: Date): Promise<boolean> {
  const r = await db.query(
    'UPDATE portal_memberships SET removed_at = $3, invite_token_hash = NULL WHERE user_id = $1 AND merchant_id = $2 AND removed_at IS NULL',
    [userId, merchantId, at],
  );
  await db.query('DELETE FROM portal_sessions WHERE user_id = $1 AND merchant_id = $2', [userId, merchantId]);
  return (r.rowCount ?? 0) === 1;
}

/**
 * Keeps portal_users.merchant_id and role, which the code before migration 0025 reads, on the
 * person's first live membership (accepted ones first), so that an older process still running
 * during a deploy finds the same user. A partner's user keeps their partner's columns.
 */
export async function syncLegacyColumns(db: Queryable, userId: string): Promise<void> {
  await db.query(
    `UPDATE portal_users u SET merchant_id = m.merchant_id, role = m.role
       FROM (SELECT merchant_id, role FROM portal_memberships WHERE user_id = $1 AND removed_at IS NULL
              ORDER BY accepted_at IS NULL, created_at, id LIMIT 1) m
      WHERE u.id = $1 AND u.partner_id IS NULL`,
    [userId],
  );
}

/** The owners of a merchant who asked to be told of each payment by e-mail: live, accepted, signed-in-able people. */
export async function paidNoticeRecipients(db: Queryable, merchantId: string): Promise<{ email: string; language: string }[]> {
  const { rows } = await db.query<{ email: string; language: string }>(
    `SELECT u.email, u.language FROM portal_memberships m JOIN portal_users u ON u.id = m.user_id
      WHERE m.merchant_id = $1 AND m.removed_at IS NULL AND m.accepted_at IS NOT NULL AND m.role = 'owner' AND m.notify_paid
        AND u.removed_at IS NULL
      ORDER BY m.id`,
    [merchantId],
  );
  return rows;
}

/** Whether the person's live membership of the merchant asks for the "you were paid" e-mail. */
export async function paidNotice(db: Queryable, userId: string, merchantId: string): Promise<boolean> {
  const { rows } = await db.query<{ on: boolean }>(
    `SELECT notify_paid AS on FROM portal_memberships WHERE user_id = $1 AND merchant_id = $2 AND removed_at IS NULL`,
    [userId, merchantId],
  );
  return rows[0]?.on ?? false;
}

/** Turns the "you were paid" e-mail on or off for an owner's live membership; false when there is no such membership. */
export async function setPaidNotice(db: Queryable, userId: string, merchantId: string, on: boolean): Promise<boolean> {
  const r = await db.query(`UPDATE portal_memberships SET notify_paid = $3 WHERE user_id = $1 AND merchant_id = $2 AND removed_at IS NULL AND role = 'owner'`, [
    userId,
    merchantId,
    on,
  ]);
  return (r.rowCount ?? 0) === 1;
}
