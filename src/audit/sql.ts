import type { Queryable } from '../db/database.js';
import { cursorTimeSql, type Direction } from '../db/keyset.js';

// The audit log (migration 0016): who did what, per merchant.

/** Who did it (a portal user, an API key, or neither: the operator), what, and on which object. */
interface EntryFields {
  actorUserId: string | null;
  actorEmail: string | null;
  actorKeyId: string | null;
  actorKeyDisplay: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

interface AuditRow extends EntryFields {
  id: string;
  createdAt: Date;
}

export interface NewEntry extends EntryFields {
  merchantId: string;
  at: Date;
}

export async function insertEntry(db: Queryable, e: NewEntry): Promise<void> {
  await db.query({
    name: 'audit.insertEntry',
    text: `INSERT INTO audit_log (merchant_id, actor_user_id, actor_email, actor_key_id, actor_key_display, action, target, details, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    values: [e.merchantId, e.actorUserId, e.actorEmail, e.actorKeyId, e.actorKeyDisplay, e.action, e.target, JSON.stringify(e.details), e.at],
  });
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * A data-modifying CTE, for another module's statement, that writes the entries of the JSON array
 * parameter `param` whose target is one of the rows `rows`.`column` that statement wrote (a batch of
 * link creates, src/paymentLinks/sql.ts insertLinks): one statement writes the rows and their entries,
 * so each row has its entry and a row refused has none. One JSON parameter, as the links of the batch
 * go: nine array parameters were written by pg element by element, escaping each, about 2.3 KB of
 * garbage per entry against one JSON.stringify (docs/performance.md, "What was tuned").
 */
export function entriesOfRowsSql(param: string, rows: string, column: string): string {
  if (!/^\$[1-9][0-9]*$/.test(param) || !IDENTIFIER.test(rows) || !IDENTIFIER.test(column))
    throw new Error(`not a parameter, a CTE and a column: ${param} ${rows} ${column}`);
  return `INSERT INTO audit_log (merchant_id, actor_user_id, actor_email, actor_key_id, actor_key_display, action, target, details, created_at)
      SELECT e."merchantId", e."actorUserId", e."actorEmail", e."actorKeyId", e."actorKeyDisplay", e.action, e.target, e.details, e.at
        FROM json_to_recordset(${param}::json) AS e("merchantId" text, "actorUserId" text, "actorEmail" text, "actorKeyId" text, "actorKeyDisplay" text,
             action text, target text, details jsonb, at timestamptz)
       WHERE e.target IN (SELECT ${column} FROM ${rows})`;
}

/**
 * Up to `limit` of a merchant's entries next to the entry `from.id` in its direction (from the newest
 * when there is none), oldest first when going newer (keyset paging on the id, the order they were
 * written in; `at` is the time of the cursor, src/db/keyset.ts). The column is named in full: the
 * select list's `id` is its text, and ORDER BY id would sort that text ("99" before "120").
 */
export async function listEntries(
  db: Queryable,
  merchantId: string,
  from: { direction: Direction; id: string } | null,
  limit: number,
): Promise<(AuditRow & { at: string })[]> {
  const newer = from?.direction === 'newer';
  const { rows } = await db.query<AuditRow & { at: string }>(
    `SELECT id::text AS id, actor_user_id AS "actorUserId", actor_email AS "actorEmail", actor_key_id AS "actorKeyId", actor_key_display AS "actorKeyDisplay", action, target, details, created_at AS "createdAt",
            ${cursorTimeSql('created_at')} AS at FROM audit_log
      WHERE merchant_id = $1 AND ($2::bigint IS NULL OR audit_log.id ${newer ? '>' : '<'} $2::bigint) ORDER BY audit_log.id ${newer ? 'ASC' : 'DESC'} LIMIT $3`,
    [merchantId, from?.id ?? null, limit],
  );
  return rows;
}
