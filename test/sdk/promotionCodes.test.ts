import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaylinksNotFoundError, PaylinksValidationError, type Paylinks } from '@paylinks/sdk';
import { startLiveService, type LiveService } from './helpers.js';

// promotionCodes.{create, list, get, update} through @paylinks/sdk, and `paylinks promotion-codes` (the built
// command) against the live service (docs/api.md, Promotion codes).

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/paylinks.js');

describe('promotion codes through @paylinks/sdk and the CLI', { timeout: 120_000 }, () => {
  let live: LiveService;
  let sdk: Paylinks;
  let flags: string[];

  beforeAll(async () => {
    live = await startLiveService();
    sdk = live.client();
    flags = ['--base-url', live.baseUrl, '--api-key', live.ctx.merchant.apiKey];
  });
  afterAll(async () => {
    await live.close();
  });

  const paylinks = async (...args: string[]): Promise<string> =>
    (await run(process.execPath, [BIN, ...args, ...flags], { env: { PATH: process.env.PATH ?? '' } })).stdout;

  it('the SDK makes, lists, reads and changes a code; a second code of the same name in another case is refused', async () => {
    const { promotionCode: made } = await sdk.promotionCodes.create({ code: 'Jol15', percentOff: 15, maxRedemptions: 3 });
    expect(made).toMatchObject({ code: 'Jol15', percentOff: 15, maxRedemptions: 3, redemptionCount: 0, active: true });
    expect((await sdk.promotionCodes.get(made.promotionCodeId)).promotionCode).toEqual(made);
    expect((await sdk.promotionCodes.list()).data.map((c) => c.promotionCodeId)).toContain(made.promotionCodeId);
    const { promotionCode: changed } = await sdk.promotionCodes.update(made.promotionCodeId, { active: false, maxRedemptions: null });
    expect(changed).toMatchObject({ active: false, maxRedemptions: null });
    await expect(sdk.promotionCodes.create({ code: 'JOL15', amountOff: 500, currency: 'EUR' })).rejects.toBeInstanceOf(PaylinksValidationError);
    await expect(sdk.promotionCodes.get('promo_nothing')).rejects.toBeInstanceOf(PaylinksNotFoundError);
  });

  it('paylinks promotion-codes create, list, get and update', async () => {
    const made = JSON.parse(await paylinks('promotion-codes', 'create', '--code', 'CLI500', '--amount-off', '500', '--currency', 'isk', '--json')) as {
      promotionCode: { promotionCodeId: string; amountOff: number; currency: string };
    };
    expect(made.promotionCode).toMatchObject({ amountOff: 500, currency: 'ISK' });
    const id = made.promotionCode.promotionCodeId;
    const list = await paylinks('promotion-codes', 'list');
    expect(list).toContain('CLI500');
    expect(list).toContain('500 ISK (minor units)');
    const got = await paylinks('promotion-codes', 'get', id);
    expect(got).toMatch(/redemptions\s+0/);
    const updated = await paylinks('promotion-codes', 'update', id, '--active', 'false', '--max-redemptions', '10');
    expect(updated).toMatch(/active\s+false/);
    expect(updated).toMatch(/redemptions\s+0 of 10/);
    const refused = await run(process.execPath, [BIN, 'promotion-codes', 'create', '--code', 'bad code', '--percent-off', '10', ...flags]).catch(
      (e: { stderr: string; code: number }) => e,
    );
    expect((refused as { code: number }).code).not.toBe(0);
    expect((refused as { stderr: string }).stderr).toContain('code');
  });
});
