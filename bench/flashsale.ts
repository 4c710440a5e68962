import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createBenchDatabase, fmt, startServer, type Row } from './lib.js';

// A flash sale (docs/performance.md, Payments at a real pace): `paylinks serve` as its own process on
// PostgreSQL with the simulated acquirer answering after 300 ms; one link capped at 500 sales; 1,000
// shoppers paying through the pay page's own form (GET the page for its cookie and form token, POST
// the card), 200 at a time, from this process; meanwhile a steady 20 requests/s read another link
// through the API. The same run at 0 ms is the baseline. A shopper whose page already says the link
// is sold out sends nothing and counts as refused (`0` among the answers).

const SHOPPERS = Number(process.env.BENCH_FLASH_SHOPPERS ?? 1_000);
const AT_ONCE = Number(process.env.BENCH_FLASH_AT_ONCE ?? 200);
const CAP = Number(process.env.BENCH_FLASH_CAP ?? 500);
const LATENCY_MS = Number(process.env.BENCH_FLASH_LATENCY_MS ?? 300);
const READS_PER_SECOND = 20;
/** A shopper who found the link sold out on its page and sent nothing. */
const SOLD_OUT = 0;

interface Sale {
  statuses: string;
  serverLog: string;
  paid: number;
  refused: number;
  other: number;
  seconds: number;
  payP50: number;
  payP99: number;
  readP99: number;
  paymentRows: number;
  failedRows: number;
  holdsLeft: number;
}

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;

async function merchantFor(url: string): Promise<{ apiKey: string; terminal: string }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(import.meta.dirname, '../bin/paylinks.js'), 'merchant', 'create', '--name', 'Flash', '--json'],
    {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
    },
  );
  const m = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { apiKey: string; terminalIdentifier: string };
  return { apiKey: m.apiKey, terminal: m.terminalIdentifier };
}

async function createLink(base: string, apiKey: string, terminal: string, cap: number | null): Promise<string> {
  const res = await fetch(`${base}/api/v1/paymentlinks/create`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'PayByLink',
      terminalIdentifier: terminal,
      amount: 48900,
      currency: 'ISK',
      description: 'Tónleikar',
      culture: 'en',
      items: [{ name: 'Miði', quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
      ...(cap !== null ? { exactSalesCount: cap } : {}),
    }),
  });
  const body = (await res.json()) as { paymentLinkReference?: string };
  if (!res.ok || !body.paymentLinkReference) throw new Error(`link create answered ${res.status}: ${JSON.stringify(body)}`);
  return body.paymentLinkReference;
}

/** One shopper: the page (its cookie and form token), then the card; the post's status and time. */
async function shop(base: string, ref: string): Promise<{ status: number; ms: number }> {
  const page = await fetch(`${base}/pay/${ref}`);
  const html = await page.text();
  if (page.status !== 200) return { status: 1000 + page.status, ms: 0 };
  // Sold out before this shopper came: the page says so and has no form to send.
  if (!/name="_csrf"/.test(html)) return { status: SOLD_OUT, ms: 0 };
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const t0 = performance.now();
  const res = await fetch(`${base}/pay/${ref}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' }).toString(),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
}

async function sale(latencyMs: number): Promise<Sale> {
  const bdb = await createBenchDatabase(`flash${latencyMs}`);
  const server = await startServer({ DATABASE_URL: bdb.url, PAYLINKS_SANDBOX_ACQUIRER_LATENCY_MS: String(latencyMs) }, ['serve', '--no-worker']);
  try {
    const { apiKey, terminal } = await merchantFor(bdb.url);
    const ref = await createLink(server.baseUrl, apiKey, terminal, CAP);
    const other = await createLink(server.baseUrl, apiKey, terminal, null);

    // The steady reader of another link, until the sale is over.
    let selling = true;
    const reads: number[] = [];
    const reader = (async () => {
      while (selling) {
        const t0 = performance.now();
        const r = await fetch(`${server.baseUrl}/api/v1/paymentlinks/${other}`, { headers: { 'x-api-key': apiKey } });
        await r.arrayBuffer();
        reads.push(performance.now() - t0);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 / READS_PER_SECOND - (performance.now() - t0))));
      }
    })();

    let next = 0;
    const posts: { status: number; ms: number }[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < SHOPPERS) {
          next++;
          posts.push(await shop(server.baseUrl, ref));
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    selling = false;
    await reader;

    const client = new pg.Client({ connectionString: bdb.url });
    await client.connect();
    const counts = await client.query<{ rows: number; failed: number; holds: number }>(
      `SELECT (SELECT count(*)::int FROM payments WHERE payment_link_reference = $1) AS rows,
              (SELECT count(*)::int FROM payments WHERE payment_link_reference = $1 AND NOT success) AS failed,
              (SELECT count(*)::int FROM payment_holds) AS holds`,
      [ref],
    );
    await client.end();
    const times = posts
      .filter((p) => p.status !== SOLD_OUT)
      .map((p) => p.ms)
      .sort((a, b) => a - b);
    const readTimes = [...reads].sort((a, b) => a - b);
    const c = counts.rows[0];
    const histogram = new Map<number, number>();
    for (const p of posts) histogram.set(p.status, (histogram.get(p.status) ?? 0) + 1);
    return {
      statuses: [...histogram].map(([status, n]) => `${status}×${n}`).join(' '),
      serverLog: server
        .output()
        .split('\n')
        .filter((l) => /error|warn/i.test(l))
        .slice(0, 5)
        .join('\n'),
      paid: posts.filter((p) => p.status === 303).length,
      refused: posts.filter((p) => p.status === 409 || p.status === SOLD_OUT).length,
      other: posts.filter((p) => p.status !== 303 && p.status !== 409 && p.status !== SOLD_OUT).length,
      seconds,
      payP50: quantile(times, 0.5),
      payP99: quantile(times, 0.99),
      readP99: quantile(readTimes, 0.99),
      paymentRows: c?.rows ?? NaN,
      failedRows: c?.failed ?? NaN,
      holdsLeft: c?.holds ?? NaN,
    };
  } finally {
    await server.stop();
    await bdb.drop();
  }
}

export async function flashSaleBenchmarks(): Promise<{ rows: Row[]; log: string }> {
  const base = await sale(0);
  const paced = await sale(LATENCY_MS);
  const rate = (s: Sale): number => s.paid / s.seconds;
  const label = `flash sale, ${fmt(SHOPPERS)} shoppers ${fmt(AT_ONCE)} at once, cap ${fmt(CAP)}`;
  const log =
    [base, paced]
      .map(
        (s, i) =>
          `${label}, acquirer ${i === 0 ? 0 : LATENCY_MS} ms: ${s.paid} paid, ${s.refused} refused, ${s.other} other answers in ${fmt(s.seconds, 1)} s; ` +
          `answers ${s.statuses}; payment rows ${s.paymentRows} (${s.failedRows} failed), holds left ${s.holdsLeft}; pay post p50 ${fmt(s.payP50)} ms p99 ${fmt(s.payP99)} ms; other link's read p99 ${fmt(s.readP99, 1)} ms`,
      )
      .join('\n') + [base, paced].map((s) => (s.serverLog ? `\nserve said:\n${s.serverLog}` : '')).join('');
  const exact = paced.paid === CAP && paced.paymentRows === CAP && paced.failedRows === 0 && paced.refused === SHOPPERS - CAP && paced.holdsLeft === 0;
  return {
    log,
    rows: [
      {
        operation: `${label}: payments/s at ${LATENCY_MS} ms`,
        figure: `${fmt(rate(paced))}/s`,
        baseline: `${fmt(rate(base))}/s at 0 ms`,
        ratio: fmt(rate(paced) / rate(base), 2),
        target: '≥ 100/s',
        met: rate(paced) >= 100,
      },
      {
        operation: `${label}: paid, refused (each with no payment row)`,
        figure: `${paced.paid} paid, ${paced.refused} refused, ${paced.paymentRows} payment rows`,
        baseline: `${base.paid} paid at 0 ms`,
        ratio: '',
        target: `exactly ${CAP} paid`,
        met: exact,
      },
      {
        operation: `${label}: a shopper's pay post p50 / p99`,
        figure: `${fmt(paced.payP50)} / ${fmt(paced.payP99)} ms`,
        baseline: `${fmt(base.payP50)} / ${fmt(base.payP99)} ms at 0 ms`,
        ratio: '',
        target: '',
        met: true,
      },
      {
        operation: `${label}: another link read through the API meanwhile, p99`,
        figure: `${fmt(paced.readP99, 1)} ms`,
        baseline: `${fmt(base.readP99, 1)} ms at 0 ms`,
        ratio: '',
        target: '≤ 100 ms',
        met: paced.readP99 <= 100,
      },
    ],
  };
}
