import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { paidSession } from '../modifications/helpers.js';
import { portalUser, type PortalBrowser } from '../portal/helpers.js';
import { startLiveService, type LiveService } from '../sdk/helpers.js';

// One refund, made three ways: with an API key through the API, by a person in the portal, and at the
// command line (`paylinks payments refund`, the SDK with a key). Each face only passes the refund on;
// the refund records its own audit entry, so the three entries are the same but for who made them.

const run = promisify(execFile);

interface Entry {
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  actorUserId: string | null;
  actorKeyId: string | null;
}

describe('a refund made through the API, the portal and the CLI', () => {
  let live: LiveService;
  let staff: { userId: string; browser: PortalBrowser };
  beforeAll(async () => {
    live = await startLiveService();
    staff = await portalUser(live.ctx, 'staff');
  });
  afterAll(async () => {
    await live.close();
  });

  async function entryOf(payfacReference: string): Promise<Entry> {
    const { rows } = await live.ctx.tdb.db.pool.query<Entry>(
      `SELECT action, target, details, actor_user_id AS "actorUserId", actor_key_id AS "actorKeyId" FROM audit_log WHERE target = $1 ORDER BY id`,
      [payfacReference],
    );
    expect(rows).toHaveLength(1);
    return rows[0] as Entry;
  }

  it('is recorded the same way whichever face made it, but for the actor', async () => {
    const [viaApi, viaPortal, viaCli] = [await paidSession(live.ctx), await paidSession(live.ctx), await paidSession(live.ctx)];
    const refund = { amount: 2345, currency: 'EUR', reference: 'refund-1', refundReason: 'RETURN' } as const;

    const api = await live.client().modifications.refund({ payfacReference: viaApi.payfacReference, ...refund });
    expect(api.status).toBe('Received');

    await staff.browser.get(`/portal/payments/${viaPortal.payfacReference}`);
    const page = await staff.browser.post(`/portal/payments/${viaPortal.payfacReference}/refund`, {
      amount: '23.45',
      reference: refund.reference,
      refundReason: refund.refundReason,
    });
    expect(page.statusCode, page.body.slice(0, 300)).toBe(303);

    const { stdout } = await run(
      process.execPath,
      [
        BIN,
        'payments',
        'refund',
        viaCli.payfacReference,
        ...['--amount', String(refund.amount), '--currency', refund.currency, '--reference', refund.reference, '--reason', refund.refundReason],
        ...['--base-url', live.baseUrl, '--api-key', live.ctx.merchant.apiKey, '--json'],
      ],
      { env: { PATH: process.env.PATH ?? '' } },
    );
    expect(JSON.parse(stdout.trim())).toMatchObject({ status: 'Received' });

    const [a, p, c] = [await entryOf(viaApi.payfacReference), await entryOf(viaPortal.payfacReference), await entryOf(viaCli.payfacReference)];
    // What was done, to which payment: the same three times, but for the payment and the refund's own reference.
    const shape = (e: Entry, payfacReference: string) => ({
      action: e.action,
      target: e.target === payfacReference ? 'the payment' : e.target,
      details: { ...e.details, modification: typeof e.details.modification === 'string' ? 'the refund' : e.details.modification },
    });
    const expected = {
      action: 'payment.refund',
      target: 'the payment',
      details: { amount: 2345, currency: 'EUR', reference: 'refund-1', refundReason: 'RETURN', modification: 'the refund' },
    };
    expect(shape(a, viaApi.payfacReference)).toEqual(expected);
    expect(shape(p, viaPortal.payfacReference)).toEqual(expected);
    expect(shape(c, viaCli.payfacReference)).toEqual(expected);
    // Who: the key for the API and the CLI (which calls the API with it), the person in the portal.
    const [key] = (await live.ctx.tdb.db.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = $1', [live.ctx.merchant.merchantId])).rows;
    expect([a.actorKeyId, a.actorUserId]).toEqual([key?.id, null]);
    expect([c.actorKeyId, c.actorUserId]).toEqual([key?.id, null]);
    expect([p.actorKeyId, p.actorUserId]).toEqual([null, staff.userId]);
  });
});
