import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { blackHole, register, reply, slow, startReceiver, type Receiver } from '../webhooks/helpers.js';
import { killAll, sleep, startWorker, until } from './processes.js';

// Takeover in seconds (§Deliveries: leases): two `paylinks worker` processes at default settings.
// Killed with SIGKILL while its attempt is on the wire, a worker's delivery is sent again by the other
// worker within 5 s, because its short lease is no longer renewed. A live worker in the middle of a
// 14 s attempt renews its lease and keeps the delivery: the other worker never sends it.

describe.skipIf(TEST_DB !== 'postgres')('a dead worker’s deliveries are taken over within seconds (PostgreSQL: separate processes)', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await killAll();
    await receiver?.close();
    await ctx?.close();
  });

  async function event(payfacReference: string): Promise<void> {
    await withTransaction(ctx.tdb.db, async (tx) => {
      await enqueueEvent(
        tx,
        { clock: systemClock, sealer: ctx.sealer },
        {
          merchantId: ctx.merchant.merchantId,
          eventType: 'Capture',
          checkoutReference: null,
          payfacReference,
          merchantReference: 'm',
          amount: 100,
          currency: 'EUR',
          reason: null,
          success: true,
        },
      );
    });
  }
  const sent = (path: string): number => receiver.received.filter((r) => r.path === path).length;
  const env = (): Record<string, string> => ({ DATABASE_URL: ctx.tdb.url as string, PAYLINKS_DB_POOL_SIZE: '3' });

  it('kill -9 of the worker sending a delivery: the other worker sends it within 5 s', async () => {
    const { webhookId } = await register(ctx, `${receiver.url}/takeover`);
    // The first request is never answered: the worker that sent it is killed while it waits.
    let answered = 0;
    receiver.on('/takeover', (req, res, body) => {
      if (answered++ === 0) blackHole(req, res, body);
      else reply(200)(req, res, body);
    });
    const first = await startWorker('worker-1', env());
    await event('takeover-1');
    await until(() => sent('/takeover') === 1, 'the first attempt arrives', 30_000, 20);
    const second = await startWorker('worker-2', env());
    await first.kill('SIGKILL');
    const killedAt = performance.now();
    await until(() => sent('/takeover') === 2, 'the delivery is sent again by the other worker', 30_000, 20);
    const takeoverMs = performance.now() - killedAt;
    console.log(`takeover after kill -9: ${Math.round(takeoverMs)} ms`);
    expect(takeoverMs).toBeLessThan(5_000);
    await until(
      async () => {
        const { rows } = await ctx.tdb.db.pool.query<{ state: string }>('SELECT state FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]);
        return rows[0]?.state === 'Delivered';
      },
      'Delivered',
      30_000,
    );
    await second.kill('SIGTERM');
    await ctx.tdb.db.pool.query('UPDATE webhooks SET enabled = false WHERE id = $1', [webhookId]);
  });

  it('a live worker in the middle of a 14 s attempt keeps its delivery: the other worker never sends it', async () => {
    const { webhookId } = await register(ctx, `${receiver.url}/long`);
    receiver.on('/long', slow(14_000));
    const workers = [await startWorker('worker-a', env()), await startWorker('worker-b', env())];
    await event('long-1');
    await until(() => sent('/long') === 1, 'the attempt arrives', 30_000, 20);
    await sleep(16_000);
    expect(sent('/long')).toBe(1);
    const { rows } = await ctx.tdb.db.pool.query<{ state: string; attempt_count: number }>(
      'SELECT state, attempt_count FROM webhook_deliveries WHERE webhook_id = $1',
      [webhookId],
    );
    expect(rows).toEqual([{ state: 'Delivered', attempt_count: 1 }]);
    for (const w of workers) await w.kill('SIGTERM');
  });
});
