import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueuePaymentMails } from '../../src/mail/service.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { killAll, sleep, startWorker, until, type BinProcess } from './processes.js';

// Receipts survive kill -9 of their sender (docs/mail.md, "Sent once"): a `paylinks worker` (the
// built bin) sends receipts to a real SMTP server that takes 150 ms over each, and is killed with
// SIGKILL at random moments and started again. In the end every receipt reached the server, each
// Message-ID at most once more than it should per kill (the one window: accepted by the server, not
// yet marked Sent), and once everything is Sent, killing and restarting the sender sends nothing more.

const RECEIPTS = 30;
const KILLS = 3;
const LEASE_MS = 2_000;

describe.skipIf(TEST_DB !== 'postgres')('receipts survive kill -9 of the sender (PostgreSQL: separate processes)', () => {
  let ctx: TestContext;
  let smtp: TestSmtp;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await killAll();
    await smtp?.close();
    await ctx?.close();
  });

  it(`${RECEIPTS} receipts, ${KILLS} SIGKILLs of the sender: each received, none twice but in the window, none again after all were sent`, async () => {
    const env = {
      DATABASE_URL: ctx.tdb.url as string,
      PAYLINKS_SMTP_URL: smtp.url,
      PAYLINKS_MAIL_FROM: 'Shop <receipts@shop.example>',
      PAYLINKS_MAIL_LEASE_MS: String(LEASE_MS),
      PAYLINKS_DB_POOL_SIZE: '3',
    };
    smtp.delayMs = 150;
    let worker: BinProcess = await startWorker('mail-worker', env);

    const ids = await withTransaction(ctx.tdb.db, async (tx) => {
      const all: string[] = [];
      for (let i = 0; i < RECEIPTS; i++) {
        all.push(
          ...(await enqueuePaymentMails(tx, systemClock, {
            merchantId: ctx.merchant.merchantId,
            merchantName: 'Test merchant',
            culture: i % 2 === 0 ? 'is' : 'en',
            order: `order-${i}`,
            items: [{ name: 'Lopapeysa', quantity: 1, amount: 48900 }],
            discount: null,
            amount: 48900,
            currency: 'ISK',
            paymentMethod: 'visa',
            cardLast4: '4242',
            payfacReference: `crash-${i}`,
            shopperEmail: `shopper${i}@example.com`,
          })),
        );
      }
      return all;
    });
    expect(ids).toHaveLength(RECEIPTS);

    const kills: string[] = [];
    for (let k = 0; k < KILLS; k++) {
      await sleep(300 + Math.floor(Math.random() * 900));
      const { rows } = await ctx.tdb.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox WHERE state = 'Sent'");
      await worker.kill('SIGKILL');
      kills.push(`after ${rows[0]?.n ?? 0} sent, ${smtp.accepted.length} received`);
      worker = await startWorker(`mail-worker-${k + 2}`, env);
    }

    const unsent = async (): Promise<number> =>
      (await ctx.tdb.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox WHERE state <> 'Sent'")).rows[0]?.n ?? -1;
    await until(async () => (await unsent()) === 0, 'every receipt Sent', 120_000, 200);

    const expected = ids.map((id) => `<${id}@shop.example>`);
    const got = smtp.accepted.map((m) => m.messageId);
    const unique = new Set(got);
    for (const id of expected) expect(unique.has(id), `${id} was received`).toBe(true);
    expect(unique.size).toBe(RECEIPTS);
    const duplicates = got.length - unique.size;
    console.log(`mail crash: ${RECEIPTS} receipts, ${kills.length} SIGKILLs (${kills.join('; ')}); ${got.length} received, ${duplicates} second copies`);
    // At most one message is between the server's acceptance and its mark at the moment of a kill.
    expect(duplicates).toBeLessThanOrEqual(KILLS);

    // Everything is Sent: a kill and a restart now send nothing, however long the new sender runs.
    const before = smtp.accepted.length;
    await worker.kill('SIGKILL');
    worker = await startWorker('mail-worker-last', env);
    await sleep(LEASE_MS * 2 + 6_000);
    expect(smtp.accepted.length).toBe(before);
    expect(worker.output()).not.toContain(smtp.password);
    expect(worker.output()).not.toMatch(/"level":(50|60)/);
  });
});
