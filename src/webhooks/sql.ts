import type { Queryable } from '../db/database.js';

// Webhooks, events and deliveries (§Events to §Deliveries). The owner of a webhook is a merchant or a partner:
// functions take both ids with exactly one set, so `merchant_id = $x OR partner_id = $y` matches
// only the caller's own rows.

export interface Owner {
  merchantId: string | null;
  partnerId: string | null;
}

export interface WebhookRow {
  id: string;
  merchantId: string | null;
  partnerId: string | null;
  url: string;
  eventTypes: string[];
  description: string;
  enabled: boolean;
  kind: WebhookKind;
  /** Attempts in flight at once; null: the operator's default. */
  maxInFlight: number | null;
  /** Deliveries per second at most; null: no limit. */
  rateLimit: number | null;
  lastSuccessAt: Date | null;
  /** The first failure after the last success; null while healthy. */
  failingSince: Date | null;
  /** Deliveries ended Failed since the last success. */
  failedDeliveries: number;
  /** 'failing': disabled by the worker because its deliveries kept failing; null otherwise. */
  disabledReason: 'failing' | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** `url`: delivered to its URL by the workers; `listener`: delivered to `paylinks listen` over its stream. */
export type WebhookKind = 'url' | 'listener';

const WEBHOOK_COLUMNS = `id, merchant_id AS "merchantId", partner_id AS "partnerId", url, event_types AS "eventTypes", description, enabled, kind,
  max_in_flight AS "maxInFlight", rate_limit AS "rateLimit", last_success_at AS "lastSuccessAt", failing_since AS "failingSince",
  failed_deliveries AS "failedDeliveries", disabled_reason AS "disabledReason", disabled_at AS "disabledAt", created_at AS "createdAt",
  updated_at AS "updatedAt"`;

export async function insertWebhook(
  db: Queryable,
  args: {
    id: string;
    owner: Owner;
    url: string;
    eventTypes: readonly string[];
    description: string;
    apiKeySealed: string;
    hmacKeySealed: string;
    now: Date;
    kind?: WebhookKind;
    maxInFlight?: number | null;
    rateLimit?: number | null;
  },
): Promise<WebhookRow> {
  const kind = args.kind ?? 'url';
  const { rows } = await db.query<WebhookRow>(
    `INSERT INTO webhooks (id, merchant_id, partner_id, url, event_types, description, enabled, api_key_sealed, hmac_key_sealed, created_at, updated_at, kind, listener_seen_at,
                           max_in_flight, rate_limit, rate_tokens, rate_at)
     VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $9, $10, CASE WHEN $10 = 'listener' THEN $9::timestamptz END, $11::int, $12::int, $12::int, $9)
     RETURNING ${WEBHOOK_COLUMNS}`,
    [
      args.id,
      args.owner.merchantId,
      args.owner.partnerId,
      args.url,
      args.eventTypes,
      args.description,
      args.apiKeySealed,
      args.hmacKeySealed,
      args.now,
      kind,
      args.maxInFlight ?? null,
      args.rateLimit ?? null,
    ],
  );
  return rows[0] as WebhookRow;
}

export async function findWebhook(db: Queryable, owner: Owner, id: string, opts: { forUpdate?: boolean } = {}): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks
      WHERE id = $1 AND deleted_at IS NULL AND (merchant_id = $2 OR partner_id = $3)
      ${opts.forUpdate ? 'FOR UPDATE' : ''}`,
    [id, owner.merchantId, owner.partnerId],
  );
  return rows[0];
}

export async function listWebhooks(db: Queryable, owner: Owner, page: number, pageSize: number): Promise<{ rows: WebhookRow[]; total: number }> {
  const { rows } = await db.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks
      WHERE deleted_at IS NULL AND (merchant_id = $1 OR partner_id = $2)
      ORDER BY created_at DESC, id DESC
      LIMIT $3 OFFSET $4`,
    [owner.merchantId, owner.partnerId, pageSize, page * pageSize],
  );
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE deleted_at IS NULL AND (merchant_id = $1 OR partner_id = $2)', [
    owner.merchantId,
    owner.partnerId,
  ]);
  return { rows, total: count.rows[0]?.n ?? 0 };
}

export async function updateWebhook(
  db: Queryable,
  args: {
    id: string;
    url: string;
    eventTypes: readonly string[];
    description: string;
    enabled: boolean;
    maxInFlight: number | null;
    rateLimit: number | null;
    now: Date;
  },
): Promise<WebhookRow> {
  // A new rate starts with a full bucket (one second of deliveries).
  const { rows } = await db.query<WebhookRow>(
    // Enabling starts the webhook's health afresh; disabling by hand records when (no reason: a person's choice).
    `UPDATE webhooks SET url = $2, event_types = $3, description = $4, updated_at = $6, max_in_flight = $7,
            failing_since = CASE WHEN $5 AND NOT enabled THEN NULL ELSE failing_since END,
            failed_deliveries = CASE WHEN $5 AND NOT enabled THEN 0 ELSE failed_deliveries END,
            disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
            disabled_at = CASE WHEN $5 THEN NULL WHEN enabled THEN $6 ELSE disabled_at END,
            enabled = $5,
            rate_tokens = CASE WHEN rate_limit IS DISTINCT FROM $8::int THEN $8::int ELSE rate_tokens END,
            rate_at = CASE WHEN rate_limit IS DISTINCT FROM $8::int THEN $6 ELSE rate_at END,
            rate_limit = $8::int
      WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
    [args.id, args.url, args.eventTypes, args.description, args.enabled, args.now, args.maxInFlight, args.rateLimit],
  );
  return rows[0] as WebhookRow;
}

export async function softDeleteWebhook(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('UPDATE webhooks SET deleted_at = $2, enabled = false, updated_at = $2 WHERE id = $1', [id, now]);
}

/** New secrets; the HMAC key they replace stays valid beside them until `previousUntil` (null: not at all). */
export async function setWebhookSecrets(
  db: Queryable,
  args: { id: string; apiKeySealed: string; hmacKeySealed: string; previousUntil: Date | null; now: Date },
): Promise<void> {
  await db.query(
    `UPDATE webhooks SET previous_hmac_key_sealed = CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE hmac_key_sealed END,
            previous_secrets_until = $5, api_key_sealed = $2, hmac_key_sealed = $3, updated_at = $4
      WHERE id = $1`,
    [args.id, args.apiKeySealed, args.hmacKeySealed, args.now, args.previousUntil],
  );
}

/** Until when the HMAC key replaced by the owner's webhook's last rotation still signs (null: not at all); undefined: no such webhook. */
export async function previousSecretsUntil(db: Queryable, owner: Owner, id: string): Promise<{ until: Date | null } | undefined> {
  const { rows } = await db.query<{ previousSecretsUntil: Date | null }>(
    'SELECT previous_secrets_until AS "previousSecretsUntil" FROM webhooks WHERE id = $1 AND deleted_at IS NULL AND (merchant_id = $2 OR partner_id = $3)',
    [id, owner.merchantId, owner.partnerId],
  );
  return rows[0] ? { until: rows[0].previousSecretsUntil } : undefined;
}

export async function webhookSecrets(
  db: Queryable,
  id: string,
): Promise<{ hmacKeySealed: string; enabled: boolean; deleted: boolean; kind: WebhookKind } | undefined> {
  const { rows } = await db.query<{ hmacKeySealed: string; enabled: boolean; deleted: boolean; kind: WebhookKind }>(
    'SELECT hmac_key_sealed AS "hmacKeySealed", enabled, deleted_at IS NOT NULL AS deleted, kind FROM webhooks WHERE id = $1',
    [id],
  );
  return rows[0];
}

/**
 * Pending deliveries are found through the two partial indexes of pending rows (sent by the workers,
 * or through a listen stream) when a statement names both of their conditions, as this does; a plain
 * `state = 'Pending'` matches neither index, and PostgreSQL then read the whole history: 370 ms for a
 * webhook with 2,000,000 finished deliveries, against 12 ms this way.
 */
const PENDING = `((d.state = 'Pending' AND NOT d.via_listener) OR (d.state = 'Pending' AND d.via_listener))`;

/**
 * A webhook that stops receiving (disabled or deleted) ends its pending deliveries as Failed, except
 * those a worker is sending right now (their attempt is recorded as usual).
 */
export async function failPendingDeliveries(db: Queryable, webhookId: string, now: Date): Promise<number> {
  const r = await db.query(
    `UPDATE webhook_deliveries d SET state = 'Failed', next_attempt_at = NULL, updated_at = $2
      WHERE d.webhook_id = $1 AND ${PENDING} AND d.claim_token IS NULL`,
    [webhookId, now],
  );
  return r.rowCount ?? 0;
}

/** Enabled URL webhooks whose deliveries have failed since before `cutoff` with no success since. */
export async function webhooksFailingSince(db: Queryable, cutoff: Date): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM webhooks WHERE failing_since <= $1 AND enabled AND deleted_at IS NULL AND kind = 'url' ORDER BY failing_since LIMIT 100`,
    [cutoff],
  );
  return rows.map((r) => r.id);
}

/** Disables the webhook if it is still enabled and failing since before `cutoff`; the row as it is now, or null. */
export async function disableFailing(db: Queryable, id: string, cutoff: Date, now: Date): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET enabled = false, disabled_reason = 'failing', disabled_at = $3, updated_at = $3
      WHERE id = $1 AND enabled AND deleted_at IS NULL AND failing_since <= $2
      RETURNING ${WEBHOOK_COLUMNS}`,
    [id, cutoff, now],
  );
  return rows[0] ?? null;
}

// Events and deliveries

export async function insertEvent(
  db: Queryable,
  args: { id: string; merchantId: string; eventType: string; payfacReference: string; message: unknown; createdAt: Date },
): Promise<void> {
  await db.query('INSERT INTO webhook_events (id, merchant_id, event_type, payfac_reference, message, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    args.id,
    args.merchantId,
    args.eventType,
    args.payfacReference,
    JSON.stringify(args.message),
    args.createdAt,
  ]);
}

/** The enabled webhooks an event of this merchant reaches: its own and its linked partners' (6.2). */
export async function webhooksForEvent(
  db: Queryable,
  merchantId: string,
  eventType: string,
  everyWebhook = false,
): Promise<{ id: string; hmacKeySealed: string; kind: WebhookKind }[]> {
  const { rows } = await db.query<{ id: string; hmacKeySealed: string; kind: WebhookKind }>(
    `SELECT w.id, w.hmac_key_sealed AS "hmacKeySealed", w.kind FROM webhooks w
      WHERE w.deleted_at IS NULL AND w.enabled
        AND ($3 OR cardinality(w.event_types) = 0 OR $2 = ANY (w.event_types))
        AND (w.merchant_id = $1 OR w.partner_id IN (SELECT partner_id FROM partner_merchants WHERE merchant_id = $1))
      ORDER BY w.id`,
    [merchantId, eventType, everyWebhook],
  );
  return rows;
}

export interface NewDelivery {
  id: string;
  eventId: string;
  eventType: string;
  payfacReference: string;
  webhookId: string;
  body: string;
  viaListener: boolean;
}

/** New pending deliveries, due now, in one statement (one event to many webhooks, or many events to one). */
export async function insertDeliveryRows(db: Queryable, now: Date, deliveries: readonly NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await db.query(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, event_type, payfac_reference, body, state, attempt_count, next_attempt_at, created_at, updated_at, via_listener)
     SELECT d.id, d.event_id, d.webhook_id, d.event_type, d.payfac_reference, d.body, 'Pending', 0, $1, $1, $1, d.via_listener
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[])
            AS d(id, event_id, webhook_id, event_type, payfac_reference, body, via_listener)`,
    [
      now,
      deliveries.map((d) => d.id),
      deliveries.map((d) => d.eventId),
      deliveries.map((d) => d.webhookId),
      deliveries.map((d) => d.eventType),
      deliveries.map((d) => d.payfacReference),
      deliveries.map((d) => d.body),
      deliveries.map((d) => d.viaListener),
    ],
  );
}

/** One event's deliveries, one per webhook. */
export async function insertDeliveries(
  db: Queryable,
  args: {
    eventId: string;
    eventType: string;
    payfacReference: string;
    now: Date;
    deliveries: readonly { id: string; webhookId: string; body: string; viaListener: boolean }[];
  },
): Promise<void> {
  await insertDeliveryRows(
    db,
    args.now,
    args.deliveries.map((d) => ({ ...d, eventId: args.eventId, eventType: args.eventType, payfacReference: args.payfacReference })),
  );
}

export interface EventRow {
  id: string;
  merchantId: string;
  eventType: string;
  payfacReference: string;
  message: unknown;
}

export async function findEvent(db: Queryable, id: string): Promise<EventRow | undefined> {
  const { rows } = await db.query<EventRow>(
    'SELECT id, merchant_id AS "merchantId", event_type AS "eventType", payfac_reference AS "payfacReference", message FROM webhook_events WHERE id = $1',
    [id],
  );
  return rows[0];
}

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
}

const DELIVERY_COLUMNS = `d.id, d.webhook_id AS "webhookId", d.event_id AS "eventId", d.event_type AS "eventType", d.payfac_reference AS "payfacReference",
  d.state, d.attempt_count AS "attemptCount", d.next_attempt_at AS "nextAttemptAt", d.claim_token IS NOT NULL AS claimed, d.created_at AS "createdAt"`;

export interface DeliveryFilter {
  payfacReference?: string;
  correlationId?: string;
  webhookId?: string;
  state?: string;
}

export async function listDeliveries(
  db: Queryable,
  owner: Owner,
  filter: DeliveryFilter,
  page: number,
  pageSize: number,
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = `(w.merchant_id = $1 OR w.partner_id = $2)
      AND ($3::text IS NULL OR d.payfac_reference = $3)
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

export interface FailedDelivery {
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
  id: string;
  url: string;
  description: string;
  enabled: boolean;
  failed: number;
  retrying: number;
  lastFailureAt: Date;
}

/**
 * The owner's webhooks whose deliveries since `since` failed (all five attempts) or are being
 * retried after a failed attempt, with how many of each; the worst first.
 */
export async function failingWebhooks(db: Queryable, owner: Owner, since: Date, limit: number): Promise<FailingRow[]> {
  const { rows } = await db.query<FailingRow>(
    `SELECT w.id, w.url, w.description, w.enabled, f.failed, f.retrying, f.last_failure_at AS "lastFailureAt"
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
      LIMIT $4`,
    [owner.merchantId, owner.partnerId, since, limit],
  );
  return rows;
}
