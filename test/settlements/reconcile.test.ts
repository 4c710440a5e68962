import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { reconcile } from '../../src/settlements/reconcile.js';
import { getSettlement, listSettlements, runSandboxSettlement } from '../../src/settlements/service.js';
import { SettlementWorker } from '../../src/settlements/worker.js';
import { createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { adjust, capture, paidSession, refund, reverse, testProcessor, type Paid } from '../modifications/helpers.js';

// Reconciliation as an invariant (docs/api.md, Settlements): a property test drives random payments, captures,
// adjustments, refunds and reversals across several cut-offs and checks the batches against its own
// model of what moved: every capture and refund in exactly one batch with its amount, each batch's
// totals the sums of its lines, each cut-off's lines the captures less refunds booked since the one
// before. Then `reconcile` must find nothing, and must find what is broken on purpose.

const DAY = 86_400_000;
/** Not midnight: the cut-off is configurable, and a time of day catches arithmetic that assumes 00:00. */
const CUTOFF = 18 * 60 + 30;

let ctx: TestContext;
let processor: ModificationProcessor;
let worker: SettlementWorker;
const deps = () => asOperator(ctx);
/** What the second test breaks on purpose, for the third to put right. */
const broken = { line: '', batch: '' };

beforeAll(async () => {
  ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  ctx.clock.set('2026-05-01T08:00:00.000Z');
  processor = testProcessor(ctx);
  worker = new SettlementWorker({ db: ctx.tdb.db, clock: ctx.clock, cutoffMinutes: CUTOFF });
  await worker.settled();
});
afterAll(async () => {
  await processor.stop();
  await worker.stop();
  await ctx?.close();
});

/** A payment as the model sees it. */
interface Modelled {
  paid: Paid;
  currency: 'EUR' | 'ISK';
  manual: boolean;
  original: number;
  authorised: number;
  /** When it was authorised (the clock's ms): an uncaptured authorisation expires some days after. */
  authorisedAt: number;
  captured: number;
  refunded: number;
  reversed: boolean;
}

/** What moved, as the model expects it to be settled. */
interface Movement {
  reference: string;
  currency: string;
  signed: number;
  bookedAt: number;
}

const frac = fc.double({ min: 0, max: 1, noNaN: true });
const which = fc.nat({ max: 50 });
const Pay = fc.record({ op: fc.constant('pay' as const), manual: fc.boolean(), isk: fc.boolean(), amount: fc.integer({ min: 1, max: 5000 }) });
const Op = fc.oneof(
  { arbitrary: Pay, weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('capture' as const), which, frac }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('adjust' as const), which, frac }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('refund' as const), which, frac }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('reverse' as const), which }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('wait' as const), minutes: fc.integer({ min: 0, max: 36 * 60 }), worker: fc.boolean() }), weight: 3 },
);
/** A few payments first, so that most operations have one to act on. */
const Ops = fc.tuple(fc.array(Pay, { minLength: 1, maxLength: 3 }), fc.array(Op, { minLength: 3, maxLength: 16 })).map(([pays, rest]) => [...pays, ...rest]);

const pick = (x: number, frac: number, span: number): number => x + Math.floor(frac * span);

describe('reconciliation as an invariant', () => {
  it('every capture and refund lands in exactly one batch, and every batch and every cut-off adds up', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(Ops, async (ops) => {
        const runStart = ctx.clock.now().getTime();
        const payments: Modelled[] = [];
        const moved: Movement[] = [];
        const book = (reference: string, p: Modelled, signed: number) =>
          moved.push({ reference, currency: p.currency, signed, bookedAt: ctx.clock.now().getTime() });
        const expired = (p: Modelled): boolean => ctx.clock.now().getTime() >= p.authorisedAt + ctx.config.authorisationExpiryDays * DAY;
        const ok = (r: { status: number; body: Record<string, unknown> }): string => {
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          return r.body.payfacReference as string;
        };
        for (const o of ops) {
          ctx.clock.advance(1000);
          const p = payments.length === 0 || o.op === 'pay' || o.op === 'wait' ? undefined : payments[o.which % payments.length];
          const cur = p ? { currency: p.currency } : {};
          if (o.op === 'pay') {
            const currency = o.isk ? 'ISK' : 'EUR';
            const amount = o.isk ? o.amount * 100 : o.amount * 7;
            const paid = await paidSession(ctx, { currency, amount, ...(o.manual ? { isManualCapture: true } : {}) });
            const m: Modelled = {
              paid,
              currency,
              manual: o.manual,
              original: amount,
              authorised: amount,
              authorisedAt: ctx.clock.now().getTime(),
              captured: 0,
              refunded: 0,
              reversed: false,
            };
            payments.push(m);
            if (!o.manual) {
              m.captured = amount;
              book(paid.payfacReference, m, amount);
            }
          } else if (o.op === 'wait') {
            ctx.clock.advance(o.minutes * 60_000);
            if (o.worker) await worker.settled();
          } else if (!p || p.reversed) {
            continue;
          } else if ((o.op === 'capture' || o.op === 'adjust') && p.manual && p.captured < p.authorised && expired(p)) {
            // The waits took it past its expiry: what was not captured is released, nothing moves.
            const r = o.op === 'capture' ? await capture(ctx, p.paid, 1, cur) : await adjust(ctx, p.paid, Math.max(1, p.captured), cur);
            expect(r.status, JSON.stringify(r.body)).toBe(409);
            expect(r.body.code).toBe('AUTHORISATION_EXPIRED');
          } else if (o.op === 'capture' && p.manual && p.captured < p.authorised) {
            const amount = pick(1, o.frac, p.authorised - p.captured - 1);
            const ref = ok(await capture(ctx, p.paid, amount, cur));
            await processor.settled();
            p.captured += amount;
            book(ref, p, amount);
          } else if (o.op === 'adjust' && p.manual && p.captured < p.authorised) {
            const least = Math.max(1, p.captured);
            const amount = pick(least, o.frac, 2 * p.original - least);
            ok(await adjust(ctx, p.paid, amount, cur));
            await processor.settled();
            p.authorised = amount;
          } else if (o.op === 'refund' && p.captured > p.refunded) {
            const amount = pick(1, o.frac, p.captured - p.refunded - 1);
            const ref = ok(await refund(ctx, p.paid, amount, cur));
            await processor.settled();
            p.refunded += amount;
            book(ref, p, -amount);
          } else if (o.op === 'reverse' && (p.captured === 0 || p.captured > p.refunded)) {
            const ref = ok(await reverse(ctx, p.paid));
            await processor.settled();
            p.reversed = true;
            // Nothing captured: the authorisation is released and no money moves; else what is left is refunded.
            if (p.captured > 0) {
              book(ref, p, -(p.captured - p.refunded));
              p.refunded = p.captured;
            }
          }
        }
        // Past the next cut-off, and the worker catches up on every one that came.
        ctx.clock.advance(DAY + 60_000);
        await worker.settled();

        const { data } = await listSettlements(deps(), ctx.merchant.merchantId, 0, 100);
        const batches = await Promise.all(
          data.filter((b) => new Date(b.cutoffAt).getTime() > runStart).map((b) => getSettlement({ db: ctx.tdb.db }, ctx.merchant.merchantId, b.settlementId)),
        );
        // Every movement in exactly one line, with its amount.
        const lines = batches.flatMap((b) => b.lines.map((l) => ({ ...l, cutoffAt: new Date(b.cutoffAt).getTime(), currency: b.currency })));
        expect(lines.map((l) => l.payfacReference).sort()).toEqual(moved.map((m) => m.reference).sort());
        const byRef = new Map(lines.map((l) => [l.payfacReference, l]));
        for (const m of moved) {
          const line = byRef.get(m.reference);
          expect(line?.amount).toBe(m.signed);
          expect(line?.currency).toBe(m.currency);
          // In the batch of the first cut-off after it was booked.
          expect((line?.cutoffAt ?? 0) > m.bookedAt && (line?.cutoffAt ?? 0) - DAY <= m.bookedAt).toBe(true);
        }
        for (const b of batches) {
          // One batch per currency and cut-off; its totals are the sums of its lines.
          expect(batches.filter((x) => x.currency === b.currency && x.cutoffAt === b.cutoffAt)).toHaveLength(1);
          expect(b.grossAmount).toBe(b.lines.reduce((s, l) => s + l.amount, 0));
          expect(b.feeAmount).toBe(b.lines.reduce((s, l) => s + l.fee, 0));
          expect(b.netAmount).toBe(b.grossAmount - b.feeAmount);
          expect(b.lineCount).toBe(b.lines.length);
          // An ISK fee is whole krónur, so the payout ends in 00 whenever the amounts do.
          if (b.currency === 'ISK') expect(b.feeAmount % 100).toBe(0);
          // The cut-off's lines are the captures less refunds booked since the cut-off before.
          const cut = new Date(b.cutoffAt).getTime();
          const day = moved.filter((m) => m.currency === b.currency && m.bookedAt < cut && m.bookedAt >= cut - DAY);
          expect(b.grossAmount).toBe(day.reduce((s, m) => s + m.signed, 0));
        }
        expect((await reconcile(deps(), CUTOFF, null)).discrepancies).toEqual([]);
      }),
      // No shrinking: every run moves the shared clock on by days, and the hundreds of runs of a shrink
      // took it past the test card's expiry, so the pay page's refusal hid the first failure.
      { numRuns: 20, endOnFailure: true },
    );
  });

  it('finds a capture left incomplete, a capture not settled after two cut-offs and a batch that does not add up', { timeout: 120_000 }, async () => {
    const since = ctx.clock.now();
    expect((await reconcile(deps(), CUTOFF, since)).discrepancies).toEqual([]);
    // A capture requested and never completed: the processor does not run.
    const held = await paidSession(ctx, { isManualCapture: true });
    const stuck = await capture(ctx, held, 5000);
    expect(stuck.status).toBe(200);
    // A capture at once that no cut-off settles: the worker does not run either.
    const unsettled = await paidSession(ctx);
    // One cut-off: the capture is late but not yet missing; the incomplete capture is.
    ctx.clock.advance(DAY);
    const first = await reconcile(deps(), CUTOFF, since);
    expect(first.discrepancies.map((d) => [d.kind, d.reference])).toEqual([['CaptureIncomplete', stuck.body.payfacReference]]);
    // Two cut-offs.
    ctx.clock.advance(DAY);
    const second = await reconcile(deps(), CUTOFF, since);
    expect(second.discrepancies.map((d) => [d.kind, d.reference])).toEqual([
      ['NotSettled', unsettled.payfacReference],
      ['CaptureIncomplete', stuck.body.payfacReference],
    ]);
    expect(second.discrepancies[0]?.detail).toContain('in no batch after two cut-offs');

    // Completed and settled, all is well again.
    await processor.settled();
    const [batch] = await runSandboxSettlement(deps(), ctx.merchant.merchantId);
    expect((await reconcile(deps(), CUTOFF, since)).discrepancies).toEqual([]);

    // A batch whose total was changed behind the service's back, and a line's amount.
    await ctx.tdb.db.pool.query('UPDATE settlement_batches SET gross_amount = gross_amount + 1, net_amount = net_amount + 1 WHERE settlement_id = $1', [
      batch?.settlementId,
    ]);
    await ctx.tdb.db.pool.query('UPDATE settlement_lines SET amount = amount - 100 WHERE payfac_reference = $1', [unsettled.payfacReference]);
    broken.line = unsettled.payfacReference;
    broken.batch = batch?.settlementId ?? '';
    const found = await reconcile(deps(), CUTOFF, since);
    expect(found.discrepancies.map((d) => [d.kind, d.reference])).toEqual([
      ['LineMismatch', unsettled.payfacReference],
      ['BatchTotals', batch?.settlementId],
    ]);
    expect(found.discrepancies[1]?.detail).toMatch(/gross \d+, .* its lines add up to gross \d+/);
  });

  // The built command on the same PostgreSQL database (the embedded one of this suite lives in this process only),
  // with the real clock: what the tests above left broken is months behind it.
  it.runIf(TEST_DB === 'postgres')(
    'paylinks reconcile prints every discrepancy and exits 1, and says all is well when it is',
    { timeout: 120_000 },
    async () => {
      const run = promisify(execFile);
      const bin = join(import.meta.dirname, '../../bin/paylinks.js');
      const env = { PATH: process.env.PATH ?? '', DATABASE_URL: ctx.tdb.url ?? '', PAYLINKS_SETTLEMENT_CUTOFF: '18:30' };
      const failed = await run(process.execPath, [bin, 'reconcile', '--since', '2026-05-01'], { env }).then(
        () => null,
        (e: { code?: number; stdout?: string }) => e,
      );
      expect(failed?.code).toBe(1);
      const lines = (failed?.stdout ?? '').trim().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^LineMismatch  ${ctx.merchant.merchantId}  \\d{16}  capture of \\d+ EUR .*its line says`));
      expect(lines[1]).toMatch(/^BatchTotals .* stl_\S+ {2}batch of EUR/);
      expect(lines.at(-1)).toMatch(/^2 discrepancies \(\d+ captures and refunds checked\)$/);

      // Put right, the same check passes.
      await ctx.tdb.db.pool.query('UPDATE settlement_lines SET amount = amount + 100 WHERE payfac_reference = $1', [broken.line]);
      await ctx.tdb.db.pool.query('UPDATE settlement_batches SET gross_amount = gross_amount - 1, net_amount = net_amount - 1 WHERE settlement_id = $1', [
        broken.batch,
      ]);
      const { stdout } = await run(process.execPath, [bin, 'reconcile', '--json'], { env });
      expect(JSON.parse(stdout)).toMatchObject({ discrepancies: [], movementsChecked: expect.any(Number) });
    },
  );
});
