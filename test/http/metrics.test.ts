import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';
import { testWorker } from '../webhooks/helpers.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';

// Prometheus metrics, scraped and parsed as Prometheus would: HTTP by route and status, webhook
// attempts by outcome, the due backlog, the database pool, the event loop.

const BIN = join(import.meta.dirname, '../../bin/paylinks.js');
const run = promisify(execFile);

function family(families: PromFamily[], name: string): PromFamily {
  const f = families.find((x) => x.name === name);
  if (!f) throw new Error(`no metric family ${name}; have ${families.map((x) => x.name).join(', ')}`);
  return f;
}

function sample(f: PromFamily, labels: Record<string, string>): { value?: string; count?: string; sum?: string } | undefined {
  return f.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/**
 * The _count of one labelled histogram series. The parser checks the whole text and the family's type,
 * but it folds the series of a labelled histogram into one, so the count is read from its own line.
 */
function histogramCount(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}_count\\{(.*)\\} (\\S+)$`).exec(line);
    if (!m) continue;
    const got = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[2]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  let ctx: TestContext;
  let worker: DeliveryWorker;
  let receiver: Server;
  let port: number;

  beforeAll(async () => {
    ctx = await createTestContext();
    worker = testWorker(ctx, { metrics: ctx.app.metrics });
    receiver = createServer((req, res) => res.writeHead(req.url === '/ok' ? 200 : 503).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await worker.stop(5_000);
    receiver.close();
    await ctx.close();
  });

  let lastText = '';
  async function scrape(): Promise<PromFamily[]> {
    const r = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    lastText = r.body;
    return parsePrometheusTextFormat(r.body);
  }

  it('counts requests by route pattern and status, with a latency histogram', async () => {
    for (let i = 0; i < 3; i++) expect((await call(ctx, 'GET', '/api/v1/paymentlinks')).status).toBe(200);
    expect((await call(ctx, 'GET', '/api/v1/paymentlinks/pl_nope')).status).toBe(404);
    expect((await call(ctx, 'GET', '/api/v1/paymentlinks', undefined, { apiKey: 'pk_wrong_wrong_wrong_wrong' })).status).toBe(401);
    const http = family(await scrape(), 'paylinks_http_request_duration_seconds');
    expect(http.type).toBe('HISTOGRAM');
    const count = (labels: Record<string, string>): number | undefined => histogramCount(lastText, 'paylinks_http_request_duration_seconds', labels);
    expect(count({ method: 'GET', route: '/api/v1/paymentlinks', status: '200' })).toBe(3);
    expect(count({ method: 'GET', route: '/api/v1/paymentlinks', status: '401' })).toBe(1);
    // The pattern, not the reference: one series for every link.
    expect(count({ method: 'GET', route: '/api/v1/paymentlinks/:reference', status: '404' })).toBe(1);
    expect(lastText).not.toContain('pl_nope');
  });

  it('counts webhook attempts by outcome, deliveries that failed for good, and the due backlog', async () => {
    await call(ctx, 'POST', '/api/v1/webhooks', { url: `http://127.0.0.1:${port}/ok`, eventTypes: ['Capture'] });
    await call(ctx, 'POST', '/api/v1/webhooks', { url: `http://127.0.0.1:${port}/down`, eventTypes: ['Capture'] });
    await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Capture', amount: 100, currency: 'EUR' });
    // Due and not yet sent: the backlog shows it.
    let families = await scrape();
    expect(sample(family(families, 'paylinks_webhook_deliveries_due'), {})?.value).toBe('2');
    ctx.clock.advance(30_000);
    families = await scrape();
    expect(Number(sample(family(families, 'paylinks_webhook_oldest_due_seconds'), {})?.value)).toBe(30);

    await worker.start();
    await worker.settled();
    for (const delay of [60_000, 600_000, 3_600_000, 21_600_000]) {
      ctx.clock.advance(delay);
      await worker.settled();
    }
    families = await scrape();
    const attempts = family(families, 'paylinks_webhook_attempts_total');
    expect(sample(attempts, { outcome: 'delivered' })?.value).toBe('1');
    expect(sample(attempts, { outcome: 'status' })?.value).toBe('5');
    expect(family(families, 'paylinks_webhook_attempt_duration_seconds').type).toBe('HISTOGRAM');
    expect(histogramCount(lastText, 'paylinks_webhook_attempt_duration_seconds', { outcome: 'status' })).toBe(5);
    expect(histogramCount(lastText, 'paylinks_webhook_attempt_duration_seconds', { outcome: 'delivered' })).toBe(1);
    expect(sample(family(families, 'paylinks_webhook_deliveries_failed_total'), {})?.value).toBe('1');
    expect(sample(family(families, 'paylinks_webhook_deliveries_due'), {})?.value).toBe('0');
    expect(sample(family(families, 'paylinks_webhook_oldest_due_seconds'), {})?.value).toBe('0');
    // The worker's holdings: nothing held once it has settled, nothing given back.
    const held = family(families, 'paylinks_worker_deliveries_held');
    expect(held.metrics.map((m) => [m.labels?.stage, m.value]).sort()).toEqual([
      ['queued', '0'],
      ['sending', '0'],
    ]);
    expect(sample(family(families, 'paylinks_worker_webhooks'), { state: 'held' })?.value).toBe('0');
    const givenBack = family(families, 'paylinks_webhook_deliveries_given_back_total');
    expect(givenBack.metrics.map((m) => m.labels?.reason).sort()).toEqual(['slow_endpoint', 'stopping']);
  });

  it('shows the database pool and the process, event loop lag included', async () => {
    const families = await scrape();
    const pool = family(families, 'paylinks_db_pool_connections');
    expect(pool.metrics.map((m) => m.labels?.state).sort()).toEqual(['idle', 'total', 'waiting']);
    expect(Number(sample(pool, { state: 'total' })?.value)).toBeGreaterThanOrEqual(1);
    expect(family(families, 'paylinks_nodejs_eventloop_lag_seconds').type).toBe('GAUGE');
    expect(family(families, 'paylinks_process_cpu_seconds_total').type).toBe('COUNTER');
  });
});

describe('GET /metrics in production', () => {
  it('does not exist without a token, and with one needs it', async () => {
    const prod = { PAYLINKS_ENV: 'production', PAYLINKS_SECRET_KEY: 'cd'.repeat(32) };
    const closed = await createTestContext(prod);
    try {
      const r = await closed.app.inject({ method: 'GET', url: '/metrics' });
      expect(r.statusCode).toBe(404);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await closed.close();
    }
    const token = 'metrics-token-0123456789';
    const guarded = await createTestContext({ ...prod, PAYLINKS_METRICS_TOKEN: token });
    try {
      expect((await guarded.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      expect((await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}x` } })).statusCode).toBe(401);
      const ok = await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      expect(ok.statusCode).toBe(200);
      expect(parsePrometheusTextFormat(ok.body).length).toBeGreaterThan(10);
      // The token is never logged.
      expect(guarded.logs.join('\n')).not.toContain(token);
    } finally {
      await guarded.close();
    }
  });
});

describe.skipIf(TEST_DB !== 'postgres')('PAYLINKS_METRICS_LISTEN on a separate worker process', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('shows the attempts a `paylinks worker` made, on its own listener', async () => {
    const receiver = createServer((_req, res) => res.writeHead(200).end('ok'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const rport = (receiver.address() as AddressInfo).port;
    const env = { PATH: process.env.PATH ?? '', DATABASE_URL: tdb.url as string, LOG_LEVEL: 'warn' };
    const { stdout } = await run(process.execPath, [BIN, 'merchant', 'create', '--name', 'Metrics', '--json'], { env });
    const key = (JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { apiKey: string }).apiKey;
    const serve = spawn(process.execPath, [BIN, 'serve', '--no-worker'], { env: { ...env, PORT: '0' } });
    const worker = spawn(process.execPath, [BIN, 'worker'], { env: { ...env, PAYLINKS_METRICS_LISTEN: '127.0.0.1:0' } });
    let serveOut = '';
    let workerOut = '';
    serve.stdout.on('data', (d: Buffer) => (serveOut += d.toString()));
    worker.stdout.on('data', (d: Buffer) => (workerOut += d.toString()));
    try {
      const deadline = Date.now() + 60_000;
      while (!/listening on (http:\/\/\S+)/.test(serveOut) || !/metrics: (http:\/\/\S+)/.test(workerOut)) {
        if (Date.now() > deadline) throw new Error(`did not start:\n${serveOut}\n${workerOut}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const base = /listening on (http:\/\/\S+)/.exec(serveOut)?.[1] as string;
      const metricsUrl = /metrics: (http:\/\/\S+)/.exec(workerOut)?.[1] as string;
      const post = (path: string, body: unknown) =>
        fetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post('/api/v1/webhooks', { url: `http://127.0.0.1:${rport}/h` })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await post('/api/v1/sandbox/events', { eventType: 'Authorization', amount: 100, currency: 'EUR' })).status).toBe(200);
      let delivered = '0';
      while (delivered !== '3' && Date.now() < deadline) {
        const text = await (await fetch(metricsUrl)).text();
        delivered = sample(family(parsePrometheusTextFormat(text), 'paylinks_webhook_attempts_total'), { outcome: 'delivered' })?.value ?? '0';
        if (delivered !== '3') await new Promise((r) => setTimeout(r, 100));
      }
      expect(delivered).toBe('3');
      expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      serve.kill('SIGTERM');
      worker.kill('SIGTERM');
      receiver.close();
      await Promise.all([new Promise((r) => serve.once('exit', r)), new Promise((r) => worker.once('exit', r))]);
    }
  }, 120_000);
});
