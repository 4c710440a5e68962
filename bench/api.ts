import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { ROOT, createBenchDatabase, fmt, startServer, type Row } from './lib.js';

// HTTP benchmarks of docs/performance.md against the real `paylinks serve` on PostgreSQL, each beside the raw
// limit measured in the same run.

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 50;
const POOL_SIZE = 10;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(
  url: string,
  opts: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; connections?: number; path?: () => string; duration?: number },
): Promise<Load> {
  const path = opts.path;
  const r = await autocannon({
    url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    ...(path ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: path() }) }] } : {}),
    connections: opts.connections ?? CONNECTIONS,
    duration: opts.duration ?? DURATION,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function vacuumAnalyze(url: string, table: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`VACUUM ANALYZE ${table}`);
  } finally {
    await client.end();
  }
}

/** Raw single-row INSERT transactions/s through pg with the same pool size and concurrency. */
async function rawInsertBaseline(url: string): Promise<{ tps: number; p99: number }> {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, merchant_id text NOT NULL, description text NOT NULL, amount bigint NOT NULL, items jsonb NOT NULL, created_at timestamptz NOT NULL)',
  );
  const items = JSON.stringify([{ name: 'Coffee', quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }]);
  const deadline = performance.now() + DURATION * 1000;
  const latencies: number[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const c = await pool.connect();
        try {
          await c.query('BEGIN');
          await c.query('INSERT INTO bench_raw (merchant_id, description, amount, items, created_at) VALUES ($1, $2, $3, $4, now())', [
            'mch_bench',
            'bench',
            48900,
            items,
          ]);
          await c.query('COMMIT');
        } finally {
          c.release();
        }
        latencies.push(performance.now() - t0);
        n++;
      }
    }),
  );
  await pool.end();
  latencies.sort((a, b) => a - b);
  return { tps: n / DURATION, p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN };
}

interface DatabaseCounts {
  transactions: number;
  inserted: number;
  updated: number;
}

/** The database's own counts of committed transactions and rows written (pg_stat_database), as of now. */
async function databaseCounts(url: string): Promise<DatabaseCounts> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // A backend reports its counts at the end of a transaction, at most once a second, and an idle
    // one within ten seconds (PostgreSQL's PGSTAT_IDLE_INTERVAL): all of them are in after eleven.
    await new Promise((r) => setTimeout(r, 11_000));
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ xact_commit: string; tup_inserted: string; tup_updated: string }>(
      'SELECT xact_commit, tup_inserted, tup_updated FROM pg_stat_database WHERE datname = current_database()',
    );
    const r = rows[0];
    // This very statement's transaction is counted too; the caller subtracts it with an idle reading.
    return { transactions: Number(r?.xact_commit), inserted: Number(r?.tup_inserted), updated: Number(r?.tup_updated) };
  } finally {
    await client.end();
  }
}

/**
 * What one create costs the database, by its own counts: `n` creates one after another through the
 * API, less what an idle stretch of the same server counts (the reading's own transaction, the
 * server's timers).
 */
async function perCreate(url: string, createUrl: string, init: RequestInit, n: number): Promise<DatabaseCounts> {
  const a = await databaseCounts(url);
  for (let i = 0; i < n; i++) {
    const res = await fetch(createUrl, init);
    if (res.status !== 200) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  }
  const b = await databaseCounts(url);
  // The same stretch again with nothing asked: the reading's own transaction and the server's timers.
  const c = await databaseCounts(url);
  return {
    transactions: (b.transactions - a.transactions - (c.transactions - b.transactions)) / n,
    inserted: (b.inserted - a.inserted - (c.inserted - b.inserted)) / n,
    updated: (b.updated - a.updated - (c.updated - b.updated)) / n,
  };
}

async function merchantFor(url: string): Promise<{ apiKey: string; terminal: string }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(import.meta.dirname, '../bin/paylinks.js'), 'merchant', 'create', '--name', 'Bench', '--json'],
    {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
    },
  );
  const m = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { apiKey: string; terminalIdentifier: string };
  return { apiKey: m.apiKey, terminal: m.terminalIdentifier };
}

/** BENCH_ONLY=create,get,list,page,pglite,portal,flashsale,delivery,blackbox,scale,history (comma-separated) runs a subset; unset runs all. */
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
);
export const selected = (name: string): boolean => ONLY.size === 0 || ONLY.has(name);

/** How many different links the GET and page runs cycle through, so that no answer is a repeat of one row. */
const DISTINCT_LINKS = 1_000;

const withNon2xx = (l: Load): string => (l.non2xx ? `, ${l.non2xx} non-2xx` : '') + (l.errors ? `, ${l.errors} errors` : '');

export async function apiBenchmarks(): Promise<{ rows: Row[]; peakRssMb: number }> {
  const rows: Row[] = [];
  const bdb = await createBenchDatabase('api');
  const server = await startServer({ DATABASE_URL: bdb.url, PAYLINKS_DB_POOL_SIZE: String(POOL_SIZE) }, ['serve', '--no-worker']);
  try {
    const { apiKey, terminal } = await merchantFor(bdb.url);
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const body = JSON.stringify({
      type: 'PayByLink',
      terminalIdentifier: terminal,
      amount: 48900,
      currency: 'ISK',
      description: 'Benchmark link',
      items: [{ name: 'Coffee', quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
    });

    if (selected('create')) {
      const raw = await rawInsertBaseline(bdb.url);
      const createUrl = `${server.baseUrl}/api/v1/paymentlinks/create`;
      // Warmed up first, as the portal's pages are: a fresh process compiles the create path on its
      // first requests, which would otherwise count in the p99 of a server that has been running.
      await load(createUrl, { method: 'POST', headers, body, duration: 3 });
      const create = await load(createUrl, { method: 'POST', headers, body });
      rows.push({
        operation: `create payment link (${CONNECTIONS} conns)`,
        figure: `${fmt(create.rps)} req/s, p50 ${create.p50} ms, p99 ${create.p99} ms${withNon2xx(create)}`,
        baseline: `${fmt(raw.tps)} INSERT tx/s (pg, pool ${POOL_SIZE}), p99 ${fmt(raw.p99)} ms`,
        ratio: (create.rps / raw.tps).toFixed(2),
        target: '≥ 0.90, p99 ≤ 20 ms',
        met: create.rps / raw.tps >= 0.9 && create.p99 <= 20 && create.non2xx === 0 && create.errors === 0,
      });
      // A create writes its link and its audit entry in one statement: one transaction. The request's
      // other is the API key's lookup, a read made on every request so that a revoked key is refused at
      // once; with the key cache on (PAYLINKS_KEY_CACHE_MS) it is made once a minute.
      const cost = await perCreate(bdb.url, createUrl, { method: 'POST', headers, body }, 500);
      const cached = await startServer({ DATABASE_URL: bdb.url, PAYLINKS_DB_POOL_SIZE: String(POOL_SIZE), PAYLINKS_KEY_CACHE_MS: '60000' }, [
        'serve',
        '--no-worker',
      ]);
      let own: DatabaseCounts;
      try {
        own = await perCreate(bdb.url, `${cached.baseUrl}/api/v1/paymentlinks/create`, { method: 'POST', headers, body }, 500);
      } finally {
        await cached.stop();
      }
      const counts = (c: DatabaseCounts) => `${fmt(c.transactions, 2)} transactions, ${fmt(c.inserted, 2)} rows inserted, ${fmt(c.updated, 2)} updated`;
      rows.push({
        operation: 'one create, as the database counts it (500 one after another)',
        figure: `${counts(own)}; with the key looked up (the default) ${counts(cost)}`,
        baseline: 'pg_stat_database, less an idle stretch as long',
        ratio: fmt(own.transactions, 2),
        target: '1 transaction',
        met: Math.round(own.transactions * 100) / 100 <= 1,
      });
    }

    // What autovacuum does within a minute of such writes on a production server (this machine's
    // PostgreSQL runs with it off): statistics that count the links just made. With those of the
    // nearly empty table the planner reads every link of the merchant and sorts them for each of a
    // list's first plans on a connection (96 ms at 38,000 links instead of 3 ms), and the list's p99
    // and serve's peak RSS measured how many requests piled up behind those.
    await vacuumAnalyze(bdb.url, 'payment_links');

    // The GET and page runs cycle through this many links of the merchant, newest first.
    const refs: string[] = [];
    for (let page = 0; refs.length < DISTINCT_LINKS; page++) {
      const listed = (await (await fetch(`${server.baseUrl}/api/v1/paymentlinks?PageSize=100&Page=${page}`, { headers })).json()) as {
        data: { paymentLinkReference: string }[];
      };
      if (listed.data.length === 0) break;
      refs.push(...listed.data.map((d) => d.paymentLinkReference));
    }
    while (refs.length < DISTINCT_LINKS) {
      refs.push(
        ((await (await fetch(`${server.baseUrl}/api/v1/paymentlinks/create`, { method: 'POST', headers, body })).json()) as { paymentLinkReference: string })
          .paymentLinkReference,
      );
    }
    const cycle = (prefix: string) => {
      let i = 0;
      return () => `${prefix}${refs[i++ % refs.length]}`;
    };

    const health = await load(`${server.baseUrl}/healthz`, {});
    if (selected('get')) {
      const get = await load(server.baseUrl, { headers: { 'x-api-key': apiKey }, path: cycle('/api/v1/paymentlinks/') });
      rows.push({
        operation: `get payment link (${fmt(refs.length)} different links)`,
        figure: `${fmt(get.rps)} req/s, p99 ${get.p99} ms${withNon2xx(get)}`,
        baseline: `${fmt(health.rps)} req/s GET /healthz`,
        ratio: (get.rps / health.rps).toFixed(2),
        target: '≥ 10,000 req/s',
        met: get.rps >= 10_000 && get.non2xx === 0 && get.errors === 0,
      });
    }

    if (selected('list')) {
      const list = await load(`${server.baseUrl}/api/v1/paymentlinks?PageSize=100`, { headers: { 'x-api-key': apiKey } });
      rows.push({
        operation: 'list payment links (PageSize 100)',
        figure: `${fmt(list.rps)} req/s, p99 ${list.p99} ms${withNon2xx(list)}`,
        baseline: `${fmt(health.rps)} req/s GET /healthz`,
        ratio: (list.rps / health.rps).toFixed(2),
        target: 'reported',
      });
    }

    if (selected('page')) {
      const page = await load(server.baseUrl, { path: cycle('/pay/') });
      rows.push({
        operation: `shopper page /pay/{ref} (${fmt(refs.length)} different links)`,
        figure: `${fmt(page.rps)} req/s, p99 ${page.p99} ms${withNon2xx(page)}`,
        baseline: `${fmt(health.rps)} req/s GET /healthz`,
        ratio: (page.rps / health.rps).toFixed(2),
        target: 'reported',
      });
    }
    return { rows, peakRssMb: server.peakRssMb() };
  } finally {
    await server.stop();
    await bdb.drop();
  }
}

/** The maintained Node lines `serve` is measured on, each from scripts/with-node.sh (the registry's `node` package). */
const NODE_LINES = ['22', '24', '26'] as const;
/** Peak memory of a start on the embedded database, first or later, on every line (docs/performance.md). */
const START_PEAK_TARGET_MB = 250;

/**
 * `serve` on the embedded database, started as `npm start` starts it (the bin, its #! line's options),
 * on each maintained Node line: the first start (the database made from the template) and a later
 * one, with their time and peak memory (VmHWM).
 */
export async function pgliteStartup(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const line of NODE_LINES) {
    const nodeBin = execFileSync(join(ROOT, 'scripts/with-node.sh'), ['--bin', line], { encoding: 'utf8' }).trim();
    const version = execFileSync(join(nodeBin, 'node'), ['--version'], { encoding: 'utf8' }).trim();
    const dir = await mkdtemp(join(tmpdir(), 'paylinks-bench-pglite-'));
    try {
      const env = { PAYLINKS_DATA_DIR: join(dir, 'data') };
      let t0 = performance.now();
      const first = await startServer(env, ['serve'], nodeBin);
      const firstMs = performance.now() - t0;
      const firstPeak = first.peakRssMb();
      await first.stop();
      t0 = performance.now();
      const second = await startServer(env, ['serve'], nodeBin);
      const secondMs = performance.now() - t0;
      const idle = second.rssMb();
      const secondPeak = second.peakRssMb();
      await second.stop();
      rows.push(
        {
          operation: `PGlite first start (creates the database), Node ${version}`,
          figure: `${fmt(firstMs)} ms, peak RSS ${fmt(firstPeak)} MB`,
          baseline: '',
          ratio: '',
          target: `peak ≤ ${START_PEAK_TARGET_MB} MB`,
          met: firstPeak <= START_PEAK_TARGET_MB,
        },
        {
          operation: `PGlite start (existing database), Node ${version}`,
          figure: `${fmt(secondMs)} ms, RSS ${fmt(idle)} MB (peak ${fmt(secondPeak)} MB)`,
          baseline: '',
          ratio: '',
          target: `peak ≤ ${START_PEAK_TARGET_MB} MB`,
          met: secondPeak <= START_PEAK_TARGET_MB,
        },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return rows;
}
