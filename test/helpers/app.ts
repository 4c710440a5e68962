import { Writable } from 'node:stream';
import { simulatorAt } from '../../src/payments/simulator.js';
import type { Acquirer } from '../../src/payments/acquirer.js';
import pino from 'pino';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig, type Config } from '../../src/config.js';
import { ManualClock } from '../../src/clock.js';
import { createMerchant, type CreatedMerchant } from '../../src/accounts/service.js';
import { loggerOptions } from '../../src/logging.js';
import { createSealer, type Sealer } from '../../src/sealing.js';
import { OPERATOR, type Operation } from '../../src/actor.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export interface TestContext {
  app: App;
  config: Config;
  clock: ManualClock;
  /** The sealer the app uses (from the config's secret key), for tests that seal or open directly. */
  sealer: Sealer;
  tdb: TestDatabase;
  merchant: CreatedMerchant;
  /** Every log line the app wrote, as JSON text (for tests that scan logs for secrets). */
  logs: string[];
  close(): Promise<void>;
}

export const TEST_PUBLIC_BASE_URL = 'http://paylinks.test';

/**
 * A migrated database of this project's kind, an app on it with a manual clock, and one merchant. The
 * acquirer is the simulator (at the pace PAYLINKS_SANDBOX_ACQUIRER_LATENCY_MS in `env` sets) unless
 * `opts.acquirer` is given.
 */
export async function createTestContext(env: Record<string, string> = {}, opts: { acquirer?: Acquirer } = {}): Promise<TestContext> {
  const tdb = await createTestDatabase();
  const config = parseConfig({ PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, LOG_LEVEL: 'info', ...env });
  const clock = new ManualClock(new Date());
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(chunk.toString('utf8'));
      cb();
    },
  });
  const logger = pino(loggerOptions(config.logLevel), stream);
  const sealer = createSealer(config.secretKey);
  const acquirer = opts.acquirer ?? simulatorAt(config.sandboxAcquirerLatencyMs);
  const app = await buildApp({ config, db: tdb.db, clock, acquirer, sealer, logger });
  await app.ready();
  const merchant = await createMerchant(tdb.db, 'Test merchant');
  return {
    app,
    config,
    clock,
    sealer,
    tdb,
    merchant,
    logs,
    close: async () => {
      await app.close();
      await tdb.drop();
    },
  };
}

export interface CallOptions {
  apiKey?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** app.inject with the merchant's key and a JSON body; returns the response and its parsed body. */
export async function call(
  ctx: TestContext,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  url: string,
  body?: unknown,
  opts: CallOptions = {},
): Promise<{ res: LightMyRequestResponse; status: number; body: Record<string, unknown> }> {
  const apiKey = opts.apiKey === undefined ? ctx.merchant.apiKey : opts.apiKey;
  const headers: Record<string, string> = { ...(apiKey !== null ? { 'x-api-key': apiKey } : {}), ...opts.headers };
  if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
  const res = await ctx.app.inject({
    method,
    url,
    headers,
    ...(opts.query ? { query: opts.query } : {}),
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    parsed = {};
  }
  return { res, status: res.statusCode, body: parsed };
}

/** What an operation is given when the operator makes it (the CLI's account commands), for tests that call a service directly. */
export function asOperator(ctx: Pick<TestContext, 'tdb' | 'clock'>): Operation {
  return { db: ctx.tdb.db, clock: ctx.clock, actor: OPERATOR };
}
