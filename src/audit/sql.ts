import type { Queryable } from '../db/database.js';

// The audit log (migration 0016): who did what, per merchant.

interface AuditRow {
  id: string;
  actorUserId: string | null;
  actorEmail: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

export async function insertEntry(
  db: Queryable,
  e: {
    merchantId: string;
    actorUserId: string | null;
    actorEmail: string | null;
    action: string;
    target: string | null;
    details: Record<string, unknown>;
    at: Date;
  },
): Promise<void> {
  await db.query('INSERT INTO audit_log (merchant_id, actor_user_id, actor_email, action, target, details, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    e.merchantId,
    e.actorUserId,
    e.actorEmail,
    e.action,
    e.target,
    JSON.stringify(e.details),
    e.at,
  ]);
}

/**
 * A merchant's entries, newest first, from before `beforeId` (keyset paging). The column is named in
 * full: the select list's `id` is its text, and ORDER BY id would sort that text ("99" before "120").
 */
export async function listEntries(db: Queryable, merchantId: string, beforeId: string | null, limit: number): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT id::text AS id, actor_user_id AS "actorUserId", actor_email AS "actorEmail", action, target, details, created_at AS "createdAt" FROM audit_log
      WHERE merchant_id = $1 AND ($2::bigint IS NULL OR audit_log.id < $2::bigint) ORDER BY audit_log.id DESC LIMIT $3`,
    [merchantId, beforeId, limit],
  );
  return rows;
}
