import { limitSql, type Queryable } from '../../db/database.js';
import type { AttemptRow } from '../deliveries/sql.js';
import type { DeliveryState } from './schedule.js';

// The delivery worker's SQL: claim, record, and the wake-up notification.

/** An arbitrary constant naming the claim lock (see claimDueDeliveries). */
const CLAIM_LOCK_ID = 7_341_209_552;

export interface ClaimedRow {
  id: string;
  webhookId: string;
  body: string;
  attemptCount: number;
  url: string;
  apiKeySealed: string;
  hmacKeySealed: string;
  /** The key before the last rotation, while it still signs beside the new one; else null. */
  previousHmacKeySealed: string | null;
  /** The webhook's max in flight (its own, else the default). */
  cap: number;
  /**
   * How many of its attempts this worker may have on the wire now: the cap less what other workers
   * hold for the webhook (claimed, queued or on the wire) at this claim.
   */
  allowance: number;
}

/** The NOTIFY channel that announces due deliveries to the workers (and to listen streams). */
export const DELIVERIES_CHANNEL = 'paylinks_deliveries';

/** Announces due deliveries; delivered when the calling transaction commits. */
export async function notifyDeliveries(db: Queryable): Promise<void> {
  await db.query(`NOTIFY ${DELIVERIES_CHANNEL}`);
}

/**
 * Sent with BEGIN (withTransaction's `withBegin`, saving one of the cycle's round trips): takes the
 * claim lock for the rest of the transaction, and steers its planner to read the due index in order.
 * Right after a burst of inserts the table's statistics still say "few pending rows", and the planner
 * then fetches every due row with a bitmap scan and sorts them all: 20 ms per claim at a 20,000-row
 * backlog, growing with it. An ordered index scan stops after `scan` rows whatever the
 * backlog (about 2 ms). Sequential scans are turned off too: the claim settles on one generic plan
 * per connection (see claimDueDeliveries), and a plan made while the table was nearly empty found
 * the claimed rows by reading the whole table, which it went on doing once a backlog came (235 ms a
 * claim at 50,000 rows on PGlite, which has no autovacuum to have the plan made again).
 */
export const LOCK_CLAIMS_SQL = `SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true), pg_advisory_xact_lock(${CLAIM_LOCK_ID})`;

/**
 * Claims up to `limit` due deliveries for `claimToken` until `leaseUntil`. Per webhook, the claimed
 * deliveries of all workers (not expired, less the caller's own that have finished and wait to be
 * recorded) stay within the webhook's max in flight (its own, else `perEndpoint`) plus a queue of the
 * caller's depth for it (`depths`; its max in flight when none is told or the depth is less): a worker
 * holds up to one max in flight on the wire and the queue beside it, so that a slot is refilled the
 * moment its attempt ends rather than after the next claim commits (src/webhooks/delivery/endpoints.ts
 * says how deep). What goes on the wire is
 * bounded by each row's `allowance`: the max in flight less what the other workers hold now (the
 * caller's own holdings, `mine`, are told). Other workers' holdings only shrink until they claim
 * again, and their next claim counts the caller's, so attempts on the wire never exceed the max in
 * flight across workers. A webhook with a rate limit claims no queue (the bucket is spent at the
 * claim, so a queue would send in bursts) and is held to its bucket's tokens.
 *
 * The scan reads the partial index of pending deliveries in due order, skipping webhooks already at
 * their limit, so a black-hole endpoint with a long backlog never fills the scan window; `scan`
 * bounds the rows looked at per claim. Rows are then locked with SKIP LOCKED and rechecked, so a
 * concurrent claim, redelivery or sandbox advance never yields a double claim.
 *
 * A fifo webhook's deliveries are not in that index: only each fifo webhook's head is a candidate
 * (see `heads`), so it has at most one attempt in flight across all workers, in its order.
 */
export async function claimDueDeliveries(
  db: Queryable,
  args: {
    now: Date;
    leaseUntil: Date;
    claimToken: string;
    limit: number;
    perEndpoint: number;
    scan: number;
    /** The caller's attempts that have finished but are not recorded yet, by webhook: not in flight. */
    finished?: ReadonlyMap<string, number>;
    /** The deliveries the caller holds (queued, on the wire, finished and not yet recorded), by webhook. */
    mine?: ReadonlyMap<string, number>;
    /** How many the caller may queue beside each webhook's slots; its max in flight when not told. */
    depths?: ReadonlyMap<string, number>;
  },
): Promise<ClaimedRow[]> {
  const finished = [...(args.finished ?? new Map<string, number>())];
  const mine = [...(args.mine ?? new Map<string, number>())];
  const depths = [...(args.depths ?? new Map<string, number>())];
  // The scan's bound is written into the text (one of two for all claims of a worker: 400 for claims
  // up to 100, 800 up to 200; see scanFor), so PostgreSQL keeps one generic plan for each statement
  // instead of planning every claim anew. With `LIMIT $6` the generic plan's guess for the limit (a tenth of the rows) grew
  // with the table, and from a backlog of some tens of thousands it looked dearer than the custom
  // plans and was no longer chosen (40,000 due rows: 0 generic plans of 12), each claim planned
  // again (a claim 5.7-6.9 ms, about 5.3 ms with the bound in the text).
  const { rows } = await db.query<ClaimedRow>({
    name: `delivery.claimDueDeliveries.scan${args.scan}`,
    text: `WITH finished AS (
       SELECT * FROM unnest($6::text[], $7::int[]) AS f(webhook_id, n)
     ), mine AS (
       SELECT * FROM unnest($8::text[], $9::int[]) AS m(webhook_id, n)
     ), depth AS (
       SELECT * FROM unnest($10::text[], $11::int[]) AS q(webhook_id, n)
     ), busy AS (
       SELECT c.webhook_id, c.n - COALESCE(f.n, 0) AS n, GREATEST(0, c.n - COALESCE(m.n, 0)) AS others,
              COALESCE(m.n, 0) - COALESCE(f.n, 0) AS own
         FROM (SELECT webhook_id, count(*)::int AS n FROM webhook_deliveries
                WHERE state = 'Pending' AND claim_token IS NOT NULL AND next_attempt_at > $1
                GROUP BY webhook_id) c
         LEFT JOIN finished f ON f.webhook_id = c.webhook_id
         LEFT JOIN mine m ON m.webhook_id = c.webhook_id
     ), room AS (
       -- Per webhook with attempts in flight or a rate limit: how many more it may take now, the
       -- smallest of its free places (its max in flight, else the operator's default, on the wire
       -- and a queue beside them, as deep as the caller asks and at least the max in flight; no queue
       -- with a rate limit), this worker's share, and the whole deliveries left in its token bucket
       -- (refilled at rate_limit per second, at most one second's worth). A webhook with no room is
       -- skipped by the scan.
       SELECT w.id AS webhook_id,
              LEAST(COALESCE(w.max_in_flight, $5) + CASE WHEN w.rate_limit IS NULL THEN GREATEST(COALESCE(w.max_in_flight, $5), COALESCE(q.n, 0)) ELSE 0 END - COALESCE(b.n, 0),
                    -- and this worker's own share: as many as its allowance on the wire (and as many
                    -- queued), less what it holds unfinished, so that a worker held back by others
                    -- claims nothing to hold back theirs in turn
                    CASE WHEN COALESCE(w.max_in_flight, $5) <= COALESCE(b.others, 0) THEN 0
                         ELSE COALESCE(w.max_in_flight, $5) - COALESCE(b.others, 0)
                              + CASE WHEN w.rate_limit IS NULL THEN GREATEST(COALESCE(w.max_in_flight, $5), COALESCE(q.n, 0)) ELSE 0 END - COALESCE(b.own, 0) END,
                    CASE WHEN w.rate_limit IS NULL THEN 2147483647
                         ELSE floor(LEAST(w.rate_limit::float8, COALESCE(w.rate_tokens, 0)
                                + GREATEST(0, extract(epoch FROM $1::timestamptz - COALESCE(w.rate_at, $1::timestamptz))) * w.rate_limit))::int END) AS n
         FROM webhooks w LEFT JOIN busy b ON b.webhook_id = w.id LEFT JOIN depth q ON q.webhook_id = w.id
        WHERE w.id IN (SELECT webhook_id FROM busy) OR w.rate_limit IS NOT NULL
     ), heads AS (
       -- Each fifo webhook's head, its pending delivery recorded first, through the ordered index: it
       -- alone may be claimed, once due and while no attempt to the webhook is held under a live lease
       -- (its own, or an unordered one claimed before the webhook became fifo). A lapsed lease makes the
       -- same head due again, never a later delivery. No fifo webhook: one probe of an empty index.
       SELECT h.id, h.webhook_id, h.next_attempt_at
         FROM webhooks w
         CROSS JOIN LATERAL (SELECT d.id, d.webhook_id, d.next_attempt_at FROM webhook_deliveries d
                              WHERE d.webhook_id = w.id AND d.state = 'Pending' AND d.ordered
                              ORDER BY d.seq LIMIT 1) h
        WHERE w.ordering = 'fifo' AND w.enabled AND w.deleted_at IS NULL AND h.next_attempt_at <= $1
          AND w.id NOT IN (SELECT webhook_id FROM busy)
     ), candidates AS (
       SELECT d.id, d.webhook_id, d.next_attempt_at,
              row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id) AS rn
         FROM ((SELECT id, webhook_id, next_attempt_at FROM webhook_deliveries
                 WHERE state = 'Pending' AND NOT via_listener AND NOT ordered AND next_attempt_at <= $1
                   AND webhook_id NOT IN (SELECT webhook_id FROM room WHERE n <= 0)
                 ORDER BY next_attempt_at LIMIT ${limitSql(args.scan)})
               UNION ALL SELECT id, webhook_id, next_attempt_at FROM heads) d
     ), picked AS (
       -- A webhook without a room row has nothing in flight and no rate limit: all its places.
       SELECT c.id FROM candidates c JOIN webhooks w ON w.id = c.webhook_id LEFT JOIN room r ON r.webhook_id = c.webhook_id
         LEFT JOIN depth q ON q.webhook_id = c.webhook_id
        WHERE c.rn <= COALESCE(r.n, COALESCE(w.max_in_flight, $5) + GREATEST(COALESCE(w.max_in_flight, $5), COALESCE(q.n, 0)))
        -- Each webhook's first before any webhook's second, and among the firsts the longest waiting:
        -- ordered by rank alone, the webhooks cut off by the limit were the same at every claim (the
        -- rank's own order), and a drain of 100 webhooks left one with 48 of its 50 deliveries when
        -- nine tenths of all had arrived.
        ORDER BY c.rn, c.next_attempt_at, c.id
        LIMIT $4
     ), locked AS (
       -- By primary key from the picked ids. The recheck is written "state || '' = 'Pending'" so that
       -- it does not match the partial due index: with statistics taken before a backlog arrived, the
       -- planner otherwise walked every due row through that index and filtered them by id (330 ms
       -- per claim at 20,000 due rows, instead of 0.5 ms).
       SELECT d.id FROM webhook_deliveries d
        WHERE d.id = ANY (ARRAY(SELECT id FROM picked)) AND d.state || '' = 'Pending' AND d.next_attempt_at <= $1
        FOR UPDATE OF d SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_deliveries d
          SET next_attempt_at = $2, claim_token = $3
         FROM locked, webhooks w LEFT JOIN busy b ON b.webhook_id = w.id
        WHERE d.id = locked.id AND w.id = d.webhook_id AND w.enabled AND w.deleted_at IS NULL
       RETURNING d.id, d.webhook_id, d.body, d.attempt_count, w.url, w.api_key_sealed, w.hmac_key_sealed,
                 CASE WHEN w.previous_secrets_until > $1 THEN w.previous_hmac_key_sealed END AS previous_hmac_key_sealed,
                 CASE WHEN d.ordered THEN 1 ELSE COALESCE(w.max_in_flight, $5) END AS cap,
                 CASE WHEN d.ordered THEN 1 ELSE COALESCE(w.max_in_flight, $5) - COALESCE(b.others, 0) END AS allowance
     ), spent AS (
       -- Rate-limited webhooks pay one token per delivery claimed.
       UPDATE webhooks w
          SET rate_tokens = LEAST(w.rate_limit::float8, COALESCE(w.rate_tokens, 0)
                  + GREATEST(0, extract(epoch FROM $1::timestamptz - COALESCE(w.rate_at, $1::timestamptz))) * w.rate_limit) - k.n,
              rate_at = $1
         FROM (SELECT webhook_id, count(*)::int AS n FROM claimed GROUP BY webhook_id) k
        WHERE w.id = k.webhook_id AND w.rate_limit IS NOT NULL
     )
     SELECT id, webhook_id AS "webhookId", body, attempt_count AS "attemptCount", url, api_key_sealed AS "apiKeySealed", hmac_key_sealed AS "hmacKeySealed",
            previous_hmac_key_sealed AS "previousHmacKeySealed", cap, allowance
       FROM claimed`,
    values: [
      args.now,
      args.leaseUntil,
      args.claimToken,
      args.limit,
      args.perEndpoint,
      finished.map(([w]) => w),
      finished.map(([, n]) => n),
      mine.map(([w]) => w),
      mine.map(([, n]) => n),
      depths.map(([w]) => w),
      depths.map(([, n]) => n),
    ],
  });
  return rows;
}

/**
 * For webhooks whose queued deliveries this worker may not send yet (other workers held too many at
 * its claim): how many it may have on the wire now, the max in flight less what the others hold now.
 */
export async function allowances(db: Queryable, now: Date, perEndpoint: number, mine: ReadonlyMap<string, number>): Promise<Map<string, number>> {
  const list = [...mine];
  const { rows } = await db.query<{ webhookId: string; allowance: number }>({
    name: 'delivery.allowances',
    text: `SELECT m.webhook_id AS "webhookId", COALESCE(w.max_in_flight, $4) - GREATEST(0, COALESCE(c.n, 0) - m.n) AS allowance
             FROM unnest($1::text[], $2::int[]) AS m(webhook_id, n)
             JOIN webhooks w ON w.id = m.webhook_id
             LEFT JOIN LATERAL (SELECT count(*)::int AS n FROM webhook_deliveries d
                                 WHERE d.webhook_id = m.webhook_id AND d.state = 'Pending' AND d.claim_token IS NOT NULL AND d.next_attempt_at > $3) c ON true`,
    values: [list.map(([w]) => w), list.map(([, n]) => n), now, perEndpoint],
  });
  return new Map(rows.map((r) => [r.webhookId, r.allowance]));
}

/**
 * Gives back deliveries claimed and never sent (a stopping worker's queue): due now, claimed by no one.
 * Only while the claim is still the caller's.
 */
export async function releaseClaims(db: Queryable, now: Date, held: readonly (readonly [string, string])[]): Promise<number> {
  if (held.length === 0) return 0;
  const { rowCount } = await db.query({
    name: 'delivery.releaseClaims',
    text: `UPDATE webhook_deliveries d SET next_attempt_at = $1, claim_token = NULL
             FROM unnest($2::text[], $3::uuid[]) AS h(id, token)
            WHERE d.id = h.id AND d.claim_token = h.token AND d.state = 'Pending'`,
    values: [now, held.map(([id]) => id), held.map(([, token]) => token)],
  });
  return rowCount ?? 0;
}

/**
 * Extends the lease of the deliveries this worker holds (claimed, on the wire or finished and not yet
 * recorded) to `until`, each only while its claim is still this worker's. A worker that dies stops
 * renewing, and its deliveries are due again when the short lease runs out.
 *
 * Rows another transaction has locked are skipped, never waited for: most are being recorded by this
 * worker's own cycle at that moment (and need no lease after it), the rest are renewed at the next
 * tick, well within the lease. Waiting instead deadlocked with the cycle, which locks the same rows
 * in another order: PostgreSQL broke the tie after a second and the cycle was tried again a second
 * later, stalling the worker about two seconds each time.
 */
export async function renewLeases(db: Queryable, until: Date, held: readonly (readonly [string, string])[]): Promise<number> {
  if (held.length === 0) return 0;
  const { rowCount } = await db.query({
    name: 'delivery.renewLeases',
    text: `UPDATE webhook_deliveries d SET next_attempt_at = $1
             FROM (SELECT l.id FROM webhook_deliveries l JOIN unnest($2::text[], $3::uuid[]) AS h(id, token) ON l.id = h.id AND l.claim_token = h.token
                    WHERE l.state = 'Pending' AND l.next_attempt_at < $1
                    FOR UPDATE OF l SKIP LOCKED) k
            WHERE d.id = k.id`,
    values: [until, held.map(([id]) => id), held.map(([, token]) => token)],
  });
  return rowCount ?? 0;
}

/** A finished attempt as the trace reads it back, with the claim it was made under and where it leaves the delivery. */
export interface AttemptRecord extends AttemptRow {
  deliveryId: string;
  webhookId: string;
  claimToken: string;
  state: DeliveryState;
  nextAttemptAt: Date | null;
}

/**
 * Records finished attempts in one statement: each delivery moves to its next state only if this
 * worker's claim still holds (a claim taken over after the lease ran out is not overwritten), and
 * the attempt row is written for exactly those. A failed attempt of a webhook that was disabled or
 * deleted while it was on the wire ends the delivery as Failed instead of scheduling a retry (§Webhooks).
 * Returns the delivery ids recorded.
 */
export async function recordAttempts(db: Queryable, now: Date, records: readonly AttemptRecord[]): Promise<string[]> {
  if (records.length === 0) return [];
  const { rows } = await db.query<{ id: string }>({
    name: 'delivery.recordAttempts',
    text: `WITH r AS (
       -- One JSON parameter: a dozen array parameters cost the worker more to encode than the
       -- statement cost PostgreSQL (docs/performance.md).
       SELECT * FROM json_to_recordset($1::json)
         AS r("deliveryId" text, "claimToken" uuid, "attemptNumber" int, "correlationId" uuid, "sentAt" timestamptz, "responseStatus" int,
              "responseBody" text, "durationMs" int, "errorKind" text, "errorDetail" text, state text, "nextAttemptAt" timestamptz, "webhookId" text)
     ), gone AS (
       -- Webhooks disabled or deleted while their attempts were on the wire, found by primary key
       -- (a join of the deliveries to webhooks let the planner scan a webhook's whole history).
       SELECT w.id FROM webhooks w WHERE w.id IN (SELECT "webhookId" FROM r) AND NOT (w.enabled AND w.deleted_at IS NULL)
     ), u AS (
       UPDATE webhook_deliveries d
          SET state = CASE WHEN r.state = 'Pending' AND gone.id IS NOT NULL THEN 'Failed' ELSE r.state END,
              attempt_count = r."attemptNumber",
              next_attempt_at = CASE WHEN r.state = 'Pending' AND gone.id IS NOT NULL THEN NULL ELSE r."nextAttemptAt" END,
              claim_token = NULL, updated_at = $2
         FROM r LEFT JOIN gone ON gone.id = r."webhookId"
        -- The ids as an array too, so the deliveries are found by primary key: with statistics taken
        -- before a backlog arrived, the planner otherwise read the whole table to join it with r.
        WHERE d.id = ANY (ARRAY(SELECT "deliveryId" FROM r)) AND d.id = r."deliveryId" AND d.claim_token = r."claimToken"
       RETURNING d.id
     ), a AS (
       INSERT INTO webhook_attempts (delivery_id, attempt_number, correlation_id, sent_at, response_status, response_body, duration_ms, error_kind, error_detail)
       SELECT r."deliveryId", r."attemptNumber", r."correlationId", r."sentAt", r."responseStatus", r."responseBody", r."durationMs", r."errorKind", r."errorDetail"
         FROM r JOIN u ON u.id = r."deliveryId"
     ), seen AS (
       SELECT r."webhookId" AS webhook_id, r."sentAt" AS at, r.state FROM r JOIN u ON u.id = r."deliveryId"
     ), last_ok AS (
       SELECT webhook_id, max(at) FILTER (WHERE state = 'Delivered') AS ok_at FROM seen GROUP BY webhook_id
     ), health AS (
       -- Per webhook in this batch: its last success, and the failures after it (the first one's
       -- time, and the deliveries that ended Failed).
       SELECT s.webhook_id, l.ok_at,
              min(s.at) FILTER (WHERE s.state <> 'Delivered' AND (l.ok_at IS NULL OR s.at > l.ok_at)) AS fail_at,
              count(*) FILTER (WHERE s.state = 'Failed' AND (l.ok_at IS NULL OR s.at > l.ok_at))::int AS failed
         FROM seen s JOIN last_ok l ON l.webhook_id = s.webhook_id
        GROUP BY s.webhook_id, l.ok_at
     ), touched AS (
       -- The webhook's row is written only when its health changes: a healthy endpoint's last success
       -- is kept to the minute, so a stream of successes does not rewrite the row every cycle.
       UPDATE webhooks w
          SET last_success_at = GREATEST(w.last_success_at, h.ok_at),
              failing_since = CASE WHEN h.ok_at IS NOT NULL THEN h.fail_at ELSE COALESCE(w.failing_since, h.fail_at) END,
              failed_deliveries = CASE WHEN h.ok_at IS NOT NULL THEN h.failed ELSE w.failed_deliveries + h.failed END
         FROM health h
        WHERE w.id = h.webhook_id
          AND CASE WHEN h.ok_at IS NOT NULL
                   THEN w.failing_since IS NOT NULL OR w.failed_deliveries > 0 OR h.fail_at IS NOT NULL
                        OR w.last_success_at IS NULL OR w.last_success_at < h.ok_at - interval '1 minute'
                   ELSE w.failing_since IS NULL OR h.failed > 0 END
     )
     SELECT id FROM u`,
    values: [JSON.stringify(records), now],
  });
  return rows.map((r) => r.id);
}

/**
 * The backlog for the metrics: pending deliveries due now and not claimed, and the oldest due time.
 * Reads the due index up to now only: its size is the backlog, never the history. The deliveries of
 * fifo webhooks are not in it: they wait in their webhook's order, one at a time.
 */
export async function dueBacklog(db: Queryable, now: Date): Promise<{ due: number; oldestDueAt: Date | null }> {
  const { rows } = await db.query<{ due: number; oldest: Date | null }>(
    `SELECT count(*)::int AS due, min(next_attempt_at) AS oldest FROM webhook_deliveries
      WHERE state = 'Pending' AND NOT via_listener AND NOT ordered AND next_attempt_at <= $1 AND claim_token IS NULL`,
    [now],
  );
  return { due: rows[0]?.due ?? 0, oldestDueAt: rows[0]?.oldest ?? null };
}

/**
 * Removes up to `limit` finished deliveries (Delivered or Failed) last changed before `before`, with
 * their attempts, oldest first; returns how many deliveries went. Pending deliveries are never touched.
 */
export async function removeFinishedBefore(db: Queryable, before: Date, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH old AS (
       SELECT id FROM webhook_deliveries WHERE state <> 'Pending' AND updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED
     ), attempts AS (
       DELETE FROM webhook_attempts a USING old WHERE a.delivery_id = old.id
     ), gone AS (
       DELETE FROM webhook_deliveries d USING old WHERE d.id = old.id RETURNING 1
     )
     SELECT count(*)::int AS n FROM gone`,
    [before, limit],
  );
  return rows[0]?.n ?? 0;
}
