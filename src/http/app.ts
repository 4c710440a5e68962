import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync, RawServerDefault } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { Metrics } from '../metrics.js';
import type { Sealer } from '../sealing.js';
import type { UnroutablePages } from './errorHandler.js';

// How the app is put together (docs/architecture.md, "Composition"): the composition root
// (src/app.ts) decorates the Fastify instance with what it builds (the configuration, the database,
// the clock, the sealer, the metrics; the acquirer, declared by src/payments/acquirer.ts; the DNS of
// the webhook address rules, by src/webhooks/addressRules.ts), and each part of the app is a Fastify
// plugin that names the decorations it needs and reads them from the instance. Fastify refuses to
// register a part whose decorations are missing, so a part cannot start without what it uses.

/** The Fastify instance every route file registers on, with TypeBox types for request and reply. */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's configuration, read once (src/config.ts). */
    readonly config: Config;
    readonly db: Database;
    /** Every time the service reads or records (docs/style.md, The clock is injected). */
    readonly clock: Clock;
    /** Seals and opens the secrets kept at rest (webhook secrets, kept answers), under config.secretKey. */
    readonly sealer: Sealer;
    /** The process's metrics (shared with its delivery worker). */
    readonly metrics: Metrics;
    /** The HTML parts' answers to a URL no route can take (./errorHandler.ts). */
    readonly unroutablePages: UnroutablePages;
  }
}

/** The decorations the composition root makes, by name; a part names those it reads. */
export type Provided = 'config' | 'db' | 'clock' | 'sealer' | 'metrics' | 'acquirer' | 'webhookResolver' | 'listeners' | 'unroutablePages';

/**
 * A part of the app: its routes in a plugin of their own (encapsulated: its hooks, parsers and error
 * handler stay inside it), with the decorations it reads named, which Fastify checks on registration.
 */
export function appPart(name: string, needs: readonly Provided[], register: (app: App) => Promise<void> | void): FastifyPluginAsync {
  return fastifyPlugin(
    async (instance: FastifyInstance) => {
      await register(instance.withTypeProvider<TypeBoxTypeProvider>());
    },
    { name, fastify: '5.x', encapsulate: true, decorators: { fastify: [...needs] } },
  );
}
