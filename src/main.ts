import pino from 'pino';
import type { Config } from './config.js';
import { systemClock, type Clock } from './clock.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { EmbeddedUpkeep, warnIfAutovacuumOff } from './db/upkeep.js';
import { createSealer } from './sealing.js';
import type { App } from './app.js';
import { createMerchant, isEmpty } from './accounts/service.js';
import { createUser } from './users/service.js';
import { portalLinkUrl } from './urls.js';
import { loggerOptions } from './logging.js';
import { DeliveryWorker } from './webhooks/delivery/worker.js';
import { startAdminServer, type AdminServer } from './admin/server.js';
import { Metrics } from './metrics.js';
import { waitingTotals } from './payments/authorisations/service.js';
import { deliveryBacklog } from './webhooks/deliveries/service.js';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { ModificationProcessor } from './payments/modifications/processor.js';
import { SettlementWorker } from './settlements/worker.js';
import { HoldSweeper } from './checkout/holdSweeper.js';
import type { Acquirer } from './payments/acquirer.js';
import { simulatorAt } from './payments/simulator.js';
import { MailSender } from './mail/sender.js';
import { mailTotals } from './mail/service.js';
import { folderTransport, smtpTransport } from './mail/transport.js';

// config → database → buildApp → listen (+ delivery worker). Also the shutdown sequence of §Running the service.

const SHUTDOWN_GRACE_MS = 20_000;

/** The portal user the first embedded start makes for its sandbox merchant. */
const SANDBOX_OWNER_EMAIL = 'owner@sandbox.example';

async function openAndMigrate(config: Config, lock: { command: string; adminSocket?: boolean } = { command: 'paylinks' }): Promise<Database> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, lock });
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
export async function serve(config: Config, opts: { worker: boolean; clock?: Clock; acquirer?: Acquirer; out?: (line: string) => void }): Promise<Running> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const clock = opts.clock ?? systemClock;
  // The only acquirer shipped is the simulator; an adapter for a real one is passed in here.
  const acquirer = opts.acquirer ?? simulatorAt(config.sandboxAcquirerLatencyMs);
  const sealer = createSealer(config.secretKey);
  const logger = pino(loggerOptions(config.logLevel));
  // The embedded database's folder is locked for as long as this process runs: the account commands
  // then reach this process through its admin socket instead of opening the folder themselves.
  const db = await openAndMigrate(config, { command: 'serve', adminSocket: true });

  // First start on an empty embedded database: a sandbox merchant to try the API with (§Running the service).
  if (db.kind === 'pglite' && (await isEmpty(db))) {
    const m = await createMerchant(db, 'Sandbox merchant');
    const owner = await createUser(db, clock, {
      email: SANDBOX_OWNER_EMAIL,
      owner: { merchantId: m.merchantId },
      role: 'owner',
      createdBy: null,
    });
    out('');
    out('  A sandbox merchant was created on this new embedded database:');
    out(`    merchantId          ${m.merchantId}`);
    out(`    terminalIdentifier  ${m.terminalIdentifier}`);
    out(`    apiKey              ${m.apiKey}`);
    out('  The API key is shown only now. Send it as the X-API-Key header.');
    out('');
    out(`  The merchant portal is at ${config.publicBaseUrl}/portal. Sign in once with this link and choose a password`);
    out(`  for ${owner.email} (the owner; valid 24 hours, later: paylinks user link --email ${owner.email}):`);
    out(`    ${portalLinkUrl(config.publicBaseUrl, owner.token)}`);
    out('');
  }

  if (config.secretKeyIsFallback) {
    logger.warn('PAYLINKS_SECRET_KEY is not set: webhook secrets are sealed with the published development key (fine for development, refused in production)');
  }
  const metrics = metricsOf(db, clock, config);
  // The HTTP app (Fastify, the API, the pages, the portal) is imported here, not with this file: a
  // `paylinks worker` process never loads it.
  const { buildApp } = await import('./app.js');
  const app = await buildApp({ config, db, clock, acquirer, sealer, logger, metrics });
  const metricsServer = config.metricsListen ? await startMetricsServer(metrics, config.metricsListen) : undefined;
  const socketPath = db.lock?.holder.adminSocket ?? null;
  // PGlite runs no autovacuum: the process that holds the embedded database does its work (upkeep.ts),
  // also for `paylinks vacuum` through the admin socket.
  const upkeep = db.kind === 'pglite' ? new EmbeddedUpkeep(db, logger, { watch: { metrics, clock } }) : undefined;
  const admin: AdminServer | undefined =
    socketPath !== null ? await startAdminServer({ db, clock, publicBaseUrl: config.publicBaseUrl, upkeep }, socketPath, logger) : undefined;
  const worker = opts.worker ? new DeliveryWorker({ db, clock, config, sealer, logger, metrics }) : undefined;
  await worker?.start();
  // Captures, refunds and reversals (§Modifications and saved cards) are completed where deliveries are sent.
  const processor = opts.worker ? new ModificationProcessor({ db, clock, acquirer, sealer, logger }) : undefined;
  await processor?.start();
  // The daily settlement cut-off (docs/api.md, Settlements) is settled by whichever worker gets there first.
  const settlements = opts.worker ? new SettlementWorker({ db, clock, cutoffMinutes: config.settlementCutoffMinutes, logger }) : undefined;
  await settlements?.start();
  const holds = opts.worker ? new HoldSweeper({ db, clock, logger }) : undefined;
  await holds?.start();
  const mail = opts.worker ? mailSenderOf(config, db, clock, logger) : undefined;
  await mail?.start();
  upkeep?.start();
  await warnIfAutovacuumOff(db, logger);
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // A port in use, say: leave nothing half-running, and the folder unlocked for the next attempt.
    await Promise.allSettled([
      app.close(),
      admin?.close(),
      worker?.stop(0),
      processor?.stop(0),
      settlements?.stop(0),
      holds?.stop(0),
      mail?.stop(0),
      upkeep?.stop(),
      closeServer(metricsServer),
    ]);
    await db.close();
    throw err;
  }

  // The open connections, for the drain to find those that have not sent a byte (a browser's preconnect).
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });

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
      // drain for the whole grace period (§Hardening's SIGTERM test found this). Sweep them as they idle,
      // with the connections a browser opens ahead of need and never sends on: Node counts those as
      // neither idle nor busy, so they too would hold the drain to its end.
      const closeIdle = (): void => {
        app.server.closeIdleConnections();
        for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
      };
      closeIdle();
      const sweep = setInterval(closeIdle, 100);
      sweep.unref();
      try {
        // The worker stops claiming and lets attempts in flight finish (at most 15 s each) and be recorded.
        await Promise.all([
          app.close(),
          admin?.close(SHUTDOWN_GRACE_MS),
          worker?.stop(SHUTDOWN_GRACE_MS),
          processor?.stop(SHUTDOWN_GRACE_MS),
          settlements?.stop(SHUTDOWN_GRACE_MS),
          holds?.stop(SHUTDOWN_GRACE_MS),
          mail?.stop(SHUTDOWN_GRACE_MS),
          upkeep?.stop(),
          closeServer(metricsServer),
        ]);
      } finally {
        clearTimeout(timer);
        clearInterval(sweep);
        await db.close();
      }
    })();
    return stopping;
  };
  // Printed last, with nothing awaited after it: whoever waits for this line (a test, a supervisor)
  // may send SIGTERM at once: the caller installed its handlers before the start (signalsBeforeStart).
  out(`paylinks listening on ${address} (public base URL ${config.publicBaseUrl}, ${db.kind} database)`);
  out(`  API reference: ${address}/docs`);
  out(`  merchant portal: ${config.publicBaseUrl}/portal`);
  if (metricsServer) out(`  metrics: http://${formatHost(config.metricsListen?.host ?? '')}:${(metricsServer.address() as { port: number }).port}/metrics`);
  if (mail && config.smtpUrl === null) out(`  e-mails: written to ${config.mailDir} (no PAYLINKS_SMTP_URL), and listed in the portal`);
  return { app, db, address, stop };
}

/** Starts a service (serve, worker) and drains it on SIGTERM or SIGINT, with no moment unhandled (signalsBeforeStart). */
export async function runUntilSignalled(start: () => Promise<{ stop: () => Promise<void> }>, log: (line: string) => void): Promise<void> {
  const early = signalsBeforeStart();
  let running: { stop: () => Promise<void> };
  try {
    running = await start();
  } catch (err) {
    early();
    throw err;
  }
  stopOnSignals(running.stop, log);
  early();
}

/**
 * Until the drain's handlers (stopOnSignals) are installed, a SIGTERM or SIGINT ends the process by
 * that signal, as it would with no handler. Installed before the service starts: the line that says
 * it listens is printed before the service's start resolves, a supervisor or a test may answer it with
 * a signal at once, and without a handler the kernel ends the process at once, whatever its code is
 * doing. Call the returned function after stopOnSignals, never before (no moment without a handler).
 */
function signalsBeforeStart(): () => void {
  const early = (signal: NodeJS.Signals): void => {
    release();
    process.kill(process.pid, signal);
  };
  const release = (): void => {
    process.removeListener('SIGTERM', early);
    process.removeListener('SIGINT', early);
  };
  process.on('SIGTERM', early);
  process.on('SIGINT', early);
  return release;
}

/**
 * Exits 0 after a graceful stop on SIGTERM or SIGINT. Later signals do not cut the drain short: Ctrl-C
 * under `npm start` delivers SIGINT twice (from the terminal to the whole process group, and again
 * from npm, which forwards it), and a supervisor may repeat SIGTERM. The drain is bounded anyway
 * (SHUTDOWN_GRACE_MS); a process that must die at once gets SIGKILL.
 */
export function stopOnSignals(stop: () => Promise<void>, log: (line: string) => void): void {
  let draining = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (draining) {
      log(`${signal} received: still draining (at most ${SHUTDOWN_GRACE_MS / 1000} s in all)`);
      return;
    }
    draining = true;
    log(`${signal} received: draining`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log(`shutdown failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** `paylinks worker`: the delivery worker only (any number may share one PostgreSQL database). */
export async function runWorker(
  config: Config,
  opts: { clock?: Clock; acquirer?: Acquirer; out?: (line: string) => void } = {},
): Promise<{ stop(): Promise<void> }> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const acquirer = opts.acquirer ?? simulatorAt(config.sandboxAcquirerLatencyMs);
  const sealer = createSealer(config.secretKey);
  // The embedded database belongs to one process: there, `serve` runs the worker.
  if (config.databaseUrl === null)
    throw new Error('the worker command needs DATABASE_URL (PostgreSQL); with the embedded database, `paylinks serve` runs the worker');
  const logger = pino(loggerOptions(config.logLevel));
  const db = await openAndMigrate(config, { command: 'worker' });
  const clock = opts.clock ?? systemClock;
  const metrics = metricsOf(db, clock, config);
  const metricsServer = config.metricsListen ? await startMetricsServer(metrics, config.metricsListen) : undefined;
  const worker = new DeliveryWorker({ db, clock, config, sealer, logger, metrics });
  await worker.start();
  const processor = new ModificationProcessor({ db, clock, acquirer, sealer, logger });
  await processor.start();
  const settlements = new SettlementWorker({ db, clock, cutoffMinutes: config.settlementCutoffMinutes, logger });
  await settlements.start();
  const holds = new HoldSweeper({ db, clock, logger });
  await holds.start();
  const mail = mailSenderOf(config, db, clock, logger);
  await mail.start();
  out(`paylinks delivery worker and modification processor running (${db.kind} database), with the daily settlement job`);
  if (metricsServer) out(`  metrics: http://${formatHost(config.metricsListen?.host ?? '')}:${(metricsServer.address() as { port: number }).port}/metrics`);
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        try {
          await Promise.all([
            worker.stop(SHUTDOWN_GRACE_MS),
            processor.stop(SHUTDOWN_GRACE_MS),
            settlements.stop(SHUTDOWN_GRACE_MS),
            holds.stop(SHUTDOWN_GRACE_MS),
            mail.stop(SHUTDOWN_GRACE_MS),
            closeServer(metricsServer),
          ]);
        } finally {
          await db.close();
        }
      })()),
  };
}

/** The process's metrics: the delivery backlog, the waiting authorisations and the mail outbox, read when scraped. */
function metricsOf(db: Database, clock: Clock, config: Config): Metrics {
  return new Metrics({
    db,
    backlog: () => deliveryBacklog(db, clock.now()),
    authorisations: () => waitingTotals({ db, clock, config }),
    mail: () => mailTotals(db),
    now: () => clock.now(),
  });
}

/** The e-mail sender of a `serve` or `worker` process: through SMTP, or into the data folder when none is set (docs/mail.md). */
function mailSenderOf(config: Config, db: Database, clock: Clock, logger: pino.Logger): MailSender {
  const transport = config.smtpUrl !== null ? smtpTransport(config.smtpUrl) : folderTransport(config.mailDir);
  return new MailSender({ db, clock, transport, from: config.mailFrom, leaseMs: config.mailLeaseMs, logger });
}

const formatHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/**
 * PAYLINKS_METRICS_LISTEN: GET /metrics on a listener of its own, meant for a private address that
 * only Prometheus reaches (so it needs no token). Everything else there is 404.
 */
async function startMetricsServer(metrics: Metrics, at: { host: string; port: number }): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => resolve());
  });
  return server;
}

function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
