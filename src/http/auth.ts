import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../actor.js';
import type { Capability, KeyUsageRecorder, Principal } from '../accounts/service.js';
import { PrincipalCache } from '../accounts/service.js';
import type { Database } from '../db/database.js';
import { ApiError } from '../errors.js';
import type { RateLimiter } from './rateLimit.js';

// X-API-Key authentication (§Authentication), run at onRequest so that an unauthenticated caller learns nothing
// about the body it sent (not even that it was too large or malformed).

export interface AuthRequirement {
  /** The key needs at least one of these capabilities (§Authentication); empty means any key. */
  anyOf: readonly Capability[];
  /** Whether a partner's key may call the route (§Webhooks: partners manage webhooks only). */
  partners?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function installAuth(app: FastifyInstance, db: Database, limiter?: RateLimiter, cache = new PrincipalCache(0), usage?: KeyUsageRecorder): void {
  app.decorateRequest('principal', null);
  // A callback hook, so that routes without auth (health, pages) pay for no promise (docs/performance.md).
  app.addHook('onRequest', (request, _reply, done) => {
    const auth = request.routeOptions.config.auth;
    if (!auth) {
      done();
      return;
    }
    authorize(request, auth).then(() => done(), done);
  });

  async function authorize(request: FastifyRequest, auth: AuthRequirement): Promise<void> {
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (key === undefined || key === '') throw new ApiError('UNAUTHENTICATED', 'the X-API-Key header is missing');
    const principal = await cache.resolve(db, key);
    if (!principal) throw new ApiError('UNAUTHENTICATED', 'the API key is not valid');
    usage?.note(principal.keyId);
    // Counted per key before the capability check: a key hammering a route it may not use is limited too.
    const rate = limiter?.take(principal.keyId);
    if (rate && !rate.allowed) {
      throw new ApiError('RATE_LIMITED', `this API key sent too many requests; retry after ${rate.retryAfterSeconds} s`, undefined, {
        'Retry-After': String(rate.retryAfterSeconds),
      });
    }
    if (principal.kind === 'partner' && !auth.partners) {
      throw new ApiError('FORBIDDEN', 'a partner key may not use this operation');
    }
    if (auth.anyOf.length > 0 && !auth.anyOf.some((c) => principal.capabilities.has(c))) {
      throw new ApiError('FORBIDDEN', `the API key lacks the ${auth.anyOf.join(' or ')} capability`);
    }
    request.principal = principal;
  }
}

/** The authenticated merchant of a route that admits merchants only. */
export function merchantOf(request: FastifyRequest): string {
  const p = request.principal;
  if (!p || p.kind !== 'merchant') throw new ApiError('FORBIDDEN', 'this operation needs a merchant key');
  return p.merchantId;
}

export function requireCapability(request: FastifyRequest, capability: Capability): void {
  if (!request.principal?.capabilities.has(capability)) {
    throw new ApiError('FORBIDDEN', `the API key lacks the ${capability} capability`);
  }
}

/** Who is acting in an authenticated call: one of the merchant's keys, or a partner's. */
export function actorOf(request: FastifyRequest): Actor {
  const p = request.principal;
  if (!p) throw new ApiError('UNAUTHENTICATED', 'the X-API-Key header is missing');
  return p.kind === 'merchant' ? { kind: 'key', keyId: p.keyId, display: p.display ?? null } : { kind: 'partner', keyId: p.keyId };
}

/** What an operation is given for this call: the app's dependencies and the caller as its actor. */
export function operationOf<D extends object>(deps: D, request: FastifyRequest): D & { actor: Actor } {
  return { ...deps, actor: actorOf(request) };
}
