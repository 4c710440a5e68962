import * as throttle from '../throttle/service.js';
import { networkOf, type Counter } from '../throttle/service.js';
import type { Queryable } from '../db/database.js';

// How many wrong passwords are allowed, and to whom (docs/portal.md, "Signing in"). A wrong password
// on the sign-in page and a wrong current password on the account page count alike.
//
// A lock must slow a guesser without handing anyone a way to shut others out. So the short lock is
// kept per account AND network address: five wrong passwords for alice@ from one address stop that
// address trying alice@ for a while, and alice herself, signing in from elsewhere, never notices.
// A guesser who moves between addresses meets the slow lock, per account over a day, set far above
// what a person mistyping ever reaches. A guesser who tries a few passwords on many accounts from one
// address meets the per-network-address limit, set far above what the people behind one shared
// address (an office, a mobile network) reach by mistyping.

export const THROTTLE = {
  /** One account from one network address: the lock a person mistyping may meet. */
  perAccountAndAddress: { failures: 5, windowMs: 15 * 60_000 },
  /** One account from any network address: a guesser with many addresses. */
  perAccount: { failures: 100, windowMs: 24 * 3_600_000 },
  /** One network address, whatever the account: a guesser trying many accounts. */
  perAddress: { failures: 100, windowMs: 15 * 60_000 },
} as const;

type Limit = keyof typeof THROTTLE;

/** The counters one attempt for this account (its stored address) from this network address touches. */
function countersOf(email: string, client: string, limits: readonly Limit[] = LIMITS): Counter[] {
  const address = networkOf(client);
  const keys: Record<Limit, string> = {
    perAccountAndAddress: `account-address:${email}|${address}`,
    perAccount: `account:${email}`,
    perAddress: `address:${address}`,
  };
  return limits.map((limit) => ({ key: keys[limit], limit: THROTTLE[limit] }));
}

const LIMITS = Object.keys(THROTTLE) as Limit[];

/** The limits of this account alone (not the network address's, which others' failures fill). */
export const ACCOUNT_LIMITS: readonly Limit[] = ['perAccountAndAddress', 'perAccount'];

/** Seconds until attempts for this account from this address are taken again under these limits; 0 when they are now. */
export function lockedFor(db: Queryable, now: Date, email: string, address: string, limits: readonly Limit[] = LIMITS): Promise<number> {
  return throttle.lockedFor(db, now, countersOf(email, address, limits));
}

/**
 * Takes a place for one sign-in attempt of this account from this address, counted as a wrong
 * password until `signedIn` gives it back: counted before the password is checked, so that a burst of
 * guesses cannot all pass a check made before any was counted (src/throttle/service.ts, reserve).
 * Answers the seconds until attempts are taken again, or 0: the password may be checked.
 */
export function takeSignInAttempt(db: Queryable, now: Date, email: string, address: string): Promise<number> {
  return throttle.reserve(db, now, countersOf(email, address));
}

/** The right password: the account's own counters start again, and the network address's place is given back. */
export async function signedIn(db: Queryable, email: string, address: string): Promise<void> {
  await clearAccountFailures(db, email, address);
  await throttle.giveBack(db, countersOf(email, address, ['perAddress']));
}

/** Counts one wrong password for this account from this address (a counter past its window starts again). */
export function countFailure(db: Queryable, now: Date, email: string, address: string): Promise<void> {
  return throttle.count(db, now, countersOf(email, address));
}

/** The right password: the account's own counters start again (the network address's does not). */
export function clearAccountFailures(db: Queryable, email: string, address: string): Promise<void> {
  return throttle.clearCounters(
    db,
    countersOf(email, address, ACCOUNT_LIMITS).map((c) => c.key),
  );
}
