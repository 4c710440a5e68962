import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isConnectionError } from '../db/database.js';
import { ApiError } from '../errors.js';
import { UNROUTABLE_PATH, requestFaultOf } from '../http/errorHandler.js';
import { isFormTokenError } from './formTokens.js';

// The error pages of every part of the site that answers HTML, decided in one place: which status a
// failure gets, which of them is logged, and which page says so. Each part draws the page in its own
// frame and words (renderError), in the reader's language, but the rules are these:
//
//   a post whose form token fails                          403 formToken
//   nothing here (an ApiError NOT_FOUND, an unknown path)  404 notFound
//   a service's refusal no page turned into a form error   its 4xx, badRequest
//   a body or an upload over its limit                      413 tooLarge
//   the database cannot be reached                         503 unavailable, with Retry-After
//   any other fault of the request (a malformed body, a
//   value the database refuses, such as a NUL)             400 badRequest (415 for a media type)
//   anything else                                          500 error, logged
//
// Never a 500 for the request's own fault (§Hardening).

export type PageProblem = 'formToken' | 'notFound' | 'badRequest' | 'tooLarge' | 'unavailable' | 'error';

export interface PageError {
  status: number;
  problem: PageProblem;
}

/**
 * The status and page of a failure; `unreadableBody`: the part knows the body could not be read. The
 * request's own faults are the API's (requestFaultOf): the same status, drawn as a page.
 */
export function pageErrorOf(error: FastifyError, unreadableBody = false): PageError {
  if (isFormTokenError(error)) return { status: 403, problem: 'formToken' };
  if (isConnectionError(error)) return { status: 503, problem: 'unavailable' };
  const fault = requestFaultOf(error) ?? (unreadableBody ? new ApiError('VALIDATION_FAILED', 'the request body cannot be read') : null);
  if (fault === null || fault.status >= 500) return { status: 500, problem: 'error' };
  if (fault.code === 'NOT_FOUND') return { status: 404, problem: 'notFound' };
  return { status: fault.status, problem: fault.status === 413 ? 'tooLarge' : 'badRequest' };
}

export interface PageErrorOptions {
  /** The page of a problem, in the part's frame and the reader's language. */
  render(request: FastifyRequest, reply: FastifyReply, e: PageError): string | Promise<string>;
  /** Whether the body of this request could not be read (a part's own parser knows). */
  unreadableBody?(request: FastifyRequest): boolean;
  /** The log line of an unexpected failure. */
  logMessage: string;
}

/** The URLs under a part's prefixes that cannot be routed, and the options its hooks read on their route. */
export interface UnroutableOptions {
  prefixes: readonly string[];
  /** The route's config (the portal's: a page anyone may see). */
  config?: Record<string, unknown>;
}

/**
 * Installs the part's error page and, for a part with its own prefix, its not-found page. With
 * `unroutable`, a URL under those prefixes whose path is not valid percent-encoding (`/pay/%E0%A4%A`),
 * sent before routing to the part's own `{prefix}/.unroutable` (UnroutablePages in
 * src/http/errorHandler.ts), is answered as a request of the part: its headers, its hooks, and its
 * not-found page with the 400 of a request that could not be read (the address names nothing).
 */
export function usePageErrors(scope: FastifyInstance, opts: PageErrorOptions & { notFoundPages?: boolean; unroutable?: UnroutableOptions }): void {
  const send = async (request: FastifyRequest, reply: FastifyReply, e: PageError): Promise<FastifyReply> => {
    // §Status codes: the database is away; the reader may simply try again.
    if (e.status === 503) reply.header('Retry-After', '2');
    const body = await opts.render(request, reply, e);
    return reply.code(e.status).type('text/html; charset=utf-8').send(body);
  };
  scope.setErrorHandler(async (error: FastifyError, request, reply) => {
    const e = pageErrorOf(error, opts.unreadableBody?.(request) ?? false);
    if (e.status === 500) request.log.error({ err: { message: error.message, code: error.code, stack: error.stack } }, opts.logMessage);
    return send(request, reply, e);
  });
  if (opts.notFoundPages) scope.setNotFoundHandler(async (request, reply) => send(request, reply, { status: 404, problem: 'notFound' }));
  for (const prefix of opts.unroutable?.prefixes ?? []) {
    scope.unroutablePages.add(prefix);
    scope.route({
      method: ['GET', 'HEAD', 'POST'],
      // Relative to the scope's own prefix, if it is mounted under one (the portal is, under /portal).
      url: `${prefix.startsWith(scope.prefix) ? prefix.slice(scope.prefix.length) : prefix}${UNROUTABLE_PATH}`,
      schema: { hide: true },
      config: opts.unroutable?.config ?? {},
      handler: (request, reply) => send(request, reply, { status: 400, problem: 'notFound' }),
    });
  }
}
