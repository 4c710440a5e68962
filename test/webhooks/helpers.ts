import { createServer as createHttpsServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { Agent } from 'undici';
import { createDeliveryAgent } from '../../src/webhooks/delivery/send.js';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../../src/webhooks/delivery/worker.js';
import { call, type TestContext } from '../helpers/app.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueueEvent, type EventType } from '../../src/webhooks/events.js';
import { testCerts } from './certs.js';

// Real HTTPS receivers on 127.0.0.1, port 0, with the certificates of certs.ts.

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The behaviour for a path (default: 200 "ok"). */
  on(path: string, behaviour: Behaviour): void;
  close(): Promise<void>;
}

export const reply =
  (status: number, text = 'ok'): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(status === 204 ? undefined : text);
  };

/** Answers 200 only after `ms`. */
export const slow =
  (ms: number): Behaviour =>
  (_req, res) => {
    const t = setTimeout(() => res.writeHead(200).end('late'), ms);
    res.on('close', () => clearTimeout(t));
  };

/** Sends 200 and its headers at once, then a byte every `everyMs`, finishing only after `totalMs`. */
export const trickle =
  (everyMs: number, totalMs: number): Behaviour =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const started = Date.now();
    const t = setInterval(() => {
      if (Date.now() - started >= totalMs) {
        clearInterval(t);
        res.end('.');
      } else res.write('.');
    }, everyMs);
    res.on('close', () => clearInterval(t));
  };

/** Never answers. */
export const blackHole: Behaviour = () => undefined;

export async function startReceiver(opts: { badCert?: boolean } = {}): Promise<Receiver> {
  const c = testCerts();
  const behaviours = new Map<string, Behaviour>();
  const received: Received[] = [];
  const server: Server = createHttpsServer({ key: opts.badCert ? c.badKey : c.key, cert: opts.badCert ? c.badCert : c.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      received.push({ path, headers: req.headers, body });
      (behaviours.get(path) ?? reply(200))(req, res, body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    received,
    on: (path, b) => behaviours.set(path, b),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 that refuses connections (bound once, then closed). */
export async function refusedPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** The worker's Agent, trusting the test CA (and only it, besides the system roots). */
export function trustingAgent(opts: { publicOnly?: boolean } = {}): Agent {
  return createDeliveryAgent({ publicOnly: opts.publicOnly ?? false, tls: { ca: testCerts().ca } });
}

/** Short attempt timeout for tests: the production default stays 15 s. */
export const TEST_ATTEMPT_TIMEOUT_MS = 1_500;

export function testWorker(ctx: TestContext, opts: Partial<DeliveryWorkerOptions> = {}): DeliveryWorker {
  return new DeliveryWorker({
    db: ctx.tdb.db,
    clock: ctx.clock,
    // Retention and the disabling of failing webhooks off unless a test asks for them: tests move the
    // clock by days, and a sweep of the worker's own must not change what a test is about to read.
    config: { ...ctx.config, deliveryRetentionDays: 0, webhookDisableAfterDays: 0 },
    sealer: ctx.sealer,
    dispatcher: trustingAgent(),
    attemptTimeoutMs: TEST_ATTEMPT_TIMEOUT_MS,
    pollIntervalMs: 200,
    ...opts,
  });
}

/** Registers a webhook through the API; returns its id and secrets. */
export async function register(
  ctx: TestContext,
  url: string,
  opts: { apiKey?: string; eventTypes?: string[] } = {},
): Promise<{ webhookId: string; apiKey: string; hmacKey: string }> {
  const r = await call(
    ctx,
    'POST',
    '/api/v1/webhooks',
    { url, ...(opts.eventTypes ? { eventTypes: opts.eventTypes } : {}) },
    opts.apiKey ? { apiKey: opts.apiKey } : {},
  );
  if (r.status !== 200) throw new Error(`register failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { webhookId: string; apiKey: string; hmacKey: string };
}

/** Waits for a condition with a generous deadline (no timing assertions: only "eventually"). */
export async function eventually<T>(fn: () => T | Promise<T>, what: string, deadlineMs = 20_000): Promise<NonNullable<T>> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `n` events of `eventType` in one transaction, payfacReference `${prefix}${i}` and amount i. */
export async function enqueueMany(ctx: TestContext, n: number, eventType: EventType, prefix: string): Promise<void> {
  await withTransaction(ctx.tdb.db, async (tx) => {
    for (let i = 0; i < n; i++) {
      await enqueueEvent(tx, ctx, {
        merchantId: ctx.merchant.merchantId,
        eventType,
        checkoutReference: null,
        payfacReference: `${prefix}${i}`,
        merchantReference: null,
        amount: i,
        currency: 'EUR',
        reason: null,
        success: true,
      });
    }
  });
}
