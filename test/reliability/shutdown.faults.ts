import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { payByLink } from '../checkout/fixtures.js';
import { register, startReceiver, type Receiver } from '../webhooks/helpers.js';
import { api, type Result } from './http.js';
import { killAll, sleep, startServe, until } from './processes.js';

// Issue 7, property 6 (§Running the service): SIGTERM while requests and webhook attempts are in flight. The server
// stops accepting, finishes what it accepted and records every attempt it sent, then exits 0. The
// oracle needs no timing: a create that changed the database must have been answered 200, a 200 must
// be in the database, and every attempt the receiver answered must be recorded.

const CLIENTS = 24;

describe.skipIf(TEST_DB !== 'postgres')('SIGTERM under load loses no accepted request and no attempt result (§Running the service; PostgreSQL)', () => {
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

  it('drains: every create that wrote was answered 200, every attempt sent is recorded, exit 0', async () => {
    const answered = new Set<string>(); // correlation ids the receiver answered 200
    receiver.on('/drain', (req, res) => {
      // Slow enough that attempts are in flight when SIGTERM arrives (the limit is 15 s).
      setTimeout(() => {
        res.writeHead(200).end('ok');
        answered.add(String(req.headers['x-webhook-correlationid']));
      }, 1_000);
    });
    const webhook = await register(ctx, `${receiver.url}/drain`);
    const serve = await startServe({ DATABASE_URL: ctx.tdb.url as string });
    const base = serve.baseUrl;
    const key = ctx.merchant.apiKey;

    let signalled = false;
    const results: { description: string; r: Result; afterSignal: boolean }[] = [];
    const client = async (n: number) => {
      for (let i = 0; ; i++) {
        const description = `drain-${n}-${i}`;
        const sentBeforeSignal = !signalled;
        const r = await api(base, key, 'POST', '/api/v1/paymentlinks/create', payByLink(ctx, { description }), { 'idempotency-key': description });
        results.push({ description, r, afterSignal: !sentBeforeSignal || signalled });
        if (i % 3 === 0 && r.status === 200) await api(base, key, 'POST', '/api/v1/sandbox/events', { eventType: 'Capture', amount: 100, currency: 'EUR' });
        if (r.status !== 200) return;
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    await until(
      () => receiver.received.filter((r) => r.path === '/drain').length > answered.size + 3 && results.length > 200,
      'requests and attempts in flight',
      30_000,
      20,
    );
    const inFlightAttempts = receiver.received.filter((r) => r.path === '/drain').length - answered.size;
    signalled = true;
    const signalAt = Date.now();
    serve.proc.kill('SIGTERM');
    const code = await serve.exited;
    const drainMs = Date.now() - signalAt;
    await load;
    expect(code, serve.output().slice(-2000)).toBe(0);
    expect(serve.output()).toMatch(/SIGTERM received: draining/);
    // Drained by itself: the 20 s grace period never had to cut connections or attempts.
    expect(serve.output()).not.toMatch(/grace period over|stopped with attempts in flight/);

    const q = async <T extends Record<string, unknown>>(text: string, values: unknown[]): Promise<T[]> => (await ctx.tdb.db.pool.query<T>(text, values)).rows;
    const stored = new Set(
      (await q<{ description: string }>("SELECT description FROM payment_links WHERE description LIKE 'drain-%'", [])).map((r) => r.description),
    );
    const unanswered = results.filter((x) => stored.has(x.description) && x.r.status !== 200).map((x) => `${x.description}: ${x.r.status ?? x.r.error}`);
    expect(unanswered, 'a create that wrote was answered 200').toEqual([]);
    const lost = results.filter((x) => x.r.status === 200 && !stored.has(x.description)).map((x) => x.description);
    expect(lost, 'every 200 is stored').toEqual([]);
    const endings = new Map<string, number>();
    for (const x of results.filter((y) => y.r.status !== 200)) endings.set(`${x.r.status ?? x.r.error}`, (endings.get(`${x.r.status ?? x.r.error}`) ?? 0) + 1);
    for (const ending of endings.keys()) expect(['503', 'ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']).toContain(ending);

    // Every attempt the receiver answered is recorded with its correlation id.
    await sleep(200);
    const recorded = new Set(
      (
        await q<{ correlation_id: string }>(
          'SELECT a.correlation_id FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1',
          [webhook.webhookId],
        )
      ).map((r) => r.correlation_id),
    );
    const missing = [...answered].filter((c) => !recorded.has(c));
    expect(missing, 'every answered attempt is recorded').toEqual([]);
    const answeredAfterSignal = results.filter((x) => x.afterSignal && x.r.status === 200).length;
    console.log(
      `graceful shutdown: ${results.length} creates, ${stored.size} stored and all answered 200 (${answeredAfterSignal} of them finished after SIGTERM); ` +
        `other endings ${JSON.stringify(Object.fromEntries(endings))}; ${inFlightAttempts} attempts in flight at SIGTERM, ${answered.size} answered, all recorded; exit ${code} after ${drainMs} ms`,
    );
    expect(inFlightAttempts).toBeGreaterThan(0);
  });
});
