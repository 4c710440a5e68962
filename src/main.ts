import pino from 'pino';
import type { Config } from './config.js';
import { systemClock, type Clock } from './clock.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { configureSealing } from './sealing.js';
import { buildApp, type App } from './app.js';
import { createMerchant, isEmpty } from './accounts/service.js';
import { loggerOptions } from './logging.js';
import { DeliveryWorker } from './webhooks/delivery/worker.js';
import { ModificationProcessor } from './payments/modifications/processor.js';

// config → database → buildApp → listen (+ delivery worker). Also the shutdown sequence of D17.

export const SHUTDOWN_GRACE_MS = 20_000;

export async function openAndMigrate(config: Config): Promise<Database> {
  configureSealing(config.secretKey);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

export interface Running {
  app: App;
  db: Database;
  address: string;
  stop(): Promise<void>;
}

/** `paylinks serve`: migrations, the HTTP server and (unless disabled) the delivery worker. */
export async function serve(config: Config, opts: { worker: boolean; clock?: Clock; out?: (line: string) => void }): Promise<Running> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const clock = opts.clock ?? systemClock;
  const logger = pino(loggerOptions(config.logLevel));
  const db = await openAndMigrate(config);

  // First start on an empty embedded database: a sandbox merchant to try the API with (D17).
  if (db.kind === 'pglite' && (await isEmpty(db))) {
    const m = await createMerchant(db, 'Sandbox merchant');
    out('');
    out('  A sandbox merchant was created on this new embedded database:');
    out(`    merchantId          ${m.merchantId}`);
    out(`    terminalIdentifier  ${m.terminalIdentifier}`);
    out(`    apiKey              ${m.apiKey}`);
    out('  The API key is shown only now. Send it as the X-API-Key header.');
    out('');
  }

  if (config.secretKeyIsFallback) {
    logger.warn('PAYLINKS_SECRET_KEY is not set: webhook secrets are sealed with the published development key (fine for development, refused in production)');
  }
  const app = await buildApp({ config, db, clock, logger });
  const worker = opts.worker ? new DeliveryWorker({ db, clock, config, logger }) : undefined;
  await worker?.start();
  // Captures, refunds and reversals (D19) are completed where deliveries are sent.
  const processor = opts.worker ? new ModificationProcessor({ db, clock, logger }) : undefined;
  await processor?.start();
  const address = await app.listen({ port: config.port, host: config.host });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish (bounded), then close the database.
      const timer = setTimeout(() => {
        logger.warn('shutdown grace period over; closing remaining connections');
        app.server.closeAllConnections();
      }, SHUTDOWN_GRACE_MS);
      timer.unref();
      // server.close() closes the keep-alive connections idle at that moment only; one that finishes
      // its last request afterwards would stay open until its keep-alive timeout (72 s) and hold the
      // drain for the whole grace period (issue 7's SIGTERM test found this). Sweep them as they idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      sweep.unref();
      try {
        // The worker stops claiming and lets attempts in flight finish (at most 15 s each) and be recorded.
        await Promise.all([app.close(), worker?.stop(SHUTDOWN_GRACE_MS), processor?.stop(SHUTDOWN_GRACE_MS)]);
      } finally {
        clearTimeout(timer);
        clearInterval(sweep);
        await db.close();
      }
    })();
    return stopping;
  };
  // Printed last, with nothing awaited after it: whoever waits for this line (a test, a supervisor)
  // may send SIGTERM at once, and the caller installs its signal handlers before that can arrive.
  out(`paylinks listening on ${address} (public base URL ${config.publicBaseUrl}, ${db.kind} database)`);
  out(`  API reference: ${address}/docs`);
  return { app, db, address, stop };
}

/** Exits 0 after a graceful stop on SIGTERM or SIGINT (D17). */
export function stopOnSignals(stop: () => Promise<void>, log: (line: string) => void): void {
  const handler = (signal: NodeJS.Signals): void => {
    log(`${signal} received: draining`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log(`shutdown failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

/** `paylinks worker`: the delivery worker only (any number may share one PostgreSQL database). */
export async function runWorker(config: Config, opts: { clock?: Clock; out?: (line: string) => void } = {}): Promise<{ stop(): Promise<void> }> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  // The embedded database belongs to one process: there, `serve` runs the worker.
  if (config.databaseUrl === null) throw new Error('the worker command needs DATABASE_URL (PostgreSQL); with the embedded database, `paylinks serve` runs the worker');
  const logger = pino(loggerOptions(config.logLevel));
  const db = await openAndMigrate(config);
  const clock = opts.clock ?? systemClock;
  const worker = new DeliveryWorker({ db, clock, config, logger });
  await worker.start();
  const processor = new ModificationProcessor({ db, clock, logger });
  await processor.start();
  out(`paylinks delivery worker and modification processor running (${db.kind} database)`);
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        try {
          await Promise.all([worker.stop(SHUTDOWN_GRACE_MS), processor.stop(SHUTDOWN_GRACE_MS)]);
        } finally {
          await db.close();
        }
      })()),
  };
}
