import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { keysetPage, type Keyset } from '../../db/keyset.js';
import { readOne, type Read } from '../../db/together.js';
import * as sql from './sql.js';

// Authorisations that wait for capture, and when they expire (docs/api.md, Authorisations expire). A
// payment authorised with manual capture or as a pre-authorisation holds the shopper's money for
// `authorisationExpiryDays` from the moment it was authorised; after that what was not captured is
// released and can no longer be captured or adjusted. The expiry is computed from the payment's
// time and the clock, never stored: nothing has to run for it to happen, and a setting changed later
// applies to every payment at once. No event is sent when one expires (the merchant's own clock
// knows as much as ours does); the portal's overview warns a day ahead and the metrics show the age of
// the oldest (docs/metrics.md).

export interface ExpiryDeps {
  clock: Clock;
  config: Pick<Config, 'authorisationExpiryDays'>;
}

const DAY_MS = 86_400_000;

/** When an authorisation made at `authorisedAt` expires. */
export function expiresAt(config: ExpiryDeps['config'], authorisedAt: Date): Date {
  return new Date(authorisedAt.getTime() + config.authorisationExpiryDays * DAY_MS);
}

/** Whether it has expired by `now`: at its expiry time it has. */
export function hasExpired(config: ExpiryDeps['config'], authorisedAt: Date, now: Date): boolean {
  return expiresAt(config, authorisedAt).getTime() <= now.getTime();
}

/** The oldest moment an authorisation still waiting can have been made after. */
function notBefore(deps: ExpiryDeps, now: Date): Date {
  return new Date(now.getTime() - deps.config.authorisationExpiryDays * DAY_MS);
}

/** How far ahead the overview and the list warn of an expiry. */
export const EXPIRES_SOON_MS = DAY_MS;

export type WaitingTotals = sql.WaitingTotalsRow;

/** Every merchant's waiting authorisations per currency: count, amount, and the oldest (the metrics' gauges, read at scrape time). */
export async function waitingTotals(deps: ExpiryDeps & { db: Database }): Promise<WaitingTotals[]> {
  return sql.waitingTotals(deps.db.pool, notBefore(deps, deps.clock.now()));
}

export type MerchantWaiting = sql.MerchantWaitingRow;

/** The merchant's waiting authorisations per currency, and how many of them expire within a day (the portal's overview), as a read that can share a statement. */
export function merchantWaitingRead(deps: ExpiryDeps, merchantId: string): Read<MerchantWaiting[]> {
  const from = notBefore(deps, deps.clock.now());
  return sql.merchantWaiting(merchantId, from, new Date(from.getTime() + EXPIRES_SOON_MS));
}

export async function merchantWaiting(deps: ExpiryDeps & { db: Database }, merchantId: string): Promise<MerchantWaiting[]> {
  return readOne(deps.db.pool, merchantWaitingRead(deps, merchantId));
}

export interface WaitingAuthorisation extends sql.WaitingRow {
  expiresAt: Date;
}

/**
 * A page of the merchant's waiting authorisations, newest first, each with its expiry; `soon` lists
 * only those that expire within a day.
 */
export async function waitingAuthorisations(
  deps: ExpiryDeps & { db: Database },
  merchantId: string,
  soon: boolean,
  keyset: Keyset | null,
  limit: number,
): Promise<{ authorisations: WaitingAuthorisation[]; older: string | null; newer: string | null }> {
  const from = notBefore(deps, deps.clock.now());
  const madeBy = soon ? new Date(from.getTime() + EXPIRES_SOON_MS) : null;
  const rows = await sql.waitingPage(deps.db.pool, merchantId, from, madeBy, keyset, limit + 1);
  const page = keysetPage(rows, limit, keyset);
  return {
    authorisations: page.rows.map((r) => ({ ...r, expiresAt: expiresAt(deps.config, r.authorisedAt) })),
    older: page.older,
    newer: page.newer,
  };
}
