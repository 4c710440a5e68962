import type { PoolClient } from 'pg';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { withTransaction } from '../../db/database.js';
import { newUuid } from '../../ids.js';
import { allowances, claimDueDeliveries, LOCK_CLAIMS_SQL, recordAttempts, releaseClaims, type AttemptRecord, type ClaimedRow } from './sql.js';

// Claiming (docs/style.md, Claims, leases and one schedule): due deliveries in batches, FOR UPDATE SKIP LOCKED, under a lease.
//
// Claims from every worker are serialised by a transaction-scoped advisory lock. A claim is one short
// statement (a few ms for a batch), so this costs little, and it makes the per-endpoint limit exact
// across any number of processes: each claim counts the attempts other workers hold in flight
// after the previous claim committed. SKIP LOCKED still keeps claims off rows that a redelivery,
// a sandbox advance or an attempt being recorded has locked.

interface Claim {
  token: string;
  rows: ClaimedRow[];
}

interface ClaimOptions {
  limit: number;
  perEndpoint: number;
  leaseMs: number;
}

/** What one cycle is asked besides recording and claiming. */
interface CycleAsks {
  records: readonly AttemptRecord[];
  /** The caller's finished, unrecorded attempts by webhook (read when the claim runs). */
  finished?: () => ReadonlyMap<string, number>;
  /** The deliveries the caller holds by webhook, those recorded by this cycle left out (read when the claim runs). */
  mine?: () => ReadonlyMap<string, number>;
  /** Per webhook, how many deliveries the caller may queue beside its slots (at least its max in flight). */
  depths?: ReadonlyMap<string, number>;
  /** Claimed deliveries never sent, given back (a stopping worker's queue): [id, claim token]. */
  release?: readonly (readonly [string, string])[];
  /** Webhooks whose allowance to read again (queued deliveries held back by other workers' holdings). */
  refresh?: () => ReadonlyMap<string, number>;
}

/**
 * How many due rows a claim of `limit` reads: four times its limit, in steps of 400. The bound is in
 * the statement's text (claimDueDeliveries), so each bound is a statement of its own, planned anew for
 * its first five runs on a connection: a worker's claims, whose limits vary with its free places
 * (up to its batch of 200), read 400 or 800 and share two statements.
 */
export function scanFor(limit: number): number {
  return 400 * Math.max(1, Math.ceil(limit / 100));
}

/** What a cycle did: attempts recorded, deliveries given back (those still the caller's claim), the claim, allowances read. */
interface CycleResult {
  recorded: number;
  released: number;
  claim: Claim;
  allowances: Map<string, number>;
}

/**
 * One worker cycle in one transaction: record finished attempts, give back what is released, claim
 * up to `limit` more, and read the allowances asked for. The attempts recorded here free their
 * endpoint's places for the claim that follows.
 */
export async function claimAndRecord(db: Database, clock: Clock, opts: ClaimOptions & CycleAsks): Promise<CycleResult> {
  const token = newUuid();
  const now = clock.now();
  const cycle = async (tx: PoolClient): Promise<CycleResult> => {
    const recorded = opts.records.length > 0 ? (await recordAttempts(tx, now, opts.records)).length : 0;
    const released = opts.release && opts.release.length > 0 ? await releaseClaims(tx, now, opts.release) : 0;
    const rows =
      opts.limit > 0
        ? await claimDueDeliveries(tx, {
            now,
            leaseUntil: new Date(now.getTime() + opts.leaseMs),
            claimToken: token,
            limit: opts.limit,
            perEndpoint: opts.perEndpoint,
            scan: scanFor(opts.limit),
            ...(opts.finished ? { finished: opts.finished() } : {}),
            ...(opts.mine ? { mine: opts.mine() } : {}),
            ...(opts.depths ? { depths: opts.depths } : {}),
          })
        : [];
    const refresh = opts.refresh?.();
    const fresh = refresh && refresh.size > 0 ? await allowances(tx, now, opts.perEndpoint, refresh) : new Map<string, number>();
    return { recorded, released, claim: { token, rows }, allowances: fresh };
  };
  // The claim lock is taken in BEGIN's own round trip: a cycle is BEGIN+lock, record, claim, COMMIT.
  return withTransaction(db, cycle, { withBegin: LOCK_CLAIMS_SQL });
}
