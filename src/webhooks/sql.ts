import type { Queryable } from '../db/database.js';
import { cursorTimeSql, type Keyset } from '../db/keyset.js';

// Webhooks, events and the making of deliveries (§Events to §Deliveries); the queries on deliveries once
// made are in deliveries/sql.ts. The owner of a webhook is a merchant or a partner:
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
  /** `fifo`: deliveries one at a time in the order their events were recorded; `unordered`: no order. */
  ordering: WebhookOrdering;
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

export type WebhookOrdering = 'unordered' | 'fifo';

const WEBHOOK_COLUMNS = `id, merchant_id AS "merchantId", partner_id AS "partnerId", url, event_types AS "eventTypes", description, enabled, kind,
  max_in_flight AS "maxInFlight", rate_limit AS "rateLimit", ordering, last_success_at AS "lastSuccessAt", failing_since AS "failingSince",
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
    ordering?: WebhookOrdering;
  },
): Promise<WebhookRow> {
  const kind = args.kind ?? 'url';
  const { rows } = await db.query<WebhookRow>(
    `INSERT INTO webhooks (id, merchant_id, partner_id, url, event_types, description, enabled, api_key_sealed, hmac_key_sealed, created_at, updated_at, kind, listener_seen_at,
                           max_in_flight, rate_limit, rate_tokens, rate_at, ordering)
     VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $9, $10, CASE WHEN $10 = 'listener' THEN $9::timestamptz END, $11::int, $12::int, $12::int, $9, $13)
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
      args.ordering ?? 'unordered',
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

/**
 * Up to `limit` of the owner's webhooks next to the keyset's row in its direction (from the newest when
 * there is none), oldest first when going newer: the portal's list, a page at a time (src/db/keyset.ts).
 */
export async function listWebhooksByKeyset(db: Queryable, owner: Owner, keyset: Keyset | null, limit: number): Promise<(WebhookRow & { at: string })[]> {
  const newer = keyset?.direction === 'newer';
  const values: unknown[] = [owner.merchantId, owner.partnerId, limit];
  if (keyset) values.push(keyset.at, keyset.reference);
  const order = newer ? 'ASC' : 'DESC';
  const { rows } = await db.query<WebhookRow & { at: string }>(
    `SELECT ${WEBHOOK_COLUMNS}, ${cursorTimeSql('created_at')} AS at FROM webhooks
      WHERE deleted_at IS NULL AND (merchant_id = $1 OR partner_id = $2) ${keyset ? `AND (created_at, id) ${newer ? '>' : '<'} ($4::timestamptz, $5)` : ''}
      ORDER BY created_at ${order}, id ${order}
      LIMIT $3`,
    values,
  );
  return rows;
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
 * Pending deliveries are found through the three partial indexes of pending rows (sent by the workers
 * in due order, in a fifo webhook's order, or through a listen stream) when a statement names all of
 * their conditions, as this does; a plain
 * `state = 'Pending'` matches neither index, and PostgreSQL then read the whole history: 370 ms for a
 * webhook with 2,000,000 finished deliveries, against 12 ms this way.
 */
export const PENDING = `((d.state = 'Pending' AND NOT d.via_listener AND NOT d.ordered) OR (d.state = 'Pending' AND d.ordered) OR (d.state = 'Pending' AND d.via_listener))`;

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

/**
 * Sets the webhook's ordering and brings its pending deliveries along: made fifo, they keep the places
 * they took when made (the order their events were recorded); made unordered, they leave the order.
 * The caller holds the order lock (lockOrders, taken before the change while the webhook is still fifo;
 * by this function when it becomes fifo).
 */
export async function setOrdering(db: Queryable, webhookId: string, ordering: WebhookOrdering): Promise<void> {
  await db.query('UPDATE webhooks SET ordering = $2 WHERE id = $1', [webhookId, ordering]);
  if (ordering === 'fifo') await lockOrders(db, [webhookId]);
  await db.query(`UPDATE webhook_deliveries d SET ordered = $2 WHERE d.webhook_id = $1 AND ${PENDING} AND NOT d.via_listener`, [
    webhookId,
    ordering === 'fifo',
  ]);
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
  await db.query({
    name: 'webhooks.insertEvent',
    text: 'INSERT INTO webhook_events (id, merchant_id, event_type, payfac_reference, message, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    values: [args.id, args.merchantId, args.eventType, args.payfacReference, JSON.stringify(args.message), args.createdAt],
  });
}

/** The enabled webhooks an event of this merchant reaches: its own and its linked partners' (6.2). */
export async function webhooksForEvent(
  db: Queryable,
  merchantId: string,
  eventType: string,
  everyWebhook = false,
): Promise<{ id: string; hmacKeySealed: string; kind: WebhookKind; ordering: WebhookOrdering }[]> {
  const { rows } = await db.query<{ id: string; hmacKeySealed: string; kind: WebhookKind; ordering: WebhookOrdering }>({
    name: 'webhooks.webhooksForEvent',
    text: `SELECT w.id, w.hmac_key_sealed AS "hmacKeySealed", w.kind, w.ordering FROM webhooks w
      WHERE w.deleted_at IS NULL AND w.enabled
        AND ($3 OR cardinality(w.event_types) = 0 OR $2 = ANY (w.event_types))
        AND (w.merchant_id = $1 OR w.partner_id IN (SELECT partner_id FROM partner_merchants WHERE merchant_id = $1))
      ORDER BY w.id`,
    values: [merchantId, eventType, everyWebhook],
  });
  return rows;
}

interface NewDelivery {
  id: string;
  eventId: string;
  eventType: string;
  payfacReference: string;
  webhookId: string;
  body: string;
  viaListener: boolean;
}

/** The lock namespace of a fifo webhook's order (see lockOrders); the second key is the webhook id's hash. */
const ORDER_LOCK_ID = 7_341_210;

/**
 * Takes, until the transaction ends, the order lock of each of these webhooks that is fifo now, in id
 * order. A transaction that makes deliveries of a fifo webhook holds it from before they take their
 * places until it commits, so the places follow the order in which events are committed: a place
 * taken by a transaction that commits later could otherwise be overtaken by one taken after it, which
 * the claim would then send first. Changing a webhook's ordering takes it too (setOrdering).
 */
export async function lockOrders(db: Queryable, webhookIds: readonly string[]): Promise<void> {
  if (webhookIds.length === 0) return;
  await db.query(
    `SELECT pg_advisory_xact_lock(${ORDER_LOCK_ID}, hashtext(id)) FROM webhooks WHERE id = ANY ($1::text[]) AND ordering = 'fifo' AND kind = 'url' ORDER BY id`,
    [webhookIds],
  );
}

/**
 * New pending deliveries, due now, in one statement (one event to many webhooks, or many events to one).
 * Each takes the next place (seq), in the order given, and a delivery to a fifo webhook is ordered by
 * it. The ordering is read by this statement, after the caller took the order locks (lockOrders), so
 * that a change of ordering committed meanwhile is seen.
 */
export async function insertDeliveryRows(db: Queryable, now: Date, deliveries: readonly NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  // The rows as one JSON parameter, not seven arrays: PostgreSQL estimates an unnest of array
  // parameters from their lengths when it plans for the values, so that plan always looked cheaper
  // than the generic one and the statement was planned anew at every event (0 generic plans of 700
  // on one connection). A JSON record set is estimated the same either way, and the plan is kept.
  await db.query({
    name: 'webhooks.insertDeliveryRows',
    text: `INSERT INTO webhook_deliveries (id, event_id, webhook_id, event_type, payfac_reference, body, state, attempt_count, next_attempt_at, created_at, updated_at, via_listener,
                                     ordered, seq)
     SELECT d.id, d.event_id, d.webhook_id, d.event_type, d.payfac_reference, d.body, 'Pending', 0, $1, $1, $1, d.via_listener,
            d.fifo, nextval('webhook_deliveries_seq')
       FROM (SELECT g.*, COALESCE((SELECT w.ordering = 'fifo' AND w.kind = 'url' FROM webhooks w WHERE w.id = g.webhook_id), false) AS fifo
               FROM ROWS FROM (json_to_recordset($2::json)
                      AS ("id" text, "eventId" text, "webhookId" text, "eventType" text, "payfacReference" text, "body" text, "viaListener" boolean))
                    WITH ORDINALITY AS g(id, event_id, webhook_id, event_type, payfac_reference, body, via_listener, i)
              ORDER BY g.i) d`,
    values: [
      now,
      JSON.stringify(
        deliveries.map(({ id, eventId, webhookId, eventType, payfacReference, body, viaListener }) => ({
          id,
          eventId,
          webhookId,
          eventType,
          payfacReference,
          body,
          viaListener,
        })),
      ),
    ],
  });
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
