import { afterEach, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/database.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { call, type TestContext } from '../helpers/app.js';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { capture, modificationsSuite, paidSession, refund } from '../modifications/helpers.js';
import { reply, startReceiver, testWorker } from './helpers.js';

// The delivery trace as a merchant's developer reads it (GET /api/v1/webhooks/deliveries): one
// query by a payment's reference lists every webhook of that payment, its captures', refunds' and
// adjustments' too (their events carry their own references, and the payment's as the original);
// and a fifo webhook's deliveries behind a failing first one say which delivery they wait for.

let ctx: TestContext;
let processor: ModificationProcessor;
modificationsSuite((c, p) => {
  ctx = c;
  processor = p;
});

let worker: DeliveryWorker | undefined;
afterEach(async () => {
  await worker?.stop(5_000);
  worker = undefined;
});

interface Listed {
  deliveryId: string;
  eventType: string;
  payfacReference: string;
  state: string;
  nextAttemptAt: string | null;
  waitingBehind: string | null;
}

async function listed(query: Record<string, string>): Promise<Listed[]> {
  const r = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as Listed[];
}

describe('deliveries by payment', () => {
  it("a payment's reference lists its own, its capture's and its refund's; a modification's reference lists its own alone", async () => {
    const p = await paidSession(ctx, { isManualCapture: true });
    const other = await paidSession(ctx);
    expect((await capture(ctx, p, 12345)).status).toBe(200);
    await processor.settled();
    const refunded = await refund(ctx, p, 2345);
    expect(refunded.status).toBe(200);
    await processor.settled();

    const all = await listed({ payfacReference: p.payfacReference });
    expect(all.map((d) => d.eventType).sort()).toEqual(['Authorization', 'Capture', 'Refund']);
    const refundRef = refunded.body.payfacReference as string;
    expect(all.find((d) => d.eventType === 'Refund')?.payfacReference).toBe(refundRef);
    // The other payment's are not among them.
    expect(all.some((d) => d.payfacReference === other.payfacReference)).toBe(false);

    expect((await listed({ payfacReference: refundRef })).map((d) => d.eventType)).toEqual(['Refund']);
    const counted = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { payfacReference: p.payfacReference } });
    expect(counted.body.totalCount).toBe(3);
  });
});

describe('a fifo webhook behind a failing first delivery', () => {
  it('lists the later deliveries as waiting behind the head, and none once the head is delivered', async () => {
    const receiver = await startReceiver();
    try {
      let open = false;
      receiver.on('/fifo', (req, res, body) => (open ? reply(200) : reply(503, 'not yet'))(req, res, body));
      const made = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/fifo`, eventTypes: ['Capture'], ordering: 'fifo' });
      expect(made.status).toBe(200);
      const webhookId = made.body.webhookId as string;
      await withTransaction(ctx.tdb.db, async (tx) => {
        for (const ref of ['fifo-1', 'fifo-2', 'fifo-3']) {
          await enqueueEvent(tx, ctx, {
            merchantId: ctx.merchant.merchantId,
            eventType: 'Capture',
            checkoutReference: null,
            payfacReference: ref,
            merchantReference: null,
            amount: 100,
            currency: 'EUR',
            reason: null,
            success: true,
          });
        }
      });
      worker = testWorker(ctx);
      await worker.start();
      const sent = (): number => receiver.received.filter((r) => r.path === '/fifo').length;
      const until = async (done: () => Promise<boolean> | boolean): Promise<void> => {
        const deadline = Date.now() + 15_000;
        while (!(await done()) && Date.now() < deadline) {
          await worker?.settled();
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await until(() => sent() === 1);
      await worker.settled();
      expect(sent()).toBe(1);

      // The first failed and waits for its retry; the two behind it were due at once but wait for it.
      const byRef = new Map((await listed({ webhookId })).map((d) => [d.payfacReference, d]));
      const head = byRef.get('fifo-1');
      expect(head).toMatchObject({ state: 'Pending', waitingBehind: null });
      expect(byRef.get('fifo-2')).toMatchObject({ state: 'Pending', waitingBehind: head?.deliveryId });
      expect(byRef.get('fifo-3')).toMatchObject({ state: 'Pending', waitingBehind: head?.deliveryId });
      expect(Date.parse(byRef.get('fifo-3')?.nextAttemptAt ?? '')).toBeLessThanOrEqual(ctx.clock.now().getTime());
      const one = await call(ctx, 'GET', `/api/v1/webhooks/deliveries/${byRef.get('fifo-3')?.deliveryId ?? ''}`);
      expect((one.body.delivery as Listed).waitingBehind).toBe(head?.deliveryId);

      open = true;
      ctx.clock.advance(10 * 60_000);
      await until(async () => (await listed({ webhookId, state: 'Pending' })).length === 0);
      const after = await listed({ webhookId });
      expect(after.map((d) => [d.state, d.waitingBehind])).toEqual([
        ['Delivered', null],
        ['Delivered', null],
        ['Delivered', null],
      ]);
    } finally {
      await receiver.close();
    }
  });
});
