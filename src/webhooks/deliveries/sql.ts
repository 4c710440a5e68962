import { limitSql, type Queryable } from '../../db/database.js';
import { cursorTimeSql, type Keyset } from '../../db/keyset.js';
import type { Read } from '../../db/together.js';
import { PENDING, type Owner } from '../sql.js';

// The deliveries' queries (§Deliveries): their trace and attempts, moving them forward, recoveries, the
// kept counts and the webhooks failing lately. The webhooks, events and the making of deliveries are
// in ../sql.ts, as is the owner rule these queries follow.

export interface DeliveryRow {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payfacReference: string;
  state: 'Pending' | 'Delivered' | 'Failed';
  attemptCount: number;
  nextAttemptAt: Date | null;
  claimed: boolean;
  createdAt: Date;
  /** A fifo webhook's pending delivery behind another: the one at the head of its queue, which goes first. */
  waitingBehind: string | null;
}

// A pending delivery of a fifo webhook waits for the head of its queue, the webhook's pending ordered
// delivery with the lowest seq (src/webhooks/delivery/sql.ts, heads), found by the ordered index.
const DELIVERY_COLUMNS = `d.id, d.webhook_id AS "webhookId", d.event_id AS "eventId", d.event_type AS "eventType", d.payfac_reference AS "payfacReference",
  d.state, d.attempt_count AS "attemptCount", d.next_attempt_at AS "nextAttemptAt", d.claim_token IS NOT NULL AS claimed, d.created_at AS "createdAt",
  CASE WHEN d.ordered AND d.state = 'Pending' THEN
    (SELECT h.id FROM webhook_deliveries h WHERE h.webhook_id = d.webhook_id AND h.state = 'Pending' AND h.ordered AND h.seq < d.seq ORDER BY h.seq LIMIT 1)
  END AS "waitingBehind"`;

export interface DeliveryFilter {
  /** A payment's reference: its deliveries, and those of its captures, refunds and adjustments (their events name it as the original). */
  payfacReference?: string;
  correlationId?: string;
  webhookId?: string;
  state?: string;
}

/**
 * Up to `limit` of one webhook's deliveries (in one state, or any) next to the keyset's row in its
 * direction (from the newest when there is none), oldest first when going newer, on the (webhook_id,
 * created_at) index: the portal's list, a page at a time (src/db/keyset.ts).
 */
export async function listWebhookDeliveries(
  db: Queryable,
  owner: Owner,
  filter: { webhookId: string; state: string | null },
  keyset: Keyset | null,
  limit: number,
): Promise<(DeliveryRow & { at: string })[]> {
  const newer = keyset?.direction === 'newer';
  const values: unknown[] = [owner.merchantId, owner.partnerId, filter.webhookId, filter.state, limit];
  if (keyset) values.push(keyset.at, keyset.reference);
  const order = newer ? 'ASC' : 'DESC';
  const { rows } = await db.query<DeliveryRow & { at: string }>(
    `SELECT ${DELIVERY_COLUMNS}, ${cursorTimeSql('d.created_at')} AS at FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE (w.merchant_id = $1 OR w.partner_id = $2) AND d.webhook_id = $3 AND ($4::text IS NULL OR d.state = $4)
        ${keyset ? `AND (d.created_at, d.id) ${newer ? '>' : '<'} ($6::timestamptz, $7)` : ''}
      ORDER BY d.created_at ${order}, d.id ${order}
      LIMIT $5`,
    values,
  );
  return rows;
}

export async function listDeliveries(
  db: Queryable,
  owner: Owner,
  filter: DeliveryFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: DeliveryRow[]; total: number }> {
  // By reference: the events with it, or with it as their original (a modification's), then their
  // deliveries by the index of events (migrations 0039 and 0044). An array from a subquery, not IN
  // (subquery): under the OR, IN became a filter over every delivery.
  const where = `(w.merchant_id = $1 OR w.partner_id = $2)
      AND ($3::text IS NULL OR d.event_id = ANY (ARRAY(SELECT e.id FROM webhook_events e
            WHERE e.payfac_reference = $3 OR (e.message -> 'additionalData' ->> 'originalPayfacReference') = $3)))
      AND ($4::uuid IS NULL OR d.id IN (SELECT a.delivery_id FROM webhook_attempts a WHERE a.correlation_id = $4))
      AND ($5::text IS NULL OR d.webhook_id = $5)
      AND ($6::text IS NULL OR d.state = $6)`;
  const params = [
    owner.merchantId,
    owner.partnerId,
    filter.payfacReference ?? null,
    filter.correlationId ?? null,
    filter.webhookId ?? null,
    filter.state ?? null,
  ];
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE ${where}
      ORDER BY d.created_at DESC, d.id DESC
      LIMIT $7 OFFSET $8`,
    [...params, pageSize, page * pageSize],
  );
  // Without a reference or correlation id to look for, the count is the kept one (migration 0021):
  // constant however long the history; with one, the matching deliveries are few and counted.
  const count =
    filter.payfacReference === undefined && filter.correlationId === undefined
      ? await db.query<{ n: number }>(
          `SELECT COALESCE(sum(c.n), 0)::int AS n FROM webhook_delivery_counts c JOIN webhooks w ON w.id = c.webhook_id
            WHERE (w.merchant_id = $1 OR w.partner_id = $2) AND ($3::text IS NULL OR c.webhook_id = $3) AND ($4::text IS NULL OR c.state = $4)`,
          [owner.merchantId, owner.partnerId, filter.webhookId ?? null, filter.state ?? null],
        )
      : await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE ${where}`, params);
  return { rows, total: count.rows[0]?.n ?? 0 };
}

/**
 * Folds the kept delivery counts of webhooks with many change rows into one row per state (the
 * triggers only ever insert changes). One statement: changes committed meanwhile stay for the next
 * fold. Returns the webhooks folded.
 */
export async function foldDeliveryCounts(db: Queryable, moreThan: number, webhooks: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH many AS (
       SELECT webhook_id FROM webhook_delivery_counts GROUP BY webhook_id HAVING count(*) > $1 LIMIT $2
     ), gone AS (
       DELETE FROM webhook_delivery_counts c USING many WHERE c.webhook_id = many.webhook_id RETURNING c.webhook_id, c.state, c.n
     ), kept AS (
       INSERT INTO webhook_delivery_counts (webhook_id, state, n)
       SELECT webhook_id, state, sum(n) FROM gone GROUP BY webhook_id, state HAVING sum(n) <> 0
     )
     SELECT count(*)::int AS n FROM many`,
    [moreThan, webhooks],
  );
  return rows[0]?.n ?? 0;
}

export async function findDelivery(
  db: Queryable,
  owner: Owner,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<(DeliveryRow & { body: string }) | undefined> {
  const { rows } = await db.query<DeliveryRow & { body: string }>(
    `SELECT ${DELIVERY_COLUMNS}, d.body FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.id = $1 AND (w.merchant_id = $2 OR w.partner_id = $3)
      ${opts.forUpdate ? 'FOR UPDATE OF d' : ''}`,
    [id, owner.merchantId, owner.partnerId],
  );
  return rows[0];
}

export interface AttemptRow {
  attemptNumber: number;
  correlationId: string;
  sentAt: Date;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  errorKind: 'timeout' | 'connection' | 'tls' | 'status' | null;
  /** Why it failed (a certificate or connection error code, the time limit); null on success or a failed status. */
  errorDetail: string | null;
}

export async function attemptsOf(db: Queryable, deliveryId: string): Promise<AttemptRow[]> {
  const { rows } = await db.query<AttemptRow>(
    `SELECT attempt_number AS "attemptNumber", correlation_id AS "correlationId", sent_at AS "sentAt", response_status AS "responseStatus",
            response_body AS "responseBody", duration_ms AS "durationMs", error_kind AS "errorKind", error_detail AS "errorDetail"
       FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt_number`,
    [deliveryId],
  );
  return rows;
}

/**
 * §Deliveries sandbox advance for all: the next attempt of every unclaimed pending delivery of the
 * owner's webhooks (or of one of them) that is not due yet is due now. Returns how many.
 */
export async function makeAllDueNow(db: Queryable, owner: Owner, webhookId: string | null, now: Date): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE webhook_deliveries d SET next_attempt_at = $4, updated_at = $4
       FROM webhooks w
      WHERE w.id = d.webhook_id AND (w.merchant_id = $1 OR w.partner_id = $2) AND ($3::text IS NULL OR w.id = $3)
        AND ${PENDING} AND d.claim_token IS NULL AND d.next_attempt_at > $4`,
    [owner.merchantId, owner.partnerId, webhookId, now],
  );
  return rowCount ?? 0;
}

/** §Deliveries sandbox advance: the next attempt of an unclaimed pending delivery is due now. */
export async function makeDueNow(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $2
      WHERE id = $1 AND state = 'Pending' AND claim_token IS NULL`,
    [id, now],
  );
}

// ---------------------------------------------------------------- bulk recovery

/** The window's earlier answer, if this window of this webhook was recovered before. */
export async function findRecovery(db: Queryable, webhookId: string, since: Date, until: Date | null): Promise<number | undefined> {
  const { rows } = await db.query<{ requeued: number }>(
    "SELECT requeued FROM webhook_recoveries WHERE webhook_id = $1 AND since = $2 AND until = coalesce($3::timestamptz, 'infinity')",
    [webhookId, since, until],
  );
  return rows[0]?.requeued;
}

export async function insertRecovery(db: Queryable, r: { webhookId: string; since: Date; until: Date | null; requeued: number; now: Date }): Promise<void> {
  await db.query(
    "INSERT INTO webhook_recoveries (webhook_id, since, until, requeued, created_at) VALUES ($1, $2, coalesce($3::timestamptz, 'infinity'), $4, $5)",
    [r.webhookId, r.since, r.until, r.requeued, r.now],
  );
}

interface FailedDelivery {
  eventId: string;
  eventType: string;
  payfacReference: string;
  message: unknown;
}

/** The webhook's Failed deliveries made in [since, until), with their events, oldest first. */
export async function failedDeliveriesIn(db: Queryable, webhookId: string, since: Date, until: Date | null): Promise<FailedDelivery[]> {
  const { rows } = await db.query<FailedDelivery>(
    `SELECT e.id AS "eventId", e.event_type AS "eventType", e.payfac_reference AS "payfacReference", e.message
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.webhook_id = $1 AND d.state = 'Failed' AND d.created_at >= $2 AND ($3::timestamptz IS NULL OR d.created_at < $3)
      ORDER BY d.created_at, d.id`,
    [webhookId, since, until],
  );
  return rows;
}

export interface FailingRow {
  webhookId: string;
  url: string;
  description: string;
  enabled: boolean;
  /** Deliveries that failed all their attempts. */
  failed: number;
  /** Deliveries being retried after a failed attempt. */
  retrying: number;
  lastFailureAt: Date;
}

/**
 * The owner's webhooks whose deliveries since `since` failed (all five attempts) or are being
 * retried after a failed attempt, with how many of each, the worst first; and whether the owner has
 * any webhook at all. One value, as a read that can share a statement (src/db/together.ts): the
 * overview asks both at each request.
 */
export function webhookHealth(owner: Owner, since: Date, limit: number): Read<{ failing: FailingRow[]; hasWebhook: boolean }> {
  return {
    name: `webhooks${limit}`,
    sql: `SELECT json_build_object(
                   'hasWebhook', EXISTS (SELECT 1 FROM webhooks WHERE deleted_at IS NULL AND (merchant_id = $1 OR partner_id = $2)),
                   'failing', COALESCE((
                     SELECT json_agg(h ORDER BY h.failed DESC, h.retrying DESC, h."webhookId")
                       FROM (SELECT w.id AS "webhookId", w.url, w.description, w.enabled, f.failed, f.retrying, f.last_failure_at AS "lastFailureAt"
                               FROM webhooks w
                               CROSS JOIN LATERAL (
                                 SELECT count(*) FILTER (WHERE d.state = 'Failed')::int AS failed,
                                        count(*) FILTER (WHERE d.state = 'Pending' AND d.attempt_count > 0)::int AS retrying,
                                        max(d.updated_at) AS last_failure_at
                                   FROM webhook_deliveries d
                                  WHERE d.webhook_id = w.id AND d.created_at >= $3
                                    AND (d.state = 'Failed' OR (d.state = 'Pending' AND d.attempt_count > 0))
                               ) f
                              WHERE (w.merchant_id = $1 OR w.partner_id = $2) AND w.deleted_at IS NULL AND f.failed + f.retrying > 0
                              ORDER BY f.failed DESC, f.retrying DESC, w.id
                              LIMIT ${limitSql(limit)}) h), '[]'::json))`,
    values: [owner.merchantId, owner.partnerId, since],
    decode: (value) => {
      // In JSON a time is text.
      const v = value as { hasWebhook: boolean; failing: (Omit<FailingRow, 'lastFailureAt'> & { lastFailureAt: string })[] };
      return { hasWebhook: v.hasWebhook, failing: v.failing.map((f) => ({ ...f, lastFailureAt: new Date(f.lastFailureAt) })) };
    },
  };
}
