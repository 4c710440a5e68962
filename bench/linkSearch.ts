import { openDatabase, type Database, type Queryable } from '../src/db/database.js';
import { migrate, loadMigrations } from '../src/db/migrate.js';
import { searchLinks } from '../src/paymentLinks/sql.js';
import { createBenchDatabase, fmt } from './lib.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The portal's link search at one merchant's real size, before and after the trigram index
// (migrations/0029_link_search_trigram.sql), without the full bench: the links are written by SQL,
// the query is the one the portal runs (searchLinks), timed and explained.
//   npx tsx bench/linkSearch.ts [postgres|pglite] [links]
// docs/performance.md, Link search, has the figures.

const INDEX_VERSION = 29;

interface Statement {
  prepared: boolean;
  text: string;
  values: readonly unknown[];
}
const MERCHANT = 'm_search_bench';

async function fill(db: Database, links: number): Promise<void> {
  await db.pool.query(`INSERT INTO merchants (id, name) VALUES ($1, 'Search bench')`, [MERCHANT]);
  await db.pool.query(`INSERT INTO terminals (terminal_identifier, merchant_id) VALUES ('SEARCHBENCH1', $1)`, [MERCHANT]);
  // Descriptions like a shop's (an order number and a product); the five oldest links alone hold
  // "Winter sale", the text searched for.
  await db.pool.query(
    `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, description, amount, currency, culture, created_at, updated_at)
     SELECT 'PLSB' || lpad(i::text, 8, '0'), $1, 'SEARCHBENCH1', 'PayByLink',
            CASE WHEN i <= 5 THEN 'Winter sale ' || i ELSE 'Order ' || i || ' ' || (ARRAY['shoes', 'jacket', 'scarf', 'gloves', 'boots'])[1 + i % 5] || ' size ' || (36 + i % 10) END,
            1000 + i % 5000, 'EUR', 'en-US', timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     FROM generate_series(1, $2::int) AS i`,
    [MERCHANT, links],
  );
  await db.pool.query('ANALYZE payment_links');
}

/** Runs the portal's search `runs` times through one prepared statement, as the server does; answers the times in ms. */
async function time(db: Database, text: string, runs: number): Promise<{ ms: number[]; found: number; statement: Statement }> {
  let statement: Statement | undefined;
  const recorder: Queryable = {
    query: ((q: string | { name: string; text: string; values: readonly unknown[] }, v?: readonly unknown[]) => {
      statement = typeof q === 'string' ? { prepared: false, text: q, values: v ?? [] } : { prepared: true, text: q.text, values: q.values };
      return db.pool.query(q as never, v as never);
    }) as Queryable['query'],
  };
  const ms: number[] = [];
  let found = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const [searched = '', status = null] = text.split(', ');
    const rows = await searchLinks(recorder, MERCHANT, { status, text: searched, now: new Date('2026-06-01T00:00:00Z') }, null, 26);
    ms.push(performance.now() - t0);
    found = rows.length;
  }
  if (!statement) throw new Error('no statement ran');
  return { ms: ms.sort((a, b) => a - b), found, statement };
}

async function explain(db: Database, statement: Statement): Promise<string> {
  // The plan that runs: a prepared statement's generic plan (the one it settles on after its first
  // five runs), else one made for the values.
  const client = await db.pool.connect();
  try {
    if (db.kind === 'postgres') await client.query(`SET plan_cache_mode = ${statement.prepared ? 'force_generic_plan' : 'force_custom_plan'}`);
    await client.query(`PREPARE explained AS ${statement.text}`);
    const literals = statement.values.map((v) => `'${(v instanceof Date ? v.toISOString() : String(v)).replace(/'/g, "''")}'`).join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) EXECUTE explained (${literals})`);
    await client.query('DEALLOCATE explained');
    if (db.kind === 'postgres') await client.query(`RESET plan_cache_mode`);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    client.release();
  }
}

async function report(db: Database, label: string): Promise<void> {
  for (const text of ['Winter sale', 'shoes', 'Order', 'zz', 'PLSB00000003', 'Winter sale, Active']) {
    const runs = 20;
    const { ms, found, statement } = await time(db, text, runs);
    const median = ms[Math.floor(runs / 2)] ?? 0;
    const max = ms[runs - 1] ?? 0;
    console.log(`\n## ${label}: "${text}" (${found} found): median ${fmt(median, 1)} ms, slowest of ${runs} ${fmt(max, 1)} ms`);
    if (statement.text.includes('ILIKE') && text !== 'PLSB00000003') console.log(await explain(db, statement));
  }
}

async function main(): Promise<void> {
  const kind = process.argv[2] === 'pglite' ? 'pglite' : 'postgres';
  const links = Number(process.argv[3] ?? (kind === 'pglite' ? 50_000 : 200_000));
  const all = loadMigrations();
  const before = all.filter((m) => m.version < INDEX_VERSION);
  let db: Database;
  let drop: () => Promise<void>;
  if (kind === 'postgres') {
    const bench = await createBenchDatabase('linksearch');
    db = await openDatabase({ databaseUrl: bench.url, dataDir: '', poolSize: 2 });
    drop = bench.drop;
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'paylinks-linksearch-'));
    db = await openDatabase({ databaseUrl: null, dataDir: join(dir, 'data'), template: null });
    drop = async () => rmSync(dir, { recursive: true, force: true });
  }
  try {
    await migrate(db, before);
    const t0 = performance.now();
    await fill(db, links);
    console.log(`${kind}: ${fmt(links)} links of one merchant written in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    await report(db, `${kind}, ${fmt(links)} links, no trigram index`);
    const t1 = performance.now();
    await migrate(db, all);
    await db.pool.query('ANALYZE payment_links');
    console.log(`\nmigration ${INDEX_VERSION} (index build) took ${fmt((performance.now() - t1) / 1000, 2)} s`);
    await report(db, `${kind}, ${fmt(links)} links, trigram index`);
  } finally {
    await db.close();
    await drop();
  }
}

await main();
