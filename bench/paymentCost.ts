// The cost of recording a payment in one process, with and without the triggers that keep the
// overview's sums per day (migrations/0038_daily_sales.sql): `npx tsx --conditions=source
// bench/paymentCost.ts`. Charges of a saved card through the API (`POST /api/v1/payment`, one
// transaction: the payment, its Authorization and Capture events), asked through app.inject one at
// a time on a pool of one connection, so that the database's work on them is that connection's
// backend's: the CPU time of this process and of that backend (read from /proc) per payment, the two
// settings taking turns in batches on the same database. A page's payment writes the same payment row.
import { readFileSync } from 'node:fs';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { createMerchant } from '../src/accounts/service.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { simulatorAcquirer } from '../src/payments/simulator.js';
import { createSealer } from '../src/sealing.js';
import { buildApp } from '../src/app.js';
import { createBenchDatabase, fmt } from './lib.js';

const BATCH = Number(process.env.BENCH_PAYMENT_BATCH ?? 200);
const ROUNDS = Number(process.env.BENCH_PAYMENT_ROUNDS ?? 10);
const TRIGGERS = ['payments_daily_sales_in'];

/** utime + stime of a process, in microseconds (clock ticks of 10 ms). */
function cpuOfPid(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const bdb = await createBenchDatabase('paymentcost');
try {
  const config = parseConfig({ DATABASE_URL: bdb.url, PAYLINKS_DB_POOL_SIZE: '1', LOG_LEVEL: 'silent' });
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: '', poolSize: 1 });
  try {
    await migrate(db);
    const m = await createMerchant(db, 'Bench');
    const app = await buildApp({ config, db, clock: systemClock, acquirer: simulatorAcquirer, sealer: createSealer(config.secretKey) });
    try {
      const link = await app.inject({
        method: 'POST',
        url: '/api/v1/paymentlinks/create',
        headers: { 'x-api-key': m.apiKey },
        payload: {
          type: 'TokenizeByLink',
          terminalIdentifier: m.terminalIdentifier,
          amount: 0,
          currency: 'ISK',
          items: [],
          recurringProcessingModel: 'Subscription',
          culture: 'en',
        },
      });
      // A saved card: the payment that saved it and its token, written by SQL.
      const linkRef = (link.json() as { paymentLinkReference: string }).paymentLinkReference;
      await db.pool.query(
        `INSERT INTO payments (payfac_reference, merchant_id, terminal_identifier, payment_link_reference, event_checkout_reference, amount, currency, success,
           card_masked, card_summary, card_expiry, payment_method, three_d_authenticated, capture_state, captured_amount, created_at)
         VALUES ('1000000000000000', $1, $2, $3, 'cs_bench', 0, 'ISK', true, '424242******4242', '4242', '12/2030', 'visa', false, 'None', 0, now())`,
        [m.merchantId, m.terminalIdentifier, linkRef],
      );
      await db.pool.query(
        `INSERT INTO payment_tokens (token, merchant_id, payfac_reference, recurring_processing_model, card_masked, card_summary, card_expiry, payment_method, created_at)
         VALUES ('tok_bench', $1, '1000000000000000', 'Subscription', '424242******4242', '4242', '12/2030', 'visa', now())`,
        [m.merchantId],
      );
      const backend = (await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
      let n = 0;
      const pay = async (): Promise<void> => {
        const r = await app.inject({
          method: 'POST',
          url: '/api/v1/payment',
          headers: { 'x-api-key': m.apiKey, 'idempotency-key': `bench-${n++}` },
          payload: {
            terminalIdentifier: m.terminalIdentifier,
            amount: 4900,
            currency: 'ISK',
            reference: `renewal-${n}`,
            returnUrl: 'https://shop.example/return',
            channel: 'Web',
            shopperIp: '203.0.113.7',
            origin: 'https://shop.example',
            tokenDetails: { tokenValue: 'tok_bench', recurringProcessingModel: 'Subscription' },
          },
        });
        if (r.statusCode !== 200 || (r.json() as { resultCode: string }).resultCode !== 'Authorised')
          throw new Error(`a charge answered ${r.statusCode}: ${r.body}`);
      };
      const setTriggers = async (on: boolean): Promise<void> => {
        for (const t of TRIGGERS) await db.pool.query(`ALTER TABLE payments ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${t}`);
      };
      for (let i = 0; i < BATCH; i++) await pay();
      const results = new Map<string, { node: number[]; backend: number[]; wall: number[] }>([
        ['without the triggers', { node: [], backend: [], wall: [] }],
        ['with the triggers', { node: [], backend: [], wall: [] }],
      ]);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, r] of results) {
          await setTriggers(name === 'with the triggers');
          const cpu0 = process.cpuUsage();
          const b0 = cpuOfPid(backend);
          const t0 = performance.now();
          for (let i = 0; i < BATCH; i++) await pay();
          r.wall.push(((performance.now() - t0) * 1000) / BATCH);
          r.backend.push((cpuOfPid(backend) - b0) / BATCH);
          const cpu = process.cpuUsage(cpu0);
          r.node.push((cpu.user + cpu.system) / BATCH);
        }
      }
      await setTriggers(true);
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
      for (const [name, r] of results) {
        console.log(
          `${name}: this process ${fmt(Math.min(...r.node))} µs CPU a payment at least, ${fmt(median(r.node))} median; the database's backend ${fmt(median(r.backend))} µs median (${fmt(Math.min(...r.backend))} least); ${fmt(median(r.wall))} µs wall median`,
        );
      }
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
} finally {
  await bdb.drop();
}
