import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/accounts/service.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { runSandboxSettlement, setFee } from '../../src/settlements/service.js';
import { SettlementWorker } from '../../src/settlements/worker.js';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { capture, paidSession, refund, reverse, testProcessor } from '../modifications/helpers.js';

// Settlements (docs/api.md, Settlements): the daily cut-off settles every capture and refund of the day in
// one batch per merchant and currency, with the merchant's fees; the API lists batches, shows one with
// its lines and as CSV; the sandbox settles on request.

let ctx: TestContext;
let processor: ModificationProcessor;
let worker: SettlementWorker;

beforeAll(async () => {
  ctx = await createTestContext();
  // 2026-03-10 09:00 UTC; the cut-off is the default, 00:00 UTC.
  ctx.clock.set('2026-03-10T09:00:00.000Z');
  processor = testProcessor(ctx);
  worker = new SettlementWorker({ db: ctx.tdb.db, clock: ctx.clock, cutoffMinutes: ctx.config.settlementCutoffMinutes });
});
afterAll(async () => {
  await processor.stop();
  await worker.stop();
  await ctx?.close();
});

const manual = { isManualCapture: true };

type Batch = { settlementId: string; currency: string; cutoffAt: string; grossAmount: number; feeAmount: number; netAmount: number; lineCount: number };

describe('the daily cut-off', () => {
  it('settles a day of captures and refunds in one batch per currency, with fees, exactly once', async () => {
    // The first pass of a database settles everything before the latest cut-off: nothing yet.
    await worker.settled();
    await setFee(asOperator(ctx), ctx.merchant.merchantId, {
      currency: 'EUR',
      percent: '2.5',
      fixedAmount: 30,
    });

    const immediate = await paidSession(ctx); // EUR 123.45 captured at once
    ctx.clock.advance(60_000);
    const held = await paidSession(ctx, manual);
    const cap = await capture(ctx, held, 10000);
    expect(cap.status, JSON.stringify(cap.body)).toBe(200);
    await processor.settled();
    ctx.clock.advance(60_000);
    const ref = await refund(ctx, immediate, 2345);
    expect(ref.status).toBe(200);
    await processor.settled();
    await paidSession(ctx, { currency: 'ISK', amount: 489900 });

    // Before midnight nothing is settled.
    ctx.clock.set('2026-03-10T23:59:59.000Z');
    await worker.settled();
    expect((await call(ctx, 'GET', '/api/v1/settlements')).body).toMatchObject({ data: [], totalCount: 0 });

    ctx.clock.set('2026-03-11T00:00:30.000Z');
    await worker.settled();
    await worker.settled();
    const list = await call(ctx, 'GET', '/api/v1/settlements');
    expect(list.status).toBe(200);
    expect(list.body.totalCount).toBe(2);
    const byCurrency = Object.fromEntries((list.body.data as Batch[]).map((b) => [b.currency, b])) as Record<string, Batch>;
    // EUR: 12345 + 10000 captured, 2345 refunded; fees 2.5 % + 30 per capture: 309 + 30 and 250 + 30; the refund costs nothing.
    expect(byCurrency.EUR).toEqual({
      settlementId: expect.stringMatching(/^stl_/),
      currency: 'EUR',
      cutoffAt: '2026-03-11T00:00:00.000Z',
      grossAmount: 20000,
      feeAmount: 619,
      netAmount: 19381,
      lineCount: 3,
    });
    // ISK at the default 1.50 %: 7348.5 rounds to 7349 and then to whole krónur, 7300.
    expect(byCurrency.ISK).toMatchObject({ grossAmount: 489900, feeAmount: 7300, netAmount: 482600, lineCount: 1 });

    const eur = byCurrency.EUR as Batch;
    const details = await call(ctx, 'GET', `/api/v1/settlements/${eur.settlementId}`);
    expect(details.status).toBe(200);
    const settlement = details.body.settlement as Batch & { lines: { payfacReference: string; type: string; amount: number; fee: number }[] };
    const lines = settlement.lines;
    expect(lines.map((l) => [l.type, l.amount, l.fee])).toEqual([
      ['Capture', 12345, 339],
      ['Capture', 10000, 280],
      ['Refund', -2345, 0],
    ]);
    expect(lines[0]?.payfacReference).toBe(immediate.payfacReference);
    expect(lines[1]?.payfacReference).toBe(cap.body.payfacReference);
    expect(lines[2]?.payfacReference).toBe(ref.body.payfacReference);
    expect(lines.reduce((s, l) => s + l.amount, 0)).toBe(settlement.grossAmount);

    // CSV: a row per line and a Total row equal to the API's totals.
    const csv = await ctx.app.inject({ method: 'GET', url: `/api/v1/settlements/${eur.settlementId}/csv`, headers: { 'x-api-key': ctx.merchant.apiKey } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(rows).toHaveLength(5);
    expect(rows[4]).toBe(`${eur.settlementId},EUR,2026-03-11T00:00:00.000Z,Total,,,,20000,619,19381`);

    // Another pass, or a second worker, settles nothing twice.
    const other = new SettlementWorker({ db: ctx.tdb.db, clock: ctx.clock, cutoffMinutes: 0 });
    await Promise.all([worker.settled(), other.settled()]);
    await other.stop();
    expect((await call(ctx, 'GET', '/api/v1/settlements')).body.totalCount).toBe(2);
  });

  it('puts the next day in the next batch, a reversal that refunded as a Refund line', async () => {
    ctx.clock.set('2026-03-11T10:00:00.000Z');
    const p = await paidSession(ctx);
    expect((await reverse(ctx, p)).status).toBe(200);
    await processor.settled();
    // Two days pass while no worker runs: each day gets its own batches.
    ctx.clock.set('2026-03-13T01:00:00.000Z');
    await worker.settled();
    const list = await call(ctx, 'GET', '/api/v1/settlements');
    expect(list.body.totalCount).toBe(3);
    const newest = (list.body.data as Batch[])[0] as Batch;
    expect(newest).toMatchObject({ currency: 'EUR', cutoffAt: '2026-03-12T00:00:00.000Z', grossAmount: 0, lineCount: 2 });
    // The payment settled once, with the fee of its capture; its refund costs nothing.
    expect(newest.feeAmount).toBe(339);
    expect(newest.netAmount).toBe(-339);
  });

  it('pages like the link list, and hides another merchant’s batches', async () => {
    const page = await call(ctx, 'GET', '/api/v1/settlements?page=1&pageSize=2');
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.totalCount).toBe(3);
    const bad = await call(ctx, 'GET', '/api/v1/settlements?PageSize=101');
    expect(bad.status).toBe(400);

    const other = await createMerchant(ctx.tdb.db, 'Other');
    const id = (page.body.data as Batch[])[0]?.settlementId ?? '';
    expect((await call(ctx, 'GET', `/api/v1/settlements/${id}`, undefined, { apiKey: other.apiKey })).status).toBe(404);
    expect((await call(ctx, 'GET', '/api/v1/settlements', undefined, { apiKey: other.apiKey })).body.totalCount).toBe(0);
  });
});

describe('the sandbox run', () => {
  it('settles what the merchant captured or refunded until now, and only that merchant’s', async () => {
    ctx.clock.set('2026-03-13T08:00:00.000Z');
    const other = await createMerchant(ctx.tdb.db, 'Other shop');
    await paidSession(ctx, { amount: 5000 });
    const r = await call(ctx, 'POST', '/api/v1/sandbox/settlements/run');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual([
      expect.objectContaining({ currency: 'EUR', cutoffAt: '2026-03-13T08:00:00.000Z', grossAmount: 5000, feeAmount: 155, netAmount: 4845, lineCount: 1 }),
    ]);
    // Nothing left: a second run makes no batch.
    expect((await call(ctx, 'POST', '/api/v1/sandbox/settlements/run')).body.data).toEqual([]);
    expect((await call(ctx, 'POST', '/api/v1/sandbox/settlements/run', undefined, { apiKey: other.apiKey })).body.data).toEqual([]);
    // The next daily cut-off does not settle it again.
    ctx.clock.set('2026-03-14T00:00:01.000Z');
    await worker.settled();
    expect((await call(ctx, 'GET', '/api/v1/settlements')).body.totalCount).toBe(4);
  });

  it('settles each capture once when runs race: several sandbox runs and a worker pass at once', async () => {
    ctx.clock.set('2026-03-14T09:00:00.000Z');
    for (let i = 0; i < 5; i++) await paidSession(ctx, { amount: 1000 + i });
    ctx.clock.set('2026-03-15T00:00:05.000Z');
    const runs = await Promise.all([
      runSandboxSettlement(asOperator(ctx), ctx.merchant.merchantId),
      runSandboxSettlement(asOperator(ctx), ctx.merchant.merchantId),
      runSandboxSettlement(asOperator(ctx), ctx.merchant.merchantId),
      worker.settled().then(() => []),
    ]);
    const made = runs.flat();
    const { rows } = await ctx.tdb.db.pool.query<{ n: number; refs: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT l.payfac_reference)::int AS refs FROM settlement_lines l
         JOIN settlement_batches b ON b.settlement_id = l.settlement_id WHERE b.merchant_id = $1 AND l.booked_at >= '2026-03-14T09:00:00Z'`,
      [ctx.merchant.merchantId],
    );
    expect(rows[0]).toEqual({ n: 5, refs: 5 });
    // Whoever came first settled all five in one batch; the others found nothing left.
    const batches = (await call(ctx, 'GET', '/api/v1/settlements?PageSize=100')).body.data as Batch[];
    const today = batches.filter((b) => b.cutoffAt >= '2026-03-14T09:00:00.000Z' && b.cutoffAt <= '2026-03-15T00:00:05.000Z');
    expect(today).toHaveLength(1);
    expect(today[0]).toMatchObject({ grossAmount: 5010, lineCount: 5 });
    expect(made.length).toBeLessThanOrEqual(1);
  });

  it('is absent outside the sandbox', async () => {
    const prod = await createTestContext({ PAYLINKS_SANDBOX: 'false' });
    try {
      expect((await call(prod, 'POST', '/api/v1/sandbox/settlements/run')).status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
