import autocannon from 'autocannon';
import { systemClock } from '../src/clock.js';
import { createMerchant } from '../src/accounts/service.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { createUser, redeemLink } from '../src/users/service.js';
import { createBenchDatabase, fmt, startServer, type Row, type ServerProcess } from './lib.js';

// The portal's pages at a merchant's full size (docs/performance.md): one merchant with 200,000 links
// and 1,000,000 payments on PostgreSQL, each page beside the API list of the same page size in the
// same run. A page does more than the API (the session, the merchant's name, the HTML), so the
// target is half the API's requests/s.

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 50;
const LINKS = Number(process.env.BENCH_PORTAL_LINKS ?? 200_000);
const PAYMENTS = Number(process.env.BENCH_PORTAL_PAYMENTS ?? 1_000_000);
/** Seconds between two seeded payments (1: the newest million cover 11.6 days). */
const PAYMENT_SPACING = Number(process.env.BENCH_PORTAL_PAYMENT_SPACING ?? 1);
const PASSWORD = 'bench portal password';

async function rps(url: string, headers: Record<string, string>, duration = DURATION): Promise<{ rps: number; p99: number; bad: number }> {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration });
  return { rps: r.requests.average, p99: r.latency.p99, bad: r.non2xx + r.errors };
}

/** An owner of the merchant with a password, signed in: the session's cookie, as a browser sends it. */
export async function signedInOwner(db: Database, merchantId: string, email: string): Promise<string> {
  const link = await createUser(db, systemClock, { email, owner: { merchantId }, role: 'owner', createdBy: null });
  const redeemed = await redeemLink(db, systemClock, link.token, { password: PASSWORD, confirm: PASSWORD }, { idleMs: 3_600_000, absoluteMs: 12 * 3_600_000 });
  if (redeemed.kind !== 'ok') throw new Error(`bench user: ${redeemed.kind}`);
  return `paylinks_session=${redeemed.session.token}`;
}

/** The merchant, its links and payments written by SQL (an API create per row would take an hour), and a signed-in owner. */
export async function seed(url: string): Promise<{ apiKey: string; cookie: string; reference: string }> {
  const db = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 2 });
  try {
    await migrate(db);
    const m = await createMerchant(db, 'Bench');
    const items = JSON.stringify([{ name: 'Coffee', quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }]);
    await db.pool.query(
      `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, description, amount, currency, culture, items, created_at, updated_at)
       SELECT 'pl_bench' || lpad(i::text, 7, '0'), $1, $2, 'PayByLink', 'Bench link ' || i, 48900, 'ISK', 'is', $3::jsonb,
              now() - make_interval(secs => $4 - i), now()
         FROM generate_series(1, $4::int) i`,
      [m.merchantId, m.terminalIdentifier, items, LINKS],
    );
    await db.pool.query(
      `INSERT INTO payments (payfac_reference, merchant_id, terminal_identifier, payment_link_reference, event_checkout_reference, amount, currency,
         success, card_masked, card_summary, card_expiry, payment_method, three_d_authenticated, capture_state, captured_amount, created_at)
       SELECT (1000000000000000 + i)::text, $1, $2, 'pl_bench' || lpad((1 + i % $3)::text, 7, '0'), 'cs_bench' || i, 48900, 'ISK',
              true, '424242******4242', '4242', '12/2030', 'visa', false, 'Captured', 48900, now() - make_interval(secs => ($4 - i) * $5::float8)
         FROM generate_series(1, $4::int) i`,
      [m.merchantId, m.terminalIdentifier, LINKS, PAYMENTS, PAYMENT_SPACING],
    );
    // What autovacuum does within a minute of such writes on a production server (this machine's
    // PostgreSQL runs with it off): the planner's statistics, the visibility map, and the link
    // search's trigram entries merged from the index's pending list, which a search otherwise reads.
    await db.pool.query('VACUUM ANALYZE payment_links');
    await db.pool.query('VACUUM ANALYZE payments');
    const cookie = await signedInOwner(db, m.merchantId, 'bench@example.com');
    return { apiKey: m.apiKey, cookie, reference: `pl_bench${String(LINKS).padStart(7, '0')}` };
  } finally {
    await db.close();
  }
}

/** The payfacReference of the newest seeded payment. */
const FIRST_PAYMENT = String(1_000_000_000_000_000 + PAYMENTS);

/**
 * The CSV export of every payment, read to its end as a browser downloads it, with the server's
 * resident memory sampled meanwhile: streamed in batches, its peak stays near where it started
 * however large the file (the file is many times the growth).
 */
async function csvExport(server: ServerProcess, cookie: string): Promise<Row> {
  const before = server.rssMb();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, server.rssMb());
  }, 50);
  const t0 = performance.now();
  let bytes = 0;
  let lines = 0;
  try {
    const res = await fetch(`${server.baseUrl}/portal/payments/export.csv`, { headers: { cookie } });
    if (res.status !== 200 || !res.body) throw new Error(`portal bench: the export answered ${res.status}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
    }
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, server.rssMb());
  const seconds = (performance.now() - t0) / 1000;
  const growth = peak - before;
  const mb = bytes / 1024 / 1024;
  return {
    operation: `portal CSV export of ${fmt(lines - 1)} payments (${fmt(mb)} MB)`,
    figure: `${fmt(seconds)} s (${fmt((lines - 1) / seconds)} rows/s); server RSS ${fmt(before)} MB before, peak ${fmt(peak)} MB`,
    baseline: `file size ${fmt(mb)} MB`,
    ratio: (growth / mb).toFixed(2),
    target: 'RSS growth ≤ 0.25 × file',
    met: lines - 1 === PAYMENTS && growth <= 0.25 * mb,
  };
}

export async function portalBenchmarks(): Promise<Row[]> {
  const bdb = await createBenchDatabase('portal');
  try {
    const t0 = performance.now();
    const { apiKey, cookie: session, reference } = await seed(bdb.url);
    console.log(`portal bench: ${fmt(LINKS)} links and ${fmt(PAYMENTS)} payments written in ${fmt((performance.now() - t0) / 1000)} s`);
    const server = await startServer({ DATABASE_URL: bdb.url, PAYLINKS_DB_POOL_SIZE: '10' }, ['serve', '--no-worker']);
    try {
      // A browser keeps the form-token cookie of its first page and sends it with the next.
      const first = await fetch(`${server.baseUrl}/portal/links`, { headers: { cookie: session } });
      const formCookie = /paylinks_portal_csrf=[^;]+/.exec(first.headers.getSetCookie().join('\n'))?.[0];
      if (first.status !== 200 || formCookie === undefined) throw new Error(`portal bench: the first page answered ${first.status}`);
      const cookie = `${session}; ${formCookie}`;
      const apiUrl = `${server.baseUrl}/api/v1/paymentlinks?PageSize=20`;
      // Both warmed up first (a fresh process compiles as it goes), so that neither pays for it in the figure.
      await rps(apiUrl, { 'x-api-key': apiKey }, 3);
      await rps(`${server.baseUrl}/portal/links`, { cookie }, 3);
      const api = await rps(apiUrl, { 'x-api-key': apiKey });
      const rows: Row[] = [];
      // Each page is warmed up as the two above are: its views and queries are compiled on their
      // first requests, which would otherwise count in its figure.
      const page = async (operation: string, path: string, target: boolean): Promise<void> => {
        await rps(`${server.baseUrl}${path}`, { cookie }, 2);
        const r = await rps(`${server.baseUrl}${path}`, { cookie });
        const ratio = r.rps / api.rps;
        rows.push({
          operation,
          figure: `${fmt(r.rps)} req/s, p99 ${r.p99} ms${r.bad ? `, ${r.bad} not 200` : ''}`,
          baseline: `${fmt(api.rps)} req/s API list (PageSize 20)`,
          ratio: ratio.toFixed(2),
          target: target ? '≥ 0.50' : 'reported',
          ...(target ? { met: ratio >= 0.5 && r.bad === 0 } : {}),
        });
      };
      await page(`portal links page (${fmt(LINKS)} links, 20 a page)`, '/portal/links', true);
      await page('portal links page, filtered by status', '/portal/links?status=Active', false);
      await page(`portal link page with its payments (${fmt(PAYMENTS)} payments)`, `/portal/links/${reference}`, false);
      await page(`portal payments page (${fmt(PAYMENTS)} payments, 20 a page)`, '/portal/payments', true);
      await page('portal payments page, filtered by status and day', '/portal/payments?state=captured&from=2020-01-01', false);
      await page(`portal payment page (timeline, webhooks, forms)`, `/portal/payments/${FIRST_PAYMENT}`, false);
      await page('portal overview (7 days of sales, newest payments, failing webhooks)', '/portal', false);
      await page('portal overview (30 days)', '/portal?days=30', false);
      rows.push(await csvExport(server, cookie));
      // Last, as it was when no index served a substring and a timed-out run left queries queued.
      await page('portal links page, searched for a rare text', '/portal/links?q=bench%20link%2019999', false);
      return rows;
    } finally {
      await server.stop();
    }
  } finally {
    await bdb.drop();
  }
}
