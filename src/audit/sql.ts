import type { Queryable } from '../db/database.js';

// The audit log (migration 0016): who did what, per merchant.

interface AuditRow {
  id: string;
  actorUserId: string | null;
  actorEmail: string | null;
  actorKeyId: string | null;
  actorKeyDisplay: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

export interface NewEntry {
  merchantId: string;
  actorUserId: string | null;
  actorEmail: string | null;
  actorKeyId: string | null;
  actorKeyDisplay: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  at: Date;
}

export async function insertEntry(db: Queryable, e: NewEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (merchant_id, actor_user_id, actor_email, actor_key_id, actor_key_display, action, target, details, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [e.merchantId, e.actorUserId, e.actorEmail, e.actorKeyId, e.actorKeyDisplay, e.action, e.target, JSON.stringify(e.details), e.at],
  );
}

/** Several entries in one statement (the API calls of one turn, src/audit/service.ts). */
export async function insertEntries(db: Queryable, entries: readonly NewEntry[]): Promise<void> {
  const column = <K extends keyof NewEntry>(k: K): NewEntry[K][] => entries.map((e) => e[k]);
  await db.query({
    name: 'audit.insertEntries',
    text: `INSERT INTO audit_log (merchant_id, actor_user_id, actor_email, actor_key_id, actor_key_display, action, target, details, created_at)
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::timestamptz[])`,
    values: [
      column('merchantId'),
      column('actorUserId'),
      column('actorEmail'),
      column('actorKeyId'),
      column('actorKeyDisplay'),
      column('action'),
      column('target'),
      entries.map((e) => JSON.stringify(e.details)),
      column('at'),
    ],
  });
}

/**
 * A merchant's entries, newest first, from before `beforeId` (keyset paging). The column is named in
 * full: the select list's `id` is its text, and ORDER BY id would sort that text ("99" before "120").
 */
export async function listEntries(db: Queryable, merchantId: string, beforeId: string | null, limit: number): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT id::text AS id, actor_user_id AS "actorUserId", actor_email AS "actorEmail", actor_key_id AS "actorKeyId", actor_key_display AS "actorKeyDisplay", action, target, details, created_at AS "createdAt" FROM audit_log
      WHERE merchant_id = $1 AND ($2::bigint IS NULL OR audit_log.id < $2::bigint) ORDER BY audit_log.id DESC LIMIT $3`,
    [merchantId, beforeId, limit],
  );
  return rows;
}
