import type { Queryable } from '../db/database.js';
import * as sql from './sql.js';

// Counters with limits, for what must not happen without limit: a wrong password at the portal's
// sign-in (src/users/throttle.ts), a refused promotion code on a pay page (src/checkout/codeThrottle.ts),
// a receipt sent to an address a shopper typed (src/checkout/receiptLimits.ts). Each caller names its
// counters (a key and a limit: so many in a window) for one event; past any limit, every attempt that
// touches that key is refused until the limit's window ends. A counter whose window has ended starts
// again at one with the next event.

/** So many events (failures, sends) within a window of so many milliseconds. */
export interface Limit {
  failures: number;
  windowMs: number;
}

/** One counter an attempt touches: its key (namespaced by the caller) and the limit it is held to. */
export interface Counter {
  key: string;
  limit: Limit;
}

/** Counters older than this count for nothing under any limit in the project (the longest window is a day). */
const STALE_AFTER_MS = 2 * 24 * 3_600_000;
/** How many stale counters one counted failure removes: enough to keep the table at its live size. */
const PRUNE_PER_FAILURE = 20;

/** Seconds until attempts under these counters are taken again; 0 when they are now. */
export async function lockedFor(db: Queryable, now: Date, counters: readonly Counter[]): Promise<number> {
  const found = new Map(
    (
      await sql.findCounters(
        db,
        counters.map((c) => c.key),
      )
    ).map((f) => [f.throttleKey, f]),
  );
  let wait = 0;
  for (const { key, limit } of counters) {
    const f = found.get(key);
    const endsAt = f ? f.windowStartedAt.getTime() + limit.windowMs : 0;
    if (f && f.failures >= limit.failures && endsAt > now.getTime()) wait = Math.max(wait, Math.ceil((endsAt - now.getTime()) / 1000));
  }
  return wait;
}

/** Counts one event on each counter (a counter past its window starts again), and removes a few long-dead ones. */
export async function count(db: Queryable, now: Date, counters: readonly Counter[]): Promise<void> {
  await sql.addFailures(
    db,
    counters.map(({ key, limit }) => ({ key, windowStart: new Date(now.getTime() - limit.windowMs) })),
    now,
  );
  await sql.deleteStale(db, new Date(now.getTime() - STALE_AFTER_MS), PRUNE_PER_FAILURE);
}

/** Starts these counters again (the sign-in's right password clears the account's own). */
export async function clearCounters(db: Queryable, keys: readonly string[]): Promise<void> {
  await sql.deleteCounters(db, keys);
}
