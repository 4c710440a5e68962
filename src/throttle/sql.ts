import type { Queryable } from '../db/database.js';

// Failure counters (migration 0041): one row per key, counting failures since its window started.

export interface CounterRow {
  throttleKey: string;
  failures: number;
  windowStartedAt: Date;
}

export async function findCounters(db: Queryable, keys: readonly string[]): Promise<CounterRow[]> {
  const { rows } = await db.query<CounterRow>(
    'SELECT throttle_key AS "throttleKey", failures, window_started_at AS "windowStartedAt" FROM failure_counters WHERE throttle_key = ANY($1::text[])',
    [keys],
  );
  return rows;
}

/**
 * Counts one for each key, in one statement (concurrent counts of a key are serialised by its row);
 * a counter whose window started at or before its windowStart starts again at one. Answers each
 * counter as the count left it. The rows are taken in key order, as takeBack takes them, so that two
 * attempts touching the same counters never wait for each other in a circle.
 */
export async function addFailures(db: Queryable, counts: readonly { key: string; windowStart: Date }[], now: Date): Promise<CounterRow[]> {
  const { rows } = await db.query<CounterRow>(
    `WITH c (k, window_start) AS (SELECT * FROM unnest($1::text[], $2::timestamptz[]))
     INSERT INTO failure_counters AS f (throttle_key, failures, window_started_at)
     SELECT c.k, 1, $3::timestamptz FROM c ORDER BY c.k
     ON CONFLICT (throttle_key) DO UPDATE SET (failures, window_started_at) = (
       SELECT CASE WHEN f.window_started_at <= c.window_start THEN 1 ELSE f.failures + 1 END,
              CASE WHEN f.window_started_at <= c.window_start THEN $3 ELSE f.window_started_at END
         FROM c WHERE c.k = f.throttle_key)
     RETURNING throttle_key AS "throttleKey", failures, window_started_at AS "windowStartedAt"`,
    [counts.map((c) => c.key), counts.map((c) => c.windowStart), now],
  );
  return rows;
}

/** Takes back one count of each key (never below zero), its rows locked in key order as addFailures takes them. */
export async function takeBack(db: Queryable, keys: readonly string[]): Promise<void> {
  await db.query(
    `UPDATE failure_counters f SET failures = f.failures - 1
       FROM (SELECT throttle_key FROM failure_counters WHERE throttle_key = ANY($1::text[]) AND failures > 0 ORDER BY throttle_key FOR UPDATE) l
      WHERE f.throttle_key = l.throttle_key`,
    [keys],
  );
}

/**
 * Removes up to `limit` counters whose window started before `before` (they count for nothing now).
 * Rows another transaction holds are skipped, never waited for: a count made inside a payment's
 * transaction must not queue behind another's pruning.
 */
export async function deleteStale(db: Queryable, before: Date, limit: number): Promise<void> {
  await db.query(
    `DELETE FROM failure_counters WHERE throttle_key IN (
       SELECT throttle_key FROM failure_counters WHERE window_started_at < $1 ORDER BY window_started_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [before, limit],
  );
}

export async function deleteCounters(db: Queryable, keys: readonly string[]): Promise<void> {
  await db.query('DELETE FROM failure_counters WHERE throttle_key = ANY($1::text[])', [keys]);
}
