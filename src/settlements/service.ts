import type { Operation } from '../actor.js';
import { recordAudit } from '../audit/service.js';
import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { merchantExists } from '../accounts/service.js';
import { notFound, validationError, type FieldError } from '../errors.js';
import { prefixedId } from '../ids.js';
import { CURRENCIES } from '../paymentLinks/schemas.js';
import { moneyMovements, type MoneyMovement } from '../payments/modifications/service.js';
import { DEFAULT_FEE, cutoffAfter, cutoffAtOrBefore, feeOf, type Fee } from './rules.js';
import type { Batch, Line } from './schemas.js';
import * as sql from './sql.js';

// Settlements (docs/api.md, Settlements). At each daily cut-off every capture and refund booked before it
// and not yet settled goes into one batch per merchant and currency, with its fee; the captures and
// refunds are read through the payments module's service. Runs take the schedule row first (FOR UPDATE),
// so one runs at a time over all processes, and the UNIQUE payfac_reference of a line keeps each capture
// and refund in exactly one batch even so.

type Deps = { db: Database; clock: Clock };

/**
 * How far before the last cut-off a run looks again for a capture or refund that is not settled: one
 * booked just before a cut-off but committed just after the run that passed it is settled by the next.
 */
const LOOK_BACK_MS = 86_400_000;

// ---------------------------------------------------------------- fees

export interface FeeSetting extends Fee {
  currency: string;
  /** The percentage as the operator gives it: "1.50". */
  percent: string;
}

const percentText = (bp: number): string => (bp / 100).toFixed(2);

/** The merchant's fees by currency; `default` is what every other currency costs. */
export async function feeSettingsOf(deps: { db: Database }, merchantId: string): Promise<{ merchantId: string; fees: FeeSetting[]; default: FeeSetting }> {
  if (!(await merchantExists(deps.db, merchantId))) throw notFound('merchant');
  const rows = await sql.feesOf(deps.db.pool, merchantId);
  return {
    merchantId,
    fees: rows.map((r) => ({ currency: r.currency, percentBp: r.percentBp, percent: percentText(r.percentBp), fixedAmount: r.fixedAmount })),
    default: { currency: '*', ...DEFAULT_FEE, percent: percentText(DEFAULT_FEE.percentBp) },
  };
}

/**
 * Sets a merchant's fees in one currency (the operator's `paylinks merchant fees`): percent from 0 to 100
 * with at most two decimals, a fixed amount in minor units (for ISK ending in 00). Every bad field at once.
 */
export async function setFee(
  deps: Operation,
  merchantId: string,
  input: { currency?: unknown; percent?: unknown; fixedAmount?: unknown },
): Promise<FeeSetting> {
  const errors: FieldError[] = [];
  const currency = typeof input.currency === 'string' ? input.currency.toUpperCase() : '';
  if (!(CURRENCIES as readonly string[]).includes(currency))
    errors.push({ field: 'currency', code: 'UNKNOWN_CURRENCY', message: `must be one of ${CURRENCIES.join(', ')}` });
  const percent = typeof input.percent === 'number' ? String(input.percent) : typeof input.percent === 'string' ? input.percent.trim() : '';
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(percent);
  const bp = m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : NaN;
  if (!(bp >= 0 && bp <= 10_000))
    errors.push({ field: 'percent', code: 'INVALID_PERCENT', message: 'must be a percentage from 0 to 100 with at most two decimals, e.g. 1.5' });
  const fixed = typeof input.fixedAmount === 'string' && /^\d+$/.test(input.fixedAmount) ? Number(input.fixedAmount) : input.fixedAmount;
  if (typeof fixed !== 'number' || !Number.isInteger(fixed) || fixed < 0 || fixed > 1_000_000_000) {
    errors.push({ field: 'fixedAmount', code: 'INVALID_AMOUNT', message: 'must be a whole number of minor units from 0 to 1,000,000,000' });
  } else if (currency === 'ISK' && fixed % 100 !== 0) {
    errors.push({ field: 'fixedAmount', code: 'NOT_MULTIPLE_OF_100', message: 'must end in 00 for ISK' });
  }
  if (errors.length > 0) throw validationError(errors);
  if (!(await merchantExists(deps.db, merchantId))) throw notFound('merchant');
  const fixedAmount = fixed as number;
  await withTransaction(deps.db, async (tx) => {
    await sql.upsertFee(tx, merchantId, { currency, percentBp: bp, fixedAmount, updatedAt: deps.clock.now() });
    await recordAudit(tx, deps, { merchantId, action: 'fee.update', target: currency, details: { percent: percentText(bp), fixedAmount } });
  });
  return { currency, percentBp: bp, percent: percentText(bp), fixedAmount };
}

// ---------------------------------------------------------------- settling

function batchView(b: sql.BatchRow): Batch {
  return {
    settlementId: b.settlementId,
    currency: b.currency,
    cutoffAt: b.cutoffAt.toISOString(),
    grossAmount: b.grossAmount,
    feeAmount: b.feeAmount,
    netAmount: b.netAmount,
    lineCount: b.lineCount,
  };
}

/** The batches of the captures and refunds not yet settled among these, each batch with cut-off `cutoffAt`. */
async function settle(tx: Queryable, clock: Clock, movements: readonly MoneyMovement[], cutoffAt: Date): Promise<Batch[]> {
  const settled = await sql.settledAmong(
    tx,
    movements.map((m) => m.payfacReference),
  );
  const groups = new Map<string, MoneyMovement[]>();
  for (const m of movements) {
    if (settled.has(m.payfacReference)) continue;
    const key = `${m.merchantId}\u0000${m.currency}`;
    const group = groups.get(key);
    if (group) group.push(m);
    else groups.set(key, [m]);
  }
  const fees = new Map<string, Map<string, Fee>>();
  const batches: Batch[] = [];
  for (const group of groups.values()) {
    const { merchantId, currency } = group[0] as MoneyMovement;
    let merchantFees = fees.get(merchantId);
    if (!merchantFees) {
      merchantFees = new Map((await sql.feesOf(tx, merchantId)).map((f) => [f.currency, f]));
      fees.set(merchantId, merchantFees);
    }
    const fee = merchantFees.get(currency) ?? DEFAULT_FEE;
    const lines: sql.LineRow[] = group.map((m) => ({
      payfacReference: m.payfacReference,
      originalPayfacReference: m.originalPayfacReference,
      type: m.type,
      amount: m.type === 'Capture' ? m.amount : -m.amount,
      fee: feeOf(m.type, m.amount, currency, fee),
      bookedAt: m.bookedAt,
    }));
    const grossAmount = lines.reduce((s, l) => s + l.amount, 0);
    const feeAmount = lines.reduce((s, l) => s + l.fee, 0);
    const batch: sql.BatchRow = {
      settlementId: prefixedId('stl'),
      merchantId,
      currency,
      cutoffAt,
      grossAmount,
      feeAmount,
      netAmount: grossAmount - feeAmount,
      lineCount: lines.length,
      createdAt: clock.now(),
    };
    await sql.insertBatch(tx, batch, lines);
    batches.push(batchView(batch));
  }
  return batches;
}

/**
 * The worker's pass: settles every daily cut-off that has come (by the injected clock) since the last
 * one settled, each in its own batches. Another process running one already: nothing, at once. The
 * first run of a database settles everything before the latest cut-off in one go.
 */
export async function runDueCutoffs(deps: Deps, cutoffMinutes: number): Promise<{ cutoffs: Date[]; batches: Batch[] }> {
  return withTransaction(deps.db, async (tx) => {
    const schedule = await sql.lockSchedule(tx, true);
    const done = { cutoffs: [] as Date[], batches: [] as Batch[] };
    if (!schedule) return done;
    const now = deps.clock.now();
    let last = schedule.settledUntil;
    for (
      let target = last === null ? cutoffAtOrBefore(now, cutoffMinutes) : cutoffAfter(last, cutoffMinutes);
      target <= now;
      target = cutoffAfter(target, cutoffMinutes)
    ) {
      const from = last === null ? null : new Date(last.getTime() - LOOK_BACK_MS);
      const movements = await moneyMovements(tx, { merchantId: null, from, until: target });
      done.batches.push(...(await settle(tx, deps.clock, movements, target)));
      done.cutoffs.push(target);
      last = target;
    }
    if (last !== schedule.settledUntil && last !== null) await sql.setSettledUntil(tx, last);
    return done;
  });
}

/** The sandbox's run: everything the merchant captured or refunded until now and not yet settled, in batches cut off now. */
export async function runSandboxSettlement(deps: Operation, merchantId: string): Promise<Batch[]> {
  return withTransaction(deps.db, async (tx) => {
    await sql.lockSchedule(tx, false);
    // Until the next microsecond, so that what was booked at this very instant is in.
    const now = deps.clock.now();
    const movements = await moneyMovements(tx, { merchantId, from: null, until: new Date(now.getTime() + 1) });
    const batches = await settle(tx, deps.clock, movements, now);
    await recordAudit(tx, deps, { merchantId, action: 'sandbox.settle', target: null, details: { settlements: batches.map((b) => b.settlementId) } });
    return batches;
  });
}

// ---------------------------------------------------------------- reading

/** One page of the merchant's batches, newest first, and how many there are (paged like the link list). */
export async function listSettlements(
  deps: { db: Database },
  merchantId: string,
  page: number,
  pageSize: number,
): Promise<{ data: Batch[]; totalCount: number }> {
  const { rows, totalCount } = await sql.batchPage(deps.db.pool, merchantId, pageSize, page * pageSize);
  return { data: rows.map(batchView), totalCount };
}

export type SettlementDetails = Batch & { lines: Line[] };

/** A batch of the merchant's with every line; another merchant's is not found. */
export async function getSettlement(deps: { db: Database }, merchantId: string, settlementId: string): Promise<SettlementDetails> {
  const batch = await sql.findBatch(deps.db.pool, merchantId, settlementId);
  if (!batch) throw notFound('settlement');
  const lines = await sql.linesOf(deps.db.pool, settlementId);
  return { ...batchView(batch), lines: lines.map((l) => ({ ...l, bookedAt: l.bookedAt.toISOString() })) };
}
