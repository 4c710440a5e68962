import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

// Strict-Transport-Security (docs/running.md, Production): a browser that has seen it comes back to
// the service only over https, for max-age seconds, so a network attacker cannot strip a shopper's or
// a merchant's visit down to http. Sent only where the service is reached over https in production:
// in development, or behind a public http address, it would lock browsers out of the service. A year,
// the common floor; without includeSubDomains, because the service cannot know what else runs under
// its domain.

export const HSTS_MAX_AGE_SECONDS = 365 * 86_400;

/** The Strict-Transport-Security header's value for this configuration, or null for none. */
export function strictTransportSecurity(config: Pick<Config, 'env' | 'publicBaseUrl'>): string | null {
  return config.env === 'production' && config.publicBaseUrl.startsWith('https:') ? `max-age=${HSTS_MAX_AGE_SECONDS}` : null;
}

/** Every answer of the app carries the header (errors before routing add it themselves: errorHandler.ts). */
export function installTransportSecurity(app: FastifyInstance, value: string | null): void {
  if (value === null) return;
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('Strict-Transport-Security', value);
    done();
  });
}
