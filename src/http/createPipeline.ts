import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { checkOrigin } from '../accounts/service.js';
import { ApiError } from '../errors.js';
import { earlierResponse, readIdempotencyKey, type IdempotencyDeps } from '../idempotency/service.js';
import { envelope } from './envelope.js';
import { normalizeInput, type JsonSchema } from '../validation.js';

// The steps every create shares, declared per route and run here once, before its handler:
//   the browser Origin check (when the route asks for it) → the route's own early check →
//   the Idempotency-Key → a retry's first answer, sent as it was.
// The handler is left with validating and creating; it passes request.idempotencyKey on, so the
// create stores its answer under the key in its own transaction.

export interface CreateRoute {
  /** The name under which this create's answers are kept for their Idempotency-Keys. */
  operation: string;
  /** Refuse an Origin header that is not among the merchant's allowed origins (browser calls). */
  checkOrigin?: boolean;
  /** A check that must come before a replay (a capability that depends on the body). */
  before?: (request: FastifyRequest) => void;
  /**
   * Brings an answer kept under a key by an earlier release, in the shape that release kept, to the
   * shape the route answers now (keys are kept 24 hours, so across an upgrade). Absent: kept as answered.
   */
  kept?: (answer: Record<string, unknown>) => Record<string, unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    create?: CreateRoute;
  }
  interface FastifyRequest {
    /** The create's Idempotency-Key, once the pipeline has read it. */
    idempotencyKey: string | undefined;
  }
}

const IDEMPOTENCY_HEADER = {
  type: 'string',
  description: '1–255 visible ASCII characters; a retry with the same key and body answers the first response again',
} as const;

/** The id under which a caller's keys are kept: its merchant's, or for a partner key the partner's. */
export function ownerIdOf(request: FastifyRequest): string {
  const p = request.principal;
  if (!p) throw new ApiError('UNAUTHENTICATED');
  return p.kind === 'merchant' ? p.merchantId : p.partnerId;
}

/** Installs the pipeline; call it before the create routes are registered. */
export function installCreatePipeline(app: FastifyInstance, deps: IdempotencyDeps): void {
  app.decorateRequest('idempotencyKey', undefined);

  // Each create documents the Idempotency-Key header (and it is validated like any header), and gets
  // the pipeline as a preHandler of its own: other routes pay nothing for it, not even a promise.
  app.addHook('onRoute', (route) => {
    const config = route.config as { create?: CreateRoute } | undefined;
    if (!config?.create) return;
    const schema = (route.schema ??= {}) as { headers?: { type?: string; properties?: Record<string, unknown> } };
    schema.headers = { type: 'object', ...schema.headers, properties: { ...schema.headers?.properties, 'idempotency-key': IDEMPOTENCY_HEADER } };
    const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [pipeline(config.create, (route.schema as { body?: JsonSchema } | undefined)?.body), ...own];
  });

  function pipeline(create: CreateRoute, body: JsonSchema | undefined): preHandlerAsyncHookHandler {
    return async (request, reply) => {
      // §Clients in the field, as the create's operation reads its body (null is absent): the type the
      // capability depends on, and the request a retry's key is compared by, are read from it. The
      // operation then finds it normalised already (src/validation.ts keeps what it normalised).
      if (body && request.body !== undefined) request.body = normalizeInput(body, request.body, { nullMeansAbsent: true });
      const ownerId = ownerIdOf(request);
      if (create.checkOrigin) await checkOrigin(deps.db, ownerId, request.headers.origin);
      create.before?.(request);
      const key = readIdempotencyKey(request.headers['idempotency-key']);
      request.idempotencyKey = key;
      // A retry gets the first answer, even when the same body would no longer validate.
      const replay = await earlierResponse(deps, { ownerId, key, operation: create.operation, body: request.body });
      if (replay) {
        // Nothing changed, and nothing is recorded: the create's audit entry was written with the first answer.
        return reply.send({ ...(create.kept ? create.kept(replay) : replay), ...envelope(request.id, deps.clock) });
      }
    };
  }
}
