import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { Metrics } from './metrics.js';
import type { Acquirer } from './payments/acquirer.js';
import type { Resolver } from './webhooks/addressRules.js';
import type { Sealer } from './sealing.js';

// What the HTTP application is built from. The composition roots (src/main.ts for the service, the
// test helpers for the suite) construct each of these; no module reaches for a default of its own.
// src/app.ts hands them to the parts of the app as decorations of the Fastify instance
// (src/http/app.ts): no module imports this file.

export type { App } from './http/app.js';

export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  /** Who authorises cards and completes modifications: the simulator, or a real acquirer's adapter. */
  acquirer: Acquirer;
  /** Seals and opens the secrets kept at rest (webhook secrets, stored answers), under config.secretKey. */
  sealer: Sealer;
  /** A pino logger instance (tests capture its output); default: pino at config.logLevel to stdout. */
  logger?: FastifyBaseLogger;
  /** DNS for the webhook address rules (tests inject one); default: the system resolver. */
  webhookResolver?: Resolver;
  /** The process's metrics (shared with its delivery worker); default: a registry of the app's own. */
  metrics?: Metrics;
}
