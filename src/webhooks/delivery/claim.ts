import type { PoolClient } from 'pg';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { withTransaction } from '../../db/database.js';
import { newUuid } from '../../ids.js';
import { claimDueDeliveries, LOCK_CLAIMS_SQL, recordAttempts, type AttemptRecord, type ClaimedRow } from './sql.js';

// Claiming (STYLE habit 5): due deliveries in batches, FOR UPDATE SKIP LOCKED, under a lease.
//
// Claims from every worker are serialised by a transaction-scoped advisory lock. A claim is one short
// statement (a few ms for a batch of 100), so this costs little, and it makes the per-endpoint limit
// exact across any number of processes: each claim counts the attempts other workers hold in flight
// after the previous claim committed. SKIP LOCKED still keeps claims off rows that a redelivery,
// a sandbox advance or an attempt being recorded has locked.

export interface Claim {
  token: string;
  rows: ClaimedRow[];
}

export interface ClaimOptions {
  limit: number;
  perEndpoint: number;
  leaseMs: number;
}

/**
 * One worker cycle in one transaction: record finished attempts, then claim up to `limit` more. The
 * attempts recorded here free their endpoint's slots for the claim that follows.
 */
export async function claimAndRecord(
  db: Database,
  clock: Clock,
  opts: ClaimOptions & { records: readonly AttemptRecord[]; finished?: () => ReadonlyMap<string, number> },
): Promise<{ recorded: number; claim: Claim }> {
  const token = newUuid();
  const now = clock.now();
  const cycle = async (tx: PoolClient): Promise<{ recorded: number; claim: Claim }> => {
    const recorded = opts.records.length > 0 ? (await recordAttempts(tx, now, opts.records)).length : 0;
    const rows =
      opts.limit > 0
        ? await claimDueDeliveries(tx, {
            now,
            leaseUntil: new Date(now.getTime() + opts.leaseMs),
            claimToken: token,
            limit: opts.limit,
            perEndpoint: opts.perEndpoint,
            scan: Math.max(opts.limit * 4, 400),
            ...(opts.finished ? { finished: opts.finished() } : {}),
          })
        : [];
    return { recorded, claim: { token, rows } };
  };
  // The claim lock is taken in BEGIN's own round trip: a cycle is BEGIN+lock, record, claim, COMMIT.
  return withTransaction(db, cycle, { withBegin: LOCK_CLAIMS_SQL });
}
