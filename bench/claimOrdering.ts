import pg from 'pg';
import { openDatabase, withTransaction } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { claimDueDeliveries, LOCK_CLAIMS_SQL } from '../src/webhooks/delivery/sql.js';

// The claim statement's time with fifo webhooks beside unordered ones (docs/performance.md, The claim
// with fifo webhooks): a database of its own on this machine's PostgreSQL with CLAIM_DUE due unordered
// deliveries over CLAIM_WEBHOOKS webhooks and CLAIM_FIFO fifo webhooks with CLAIM_BEHIND ordered
// deliveries each; 200 claims of 100, each rolled back, timed from the client.
//   npx tsx bench/claimOrdering.ts            (no fifo webhook)
//   CLAIM_FIFO=20 CLAIM_BEHIND=5000 npx tsx bench/claimOrdering.ts

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const due = Number(process.env.CLAIM_DUE ?? 20_000);
const webhooks = Number(process.env.CLAIM_WEBHOOKS ?? 50);
const fifo = Number(process.env.CLAIM_FIFO ?? 0);
const behind = Number(process.env.CLAIM_BEHIND ?? 0);

class Rollback extends Error {}

async function main(): Promise<void> {
  const name = `paylinks_claim_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: '', poolSize: 2 });
  try {
    await migrate(db);
    const q = (text: string, values: unknown[] = []) => db.pool.query(text, values);
    await q(`INSERT INTO merchants (id, name) VALUES ('mch_bench', 'bench')`);
    await q(
      `INSERT INTO webhooks (id, merchant_id, url, api_key_sealed, hmac_key_sealed, created_at, updated_at, ordering)
       SELECT 'wh_' || i, 'mch_bench', 'https://receiver.example/' || i, 'k', 'k', now(), now(), CASE WHEN i > $1 THEN 'fifo' ELSE 'unordered' END
         FROM generate_series(1, $1::int + $2::int) i`,
      [webhooks, fifo],
    );
    await q(
      `INSERT INTO webhook_events (id, merchant_id, event_type, payfac_reference, message, created_at) VALUES ('evt_bench', 'mch_bench', 'Capture', 'p', '{}', now())`,
    );
    await q(
      `INSERT INTO webhook_deliveries (id, event_id, webhook_id, event_type, payfac_reference, body, state, attempt_count, next_attempt_at, created_at, updated_at)
       SELECT 'dlv_' || i, 'evt_bench', 'wh_' || (1 + i % $2), 'Capture', 'p', '{}', 'Pending', 0, now() - interval '1 hour' + i * interval '1 ms', now(), now()
         FROM generate_series(1, $1) i`,
      [due, webhooks],
    );
    if (fifo > 0)
      await q(
        `INSERT INTO webhook_deliveries (id, event_id, webhook_id, event_type, payfac_reference, body, state, attempt_count, next_attempt_at, created_at, updated_at, ordered)
         SELECT 'dlvf_' || i, 'evt_bench', 'wh_' || ($2::int + 1 + i % $3::int), 'Capture', 'p', '{}', 'Pending', 0, now() - interval '2 hours', now(), now(), true
           FROM generate_series(1, $1::int) i`,
        [fifo * behind, webhooks, fifo],
      );
    await q('ANALYZE');
    const times: number[] = [];
    let claimed = 0;
    for (let i = 0; i < 200; i++) {
      try {
        await withTransaction(
          db,
          async (tx) => {
            const started = performance.now();
            const rows = await claimDueDeliveries(tx, {
              now: new Date(),
              leaseUntil: new Date(Date.now() + 30_000),
              claimToken: '00000000-0000-4000-8000-000000000001',
              limit: 100,
              perEndpoint: 10,
              scan: 400,
            });
            times.push(performance.now() - started);
            claimed = rows.length;
            throw new Rollback();
          },
          { withBegin: LOCK_CLAIMS_SQL },
        );
      } catch (err) {
        if (!(err instanceof Rollback)) throw err;
      }
    }
    times.sort((a, b) => a - b);
    const at = (p: number): string => (times[Math.floor(p * (times.length - 1))] ?? 0).toFixed(2);
    console.log(
      `${due} due over ${webhooks} unordered webhooks, ${fifo} fifo webhooks with ${behind} each: claimed ${claimed}; min ${at(0)} ms, p50 ${at(0.5)} ms, p90 ${at(0.9)} ms`,
    );
  } finally {
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
