import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { capturesStillReceived, moneyMovements } from '../payments/modifications/service.js';
import { cutoffAtOrBefore } from './rules.js';
import * as sql from './sql.js';

// Reconciliation (docs/api.md, Settlements; `paylinks reconcile`): the invariants of settlement, checked on
// the live database. Every capture and refund is in exactly one batch (the line's primary key makes
// "at most one"; this finds "none" once two cut-offs have passed), with the amount that moved and in a
// batch cut off after it was booked, so that a day's lines add up to the day's captures less refunds;
// every batch's totals are the sums of its lines; and no capture the acquirer was asked for is left
// incomplete across a cut-off.

export type DiscrepancyKind = 'NotSettled' | 'CaptureIncomplete' | 'BatchTotals' | 'LineMismatch';

export interface Discrepancy {
  kind: DiscrepancyKind;
  merchantId: string | null;
  /** The capture's, refund's or batch's own reference. */
  reference: string;
  detail: string;
}

export interface Reconciliation {
  /** The instant the checks were made at (the clock's). */
  checkedAt: Date;
  movementsChecked: number;
  discrepancies: Discrepancy[];
}

const DAY_MS = 86_400_000;

/**
 * Checks everything booked (or requested, or cut off) from `since` on (null: from the first). A capture or
 * refund counts as not settled once two cut-offs have passed since it was booked: the first may have
 * come while its transaction was still committing, the second settles it.
 */
export async function reconcile(deps: { db: Database; clock: Clock }, cutoffMinutes: number, since: Date | null): Promise<Reconciliation> {
  const now = deps.clock.now();
  const lastCutoff = cutoffAtOrBefore(now, cutoffMinutes);
  const beforeTwoCutoffs = new Date(lastCutoff.getTime() - DAY_MS);
  const discrepancies: Discrepancy[] = [];

  const movements = await moneyMovements(deps.db.pool, { merchantId: null, from: since, until: now });
  const settled = new Map<string, { settlementId: string; cutoffAt: Date; amount: number; merchantId: string; currency: string }>();
  for (const l of await sql.settledLinesAmong(
    deps.db.pool,
    movements.map((m) => m.payfacReference),
  ))
    settled.set(l.payfacReference, l);
  for (const m of movements) {
    const line = settled.get(m.payfacReference);
    const signed = m.type === 'Capture' ? m.amount : -m.amount;
    const what = `${m.type.toLowerCase()} of ${m.amount} ${m.currency} of payment ${m.originalPayfacReference}, booked ${m.bookedAt.toISOString()}`;
    if (!line) {
      if (m.bookedAt < beforeTwoCutoffs) {
        discrepancies.push({ kind: 'NotSettled', merchantId: m.merchantId, reference: m.payfacReference, detail: `${what}: in no batch after two cut-offs` });
      }
      continue;
    }
    const wrong: string[] = [];
    if (line.amount !== signed) wrong.push(`its line says ${line.amount}`);
    if (line.merchantId !== m.merchantId || line.currency !== m.currency) wrong.push(`its batch is ${line.merchantId}'s in ${line.currency}`);
    if (line.cutoffAt < m.bookedAt) wrong.push(`its batch was cut off before, at ${line.cutoffAt.toISOString()}`);
    if (wrong.length > 0) {
      discrepancies.push({
        kind: 'LineMismatch',
        merchantId: m.merchantId,
        reference: m.payfacReference,
        detail: `${what}: ${wrong.join('; ')} (${line.settlementId})`,
      });
    }
  }

  for (const c of await capturesStillReceived(deps, lastCutoff)) {
    if (since !== null && c.createdAt < since) continue;
    discrepancies.push({
      kind: 'CaptureIncomplete',
      merchantId: c.merchantId,
      reference: c.payfacReference,
      detail: `capture of ${c.amount} ${c.currency} of payment ${c.originalPayfacReference}, requested ${c.createdAt.toISOString()}: never completed by the acquirer`,
    });
  }

  for (const b of await sql.batchesNotAddingUp(deps.db.pool, since)) {
    discrepancies.push({
      kind: 'BatchTotals',
      merchantId: b.merchantId,
      reference: b.settlementId,
      detail:
        `batch of ${b.currency} cut off ${b.cutoffAt.toISOString()}: gross ${b.grossAmount}, fees ${b.feeAmount}, net ${b.netAmount}, ${b.lineCount} lines; ` +
        `its lines add up to gross ${b.linesGross}, fees ${b.linesFee}, ${b.linesCount} lines`,
    });
  }
  return { checkedAt: now, movementsChecked: movements.length, discrepancies };
}
