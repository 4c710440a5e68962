import type { FastifyContextConfig, FastifyInstance } from 'fastify';
import type { AuthRequirement } from './auth.js';

// Every route the app serves, as Fastify registered it (§Hardening): the tenant-isolation table and the
// fuzzers enumerate this, so a route added later is covered without anyone remembering to list it.

export interface RouteEntry {
  method: string;
  /** Fastify's pattern, with `:param` segments (`/api/v1/paymentlinks/:reference`). */
  url: string;
  /** The §Authentication requirement of an API route; undefined for public routes (pages, health, docs). */
  auth: AuthRequirement | undefined;
  /** What a portal route needs (a permission, or nothing; the portal declares its shape, src/portal/access.ts); undefined outside the portal. */
  portal: FastifyContextConfig['portal'];
  /** The route's JSON schemas by request part, as given to Fastify. */
  schema: { body?: unknown; querystring?: unknown; params?: unknown };
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly routeTable: readonly RouteEntry[];
  }
}

/** Installs the collector; call it before any route is registered. */
export function installRouteTable(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema = (route.schema ?? {}) as RouteEntry['schema'];
    const config = route.config as Pick<FastifyContextConfig, 'auth' | 'portal'> | undefined;
    for (const method of methods) {
      table.push({
        method,
        url: route.url,
        auth: config?.auth,
        portal: config?.portal,
        schema: { body: schema.body, querystring: schema.querystring, params: schema.params },
      });
    }
  });
}
