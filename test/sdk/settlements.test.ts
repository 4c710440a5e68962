import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaylinksNotFoundError, type Paylinks } from '@paylinks/sdk';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { capture, paidSession, refund, testProcessor } from '../modifications/helpers.js';
import { startLiveService, type LiveService } from './helpers.js';

// settlements.{list, listAll, get, csv} and sandbox.settle through @paylinks/sdk, and `paylinks settlements`
// (the built command) against the live service (docs/api.md, Settlements).

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/paylinks.js');

describe('settlements through @paylinks/sdk and the CLI', { timeout: 120_000 }, () => {
  let live: LiveService;
  let sdk: Paylinks;
  let processor: ModificationProcessor;
  let flags: string[];

  beforeAll(async () => {
    live = await startLiveService();
    sdk = live.client();
    processor = testProcessor(live.ctx);
    flags = ['--base-url', live.baseUrl, '--api-key', live.ctx.merchant.apiKey];
  });
  afterAll(async () => {
    await processor.stop();
    await live.close();
  });

  const paylinks = async (...args: string[]): Promise<string> =>
    (await run(process.execPath, [BIN, ...args, ...flags], { env: { PATH: process.env.PATH ?? '' } })).stdout;

  it('settles in the sandbox, then lists, reads and downloads the batch', async () => {
    const p = await paidSession(live.ctx, { isManualCapture: true });
    expect((await capture(live.ctx, p, 10000)).status).toBe(200);
    await processor.settled();
    live.ctx.clock.advance(1000);
    expect((await refund(live.ctx, p, 4000)).status).toBe(200);
    await processor.settled();

    const made = await sdk.sandbox.settle();
    expect(made.data).toHaveLength(1);
    const batch = made.data[0];
    // 10000 captured at 1.50 % (150), 4000 refunded at no cost.
    expect(batch).toMatchObject({ currency: 'EUR', grossAmount: 6000, feeAmount: 150, netAmount: 5850, lineCount: 2 });
    expect((await sdk.sandbox.settle()).data).toEqual([]);

    const list = await sdk.settlements.list({ pageSize: 10 });
    expect(list).toMatchObject({ totalCount: 1, data: [batch] });
    const all = [];
    for await (const s of sdk.settlements.listAll({ pageSize: 1 })) all.push(s.settlementId);
    expect(all).toEqual([batch?.settlementId]);

    const got = await sdk.settlements.get(batch?.settlementId ?? '');
    expect(got.settlement.lines.map((l) => [l.type, l.amount, l.fee, l.originalPayfacReference])).toEqual([
      ['Capture', 10000, 150, p.payfacReference],
      ['Refund', -4000, 0, p.payfacReference],
    ]);
    const csv = await sdk.settlements.csv(batch?.settlementId ?? '');
    expect(csv.trim().split('\r\n').at(-1)).toBe(`${batch?.settlementId},EUR,${batch?.cutoffAt},Total,,,,6000,150,5850`);
    await expect(sdk.settlements.get('stl_nothing')).rejects.toBeInstanceOf(PaylinksNotFoundError);

    // The CLI: the same batch in a table, as JSON, and its CSV as the API gives it.
    const table = await paylinks('settlements', 'list');
    expect(table).toMatch(/SETTLEMENT\s+CURRENCY\s+CUT-OFF\s+LINES\s+GROSS\s+FEES\s+NET/);
    expect(table).toContain(`${batch?.settlementId}  EUR`);
    const shown = JSON.parse(await paylinks('settlements', 'get', batch?.settlementId ?? '', '--json')) as typeof got;
    expect(shown.settlement.lines).toEqual(got.settlement.lines);
    expect(await paylinks('settlements', 'csv', batch?.settlementId ?? '')).toBe(csv);
    expect(await paylinks('settlements', 'run')).toBe('nothing to settle\n');
  });
});
