import type { Queryable } from '../db/database.js';
import { giveBack, networkOf, reserve, type Counter } from '../throttle/service.js';

// How many promotion codes a pay page takes that turn out not to be usable, and from whom (docs/api.md,
// "Promotion codes"; docs/portal.md). A merchant's codes are words people remember (SUMMER25), so a
// page that answered every guess would, given time, list them all. Every code typed on a link's page
// that is refused counts against four limits; past any of them, the page takes no code from those it
// covers (the right one neither) until the limit's window ends, and says so with a 429. Paying without
// a code is never held back.
//
// The first limit is the one a person mistyping may meet; the others are set far above what the
// shoppers of one link, or behind one shared address, reach by mistyping. The widest is per merchant,
// because the codes are the merchant's: a guesser spread over its links and many addresses meets it.
// It also means such a guesser can stop codes on the merchant's pages for a day; payments go on.

export const CODE_THROTTLE = {
  /** One link from one network address: a shopper mistyping a code. */
  perLinkAndAddress: { failures: 10, windowMs: 15 * 60_000 },
  /** One network address on any of the merchant's links: a guesser moving from link to link. */
  perAddress: { failures: 30, windowMs: 3_600_000 },
  /** One link from any network address: a guesser with many addresses. */
  perLink: { failures: 300, windowMs: 3_600_000 },
  /** All of a merchant's links from any address: the codes are the merchant's. */
  perMerchant: { failures: 1_000, windowMs: 24 * 3_600_000 },
} as const;

/** Where a code is typed: which merchant's codes, on which link, from which network address. */
export interface CodeAttempt {
  merchantId: string;
  link: string;
  address: string;
}

function countersOf(a: CodeAttempt): Counter[] {
  const net = networkOf(a.address);
  return [
    { key: `code-link-address:${a.link}|${net}`, limit: CODE_THROTTLE.perLinkAndAddress },
    { key: `code-address:${a.merchantId}|${net}`, limit: CODE_THROTTLE.perAddress },
    { key: `code-link:${a.link}`, limit: CODE_THROTTLE.perLink },
    { key: `code-merchant:${a.merchantId}`, limit: CODE_THROTTLE.perMerchant },
  ];
}

/**
 * Takes a place for one code about to be looked at, counted as refused until `codeApplied` gives it
 * back (src/throttle/service.ts, reserve: a burst of codes cannot all pass a check made before any of
 * them was counted). Answers the seconds until this page takes codes from this address again, or 0:
 * the code may be looked at.
 */
export function takeCodeAttempt(db: Queryable, now: Date, attempt: CodeAttempt): Promise<number> {
  return reserve(db, now, countersOf(attempt));
}

/** The code looked at applies (or was not looked at for a reason of the shopper's own): its place is given back. */
export function codeApplied(db: Queryable, attempt: CodeAttempt): Promise<void> {
  return giveBack(db, countersOf(attempt));
}
