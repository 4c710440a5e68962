import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newUuid } from '../ids.js';
import type { ErrorObject } from 'ajv';
import { ApiError, validationError } from '../errors.js';
import type { ErrorCode, FieldError } from '../errors.js';
import { isConnectionError } from '../db/database.js';
import type { Clock } from '../clock.js';
import { envelope } from './envelope.js';
import { toFieldErrors, type JsonSchema } from '../validation.js';

// The one place that writes an error response (docs/style.md, One error catalogue): §Errors's problem+json with the envelope.

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  message: string;
  errors?: FieldError[];
  responseDateTime: string;
  responseIdentifier: string;
}

export function problemBody(err: ApiError, requestId: string, clock: Clock): ProblemBody {
  const detail = err.detail ?? err.title;
  return {
    type: 'about:blank',
    title: err.title,
    status: err.status,
    code: err.code,
    detail,
    message: detail,
    ...(err.errors && err.errors.length > 0 ? { errors: [...err.errors] } : {}),
    ...envelope(requestId, clock),
  };
}

export function sendProblem(reply: FastifyReply, err: ApiError, clock: Clock): FastifyReply {
  for (const [k, v] of Object.entries(err.headers ?? {})) reply.header(k, v);
  return reply
    .code(err.status)
    .type('application/problem+json')
    .serializer((b: unknown) => JSON.stringify(b))
    .send(problemBody(err, reply.request.id, clock));
}

/**
 * Fastify's own errors (its body parsers', the multipart plugin's, the router's) in the catalogue's
 * words: the one table that the API's problem+json and the error pages (src/web/errorPages.ts) read.
 */
const FRAMEWORK_ERRORS: Readonly<Record<string, readonly [ErrorCode, string]>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'the request body is larger than 1 MiB'],
  FST_REQ_FILE_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'the uploaded file is larger than its limit'],
  FST_PARTS_LIMIT: ['PAYLOAD_TOO_LARGE', 'the form has more parts than its limit'],
  FST_FILES_LIMIT: ['PAYLOAD_TOO_LARGE', 'the form has more files than its limit'],
  FST_FIELDS_LIMIT: ['PAYLOAD_TOO_LARGE', 'the form has more fields than its limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json'],
  FST_ERR_CTP_INVALID_CONTENT_ENCODING: ['UNSUPPORTED_MEDIA_TYPE', 'the request body encoding is not supported'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['MALFORMED_JSON', 'the request body is empty; a JSON object is expected'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['MALFORMED_JSON', 'the request body is not valid JSON'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['MALFORMED_JSON', 'the request body is not valid JSON'],
  FST_ERR_MAX_PARAM_LENGTH: ['NOT_FOUND', 'no resource has an identifier that long'],
  FST_ERR_BAD_URL: ['VALIDATION_FAILED', 'the URL is not valid percent-encoded UTF-8'],
};

/**
 * The request's own fault in the catalogue's words: an ApiError as it is, Fastify's errors by the
 * table above, a body that is no JSON, a value the database refuses, Fastify's other client errors.
 * Null when the fault is not the request's (the database is away, a bug): the caller answers that.
 */
export function requestFaultOf(error: FastifyError | Error): ApiError | null {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError;
  const known = fe.code === undefined ? undefined : FRAMEWORK_ERRORS[fe.code];
  if (known) return new ApiError(known[0], known[1]);
  if (error instanceof SyntaxError || (fe.statusCode === 400 && /JSON|prototype|constructor/i.test(fe.message))) {
    return new ApiError('MALFORMED_JSON', 'the request body is not valid JSON');
  }
  if (isDataException(error)) return new ApiError('VALIDATION_FAILED', 'a value in the request cannot be stored or compared');
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Fastify's own client errors (bad headers, bad URL encoding): keep them client errors.
    return new ApiError('VALIDATION_FAILED', fe.statusCode === 414 ? 'the URL is too long' : 'the request is malformed');
  }
  return null;
}

/** Maps anything thrown during a request to an ApiError; unknown errors become INTERNAL (logged, never shown). */
export function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError & { validation?: ErrorObject[]; validationContext?: string };
  if (fe.validation) {
    const part = fe.validationContext ?? 'body';
    const schema = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[part] as JsonSchema | undefined;
    let errors = toFieldErrors(fe.validation, schema);
    if (part !== 'body') errors = errors.map((e) => ({ ...e, field: e.field === '(body)' ? `(${part})` : e.field }));
    return validationError(errors);
  }
  if (isConnectionError(error)) return new ApiError('UNAVAILABLE', 'the database is unreachable; try again shortly', undefined, { 'Retry-After': '2' });
  return requestFaultOf(error) ?? new ApiError('INTERNAL', 'an internal error occurred; quote the responseIdentifier when you report it');
}

/**
 * A PostgreSQL data exception (SQLSTATE class 22: invalid text, out-of-range number, bad encoding).
 * Every value reaches SQL as a $n parameter, so such an error was caused by a value the caller sent
 * that validation let through: a client error (400), never a 500. The transaction it happened in
 * rolled back, so nothing was written. It is logged at warn with its code, so a gap in validation
 * still shows.
 */
export function isDataException(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/**
 * The parts of the site that answer HTML, by path prefix (`/portal`, `/pay`, ...). A URL under one of
 * them whose path is not valid percent-encoding cannot be routed; Fastify would answer it before any
 * of the part's hooks, with the API's JSON. Instead it is rewritten, before routing, to the part's
 * own `{prefix}/.unroutable`, which the part answers with its 400 page and headers
 * (src/web/errorPages.ts, usePageErrors). The composition root makes one per app.
 */
export class UnroutablePages {
  private readonly prefixes: string[] = [];

  add(prefix: string): void {
    this.prefixes.push(prefix);
  }

  /** The URL to route: this one, or its part's unroutable page when its path cannot be decoded. */
  rewrite(url: string): string {
    if (!url.includes('%')) return url;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    try {
      decodeURIComponent(path);
      return url;
    } catch {
      const prefix = this.prefixes.find((p) => path === p || path.startsWith(`${p}/`));
      return prefix === undefined ? url : `${prefix}${UNROUTABLE_PATH}`;
    }
  }
}

/** Where a part answers a URL under it that cannot be routed. */
export const UNROUTABLE_PATH = '/.unroutable';

/**
 * Errors Fastify raises before a route is found (a URL that is not valid percent-encoding, a path
 * parameter over the router's maxParamLength): §Errors too, through the one error writer (under a
 * part that answers HTML, such a URL never gets here: UnroutablePages). A parameter too long to be
 * any id names nothing: 404.
 */
export function frameworkErrorHandler(clock: Clock, hsts: string | null = null) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // No hook runs before routing: the transport header is set here (transportSecurity.ts).
    if (hsts !== null) reply.header('Strict-Transport-Security', hsts);
    return sendProblem(reply, toApiError(error, request), clock);
  };
}

/**
 * Errors of the HTTP parser, before Fastify has a request (headers over Node's 16 KiB limit, a
 * malformed request line, a request that never arrived completely): §Errors on the raw socket.
 */
export function clientErrorHandler(clock: Clock, hsts: string | null = null) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const apiError =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('HEADERS_TOO_LARGE', 'the request headers exceed 16 KiB')
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new ApiError('VALIDATION_FAILED', 'the request did not arrive completely in time')
          : new ApiError('VALIDATION_FAILED', 'the request is not valid HTTP');
    const body = JSON.stringify(problemBody(apiError, newUuid(), clock));
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${hsts === null ? '' : `Strict-Transport-Security: ${hsts}\r\n`}Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

/** The longest path parameter that may name anything: a longer one is 404 (every identifier is shorter). */
export const MAX_PARAM_LENGTH = 200;

/**
 * How long a parameter the router itself takes (Fastify's maxParamLength): far above any identifier,
 * so that an over-long one still reaches its route and is answered there, 404 in the route's own form
 * (the portal's page with the portal's headers, §Errors on the API). The request line is bounded by
 * the 16 KiB of headers anyway.
 */
export const ROUTER_MAX_PARAM_LENGTH = 16 * 1024;

export function installErrorHandling(app: FastifyInstance, clock: Clock): void {
  // A parameter too long to be any identifier names nothing: 404 before the body is read, after
  // each part's first hooks (its headers), so the answer is in the part's own form.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const params = request.params as Record<string, unknown> | null;
    for (const [name, value] of Object.entries(params ?? {})) {
      if (name !== '*' && typeof value === 'string' && value.length > MAX_PARAM_LENGTH) {
        done(new ApiError('NOT_FOUND', 'no resource has an identifier that long'));
        return;
      }
    }
    done(null, payload);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error');
    else if (apiError.code === 'UNAVAILABLE') request.log.warn({ errCode: (error as { code?: unknown }).code }, 'database unavailable');
    else if (isDataException(error)) request.log.warn({ errCode: error.code }, 'database rejected a request value');
    return sendProblem(reply, apiError, clock);
  });

  // 404 for unknown paths; 405 when the path exists for another method (§Status codes).
  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
    for (const m of methods) routes.push({ method: m, pattern });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      return sendProblem(
        reply,
        new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed.join(', ')}`, undefined, { Allow: allowed.join(', ') }),
        clock,
      );
    }
    return sendProblem(reply, new ApiError('NOT_FOUND', `no route for ${request.method} ${path}`), clock);
  });
}
