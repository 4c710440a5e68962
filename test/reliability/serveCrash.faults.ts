import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { createLink, payByLink } from '../checkout/fixtures.js';
import { register } from '../webhooks/helpers.js';
import { HttpShopper } from './http.js';
import { killAll, sleep, startServe, type BinProcess } from './processes.js';

// Issue 7, property 1 (second half) and §Events: `paylinks serve` is killed with SIGKILL while shoppers
// pay, between payments and their responses. A payment and its events (and their deliveries) were
// written in one transaction: after the crash each payment has its Authorization and Capture events
// with a delivery each, no event lacks its payment, the link's salesCount counts exactly the
// payments, and every payment a shopper saw confirmed is there.

const ROUNDS = 3;
const CONCURRENCY = 16;

describe.skipIf(TEST_DB !== 'postgres')('a payment and its event survive a kill -9 of serve together or not at all (§Events; PostgreSQL)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await killAll();
    await ctx?.close();
  });

  it(`${ROUNDS} rounds of ${CONCURRENCY} shoppers paying, each ended by SIGKILL`, async () => {
    const webhook = await register(ctx, 'https://hooks.example.com/crash');
    const reference = await createLink(ctx, payByLink(ctx, { description: 'crash' }));
    const path = `/pay/${reference}`;
    const confirmed = new Set<string>();
    const cutOff: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // No worker: deliveries stay Pending, so the check sees exactly what the payment wrote.
      const serve: BinProcess = await startServe({ DATABASE_URL: ctx.tdb.url as string }, ['--no-worker']);
      let killed = false;
      const shoppers = Array.from({ length: CONCURRENCY }, async () => {
        const s = new HttpShopper();
        if (!(await s.open(serve.baseUrl, path))) return;
        while (!killed) {
          const r = await s.pay(serve.baseUrl, path);
          if (r.payfacReference) confirmed.add(r.payfacReference);
          else if (r.error) {
            cutOff.push(r.error);
            return;
          } else if (r.status !== 200) throw new Error(`unexpected answer ${r.status}: ${r.body.slice(0, 300)}`);
        }
      });
      await sleep(400 + Math.floor(Math.random() * 1_200));
      killed = true;
      await serve.kill('SIGKILL');
      await Promise.all(shoppers);
    }

    const q = async <T extends Record<string, unknown>>(text: string, values: unknown[]): Promise<T[]> => (await ctx.tdb.db.pool.query<T>(text, values)).rows;
    const payments = await q<{ payfac_reference: string }>('SELECT payfac_reference FROM payments WHERE payment_link_reference = $1 AND success', [reference]);
    const paid = new Set(payments.map((p) => p.payfac_reference));
    // Every payment a shopper saw confirmed was committed.
    for (const p of confirmed) expect(paid.has(p), `confirmed payment ${p} is stored`).toBe(true);
    // Each payment has exactly its two events, each with its delivery; no event without its payment.
    const events = await q<{ payfac_reference: string; event_type: string; deliveries: number }>(
      `SELECT e.payfac_reference, e.event_type, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id AND d.webhook_id = $2) AS deliveries
         FROM webhook_events e WHERE e.message->>'merchantReference' = $1`,
      [reference, webhook.webhookId],
    );
    const byPayment = new Map<string, string[]>();
    for (const e of events) {
      expect(e.deliveries, `${e.event_type} of ${e.payfac_reference} has its delivery`).toBe(1);
      byPayment.set(e.payfac_reference, [...(byPayment.get(e.payfac_reference) ?? []), e.event_type].sort());
    }
    expect([...byPayment.keys()].sort()).toEqual([...paid].sort());
    for (const types of byPayment.values()) expect(types).toEqual(['Authorization', 'Capture']);
    const link = await q<{ sales_count: number; submissions: number }>(
      'SELECT sales_count, (SELECT count(*)::int FROM payment_link_submissions s WHERE s.payment_link_reference = l.reference AND s.completed) AS submissions FROM payment_links l WHERE reference = $1',
      [reference],
    );
    expect(link[0]).toEqual({ sales_count: paid.size, submissions: paid.size });
    console.log(
      `serve crash: ${ROUNDS} SIGKILLs; ${paid.size} payments stored, ${confirmed.size} confirmed to shoppers, ` +
        `${paid.size - confirmed.size} committed but unanswered, ${cutOff.length} requests cut off; ${events.length} events, each with its payment and delivery`,
    );
    expect(cutOff.length).toBeGreaterThan(0);
    expect(paid.size).toBeGreaterThan(0);
  });
});
