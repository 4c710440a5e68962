import { isIPv4, isIPv6 } from 'node:net';
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

/**
 * Seconds until the window ends of the longest-lasting counter whose count is past `allowed` of its
 * limit (0: none is). A check before an attempt allows up to one less than the limit (the attempt is
 * yet to be counted); a check of counts that include the attempt allows the limit itself.
 */
function waitOf(rows: readonly sql.CounterRow[], counters: readonly Counter[], now: Date, allowed: (limit: Limit) => number): number {
  const byKey = new Map(rows.map((r) => [r.throttleKey, r]));
  let wait = 0;
  for (const { key, limit } of counters) {
    const r = byKey.get(key);
    const endsAt = r ? r.windowStartedAt.getTime() + limit.windowMs : 0;
    if (r && r.failures > allowed(limit) && endsAt > now.getTime()) wait = Math.max(wait, Math.ceil((endsAt - now.getTime()) / 1000));
  }
  return wait;
}

/** Seconds until attempts under these counters are taken again; 0 when they are now. */
export async function lockedFor(db: Queryable, now: Date, counters: readonly Counter[]): Promise<number> {
  const rows = await sql.findCounters(
    db,
    counters.map((c) => c.key),
  );
  return waitOf(rows, counters, now, (limit) => limit.failures - 1);
}

/** Counts one event on each counter (a counter past its window starts again), and removes a few long-dead ones. */
export async function count(db: Queryable, now: Date, counters: readonly Counter[]): Promise<void> {
  await countAll(db, now, counters);
}

async function countAll(db: Queryable, now: Date, counters: readonly Counter[]): Promise<sql.CounterRow[]> {
  const rows = await sql.addFailures(
    db,
    counters.map(({ key, limit }) => ({ key, windowStart: new Date(now.getTime() - limit.windowMs) })),
    now,
  );
  await sql.deleteStale(db, new Date(now.getTime() - STALE_AFTER_MS), PRUNE_PER_FAILURE);
  return rows;
}

/**
 * Takes a place under every counter for an attempt about to be made, in one statement, so that a
 * burst of attempts cannot all pass a check made before any of them was counted: each counter's row
 * serialises its counts, and an attempt whose count takes any counter past its limit is refused.
 * Refused, its places are given back at once (attempts refused by a limit count toward none); taken,
 * they stay, counting the attempt as a failure, unless the caller gives them back (`giveBack`) when it
 * turns out not to be one. Answers the seconds until attempts are taken again, or 0: taken.
 */
export async function reserve(db: Queryable, now: Date, counters: readonly Counter[]): Promise<number> {
  const wait = waitOf(await countAll(db, now, counters), counters, now, (limit) => limit.failures);
  if (wait > 0) await giveBack(db, counters);
  return wait;
}

/** Gives back the places `reserve` took: the attempt was no failure (a code that applies, the right password). */
export async function giveBack(db: Queryable, counters: readonly Counter[]): Promise<void> {
  await sql.takeBack(
    db,
    counters.map((c) => c.key),
  );
}

/** Starts these counters again (the sign-in's right password clears the account's own). */
export async function clearCounters(db: Queryable, keys: readonly string[]): Promise<void> {
  await sql.deleteCounters(db, keys);
}

/**
 * The network a client's address stands for in a limit: an IPv4 address itself (one written as
 * IPv4-mapped IPv6 too), an IPv6 address its /64, the block one subscriber or one machine is given:
 * counted by the whole address, a guesser with a /64 would have 2^64 addresses to move between.
 */
export function networkOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head = '', tail] = address.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
