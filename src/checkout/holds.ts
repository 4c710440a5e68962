import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import { prefixedId } from '../ids.js';
import { deleteExpiredHolds, deleteHold, insertHold, liveHolds } from './sql.js';

// The places a payment holds on its link or session (and a use of its promotion code) while the
// acquirer answers it, with no transaction open (./shopper.ts, pay): a cap counts what is sold and
// what is held by payments in flight, so it is never passed, and nothing waits on a lock meanwhile.

/**
 * How long a place stays held for a payment while the acquirer answers: far beyond any answer (an
 * adapter gives up on a call long before), so that a live payment never loses its place; a hold left
 * by a process that died frees its place after this.
 */
export const HOLD_MS = 5 * 60_000;

/**
 * Holds a place on the locked link or session for one payment, and a use of its code, until `now` +
 * HOLD_MS; counted against each cap with what is already sold (redeemed) and the other live holds.
 * `placesLeft` and `usesLeft` are what the caps leave before the holds (null: no cap).
 */
export async function holdPlace(
  tx: Queryable,
  c: { kind: 'link' | 'session'; reference: string; placesLeft: number | null },
  promotionCodeId: string | null,
  usesLeft: number | null,
  now: Date,
): Promise<string | 'full' | 'codeUsedUp'> {
  const held = await liveHolds(tx, { kind: c.kind, reference: c.reference }, promotionCodeId, now);
  if (c.placesLeft !== null && held.onTarget >= c.placesLeft) return 'full';
  if (usesLeft !== null && held.onCode >= usesLeft) return 'codeUsedUp';
  const id = prefixedId('hold');
  await insertHold(tx, {
    id,
    targetKind: c.kind,
    targetReference: c.reference,
    promotionCodeId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + HOLD_MS),
  });
  return id;
}

/** The acquirer's answer, asked with no transaction open; a call that fails gives its place back at once. */
export async function askAcquirer<T>(db: Database, holdId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    await deleteHold(db.pool, holdId).catch(() => undefined);
    throw err;
  }
}

/** Removes the holds that have expired (they count no more already): the upkeep's, now and then. */
export async function sweepHolds(deps: { db: Database; clock: Clock }): Promise<number> {
  let removed = 0;
  for (;;) {
    const n = await deleteExpiredHolds(deps.db.pool, deps.clock.now(), 1000);
    removed += n;
    if (n < 1000) return removed;
  }
}
