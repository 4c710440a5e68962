import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LoggerOptions, LogFn } from 'pino';
import type { LogLevel } from './config.js';

// No secret, card number or CVC ever reaches a log line. Requests are logged by our own one-line hook
// (method, path, status, time), never with headers or bodies; these redactions guard anything that
// logs an object carrying such fields anyway.
const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers.authorization',
  '*.apiKey',
  '*.hmacKey',
  '*.cardNumber',
  '*.cvc',
  '*.password',
];

/** What stands in a logged path for a part that may be a secret. */
export const REDACTED = '[redacted]';

/**
 * Path parameters that name an object without giving access to it (the caller still needs a key or a
 * session): kept in the log so that a line says what was asked for. Every other parameter is
 * redacted, so a route added later with a secret in its path is redacted without anyone remembering
 * to: a one-time sign-in or invitation token (/portal/link/{token}), a shopper's page
 * (/pay/{reference}, /checkout/{reference}, /charge/{reference}: whoever has the address can open
 * it), and the same references on the API and in the portal.
 */
const PUBLIC_PARAMS: ReadonlySet<string> = new Set(['webhookId', 'deliveryId', 'keyId', 'userId', 'themeKey', 'payfacReference', '*']);

/** A kept parameter is an identifier: anything longer or stranger is redacted all the same. */
const PLAIN_VALUE = /^[A-Za-z0-9._-]{1,64}$/;

/** A segment of a path no route answered that is kept: a word of a path, never a token's random text. */
const PLAIN_SEGMENT = /^(?:[a-z]{1,15}(?:[-.][a-z]{1,15})*|\d{1,16}|v\d)?$/;

/** What the log says of a request's address (the fields of a Fastify request it reads). */
export interface LoggedRequest {
  url: string;
  /** The route's pattern (`/portal/link/:token`), or undefined when no route answered. */
  routeOptions?: { url?: string | undefined };
  params?: unknown;
}

/**
 * The path of a request as it may be logged: never the query (a receipt's signature, a listen
 * stream's token); the route's pattern with each parameter's value, or `[redacted]` for one that
 * may be a secret; for a path no route answers, each segment that is not a plain word or number
 * redacted (a mistyped link still carries its token).
 */
export function loggedPath(request: LoggedRequest): string {
  const path = request.url.split('?')[0] ?? '';
  const pattern = request.routeOptions?.url;
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (pattern !== undefined && pattern !== '') {
    return pattern.replace(/:([A-Za-z0-9_]+)|\*$/g, (whole: string, name: string | undefined) => {
      const value = params[name ?? '*'];
      if (name === undefined) return typeof value === 'string' ? value.split('/').map(plainSegment).join('/') : whole;
      return PUBLIC_PARAMS.has(name) && typeof value === 'string' && PLAIN_VALUE.test(value) ? value : REDACTED;
    });
  }
  return path.split('/').map(plainSegment).join('/');
}

function plainSegment(segment: string): string {
  return PLAIN_SEGMENT.test(segment) ? segment : REDACTED;
}

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'paylinks' },
    // Anything that logs a request object (Fastify's own lines, a plugin's) gets its method and
    // redacted path only: no headers, no query.
    serializers: { req: (req: LoggedRequest & { method?: string }) => ({ method: req.method, url: loggedPath(req) }) },
  };
}

/**
 * A request's logger that becomes pino's child (with the request id) only when the request writes a
 * line. Below info most requests write none, and making the child cost about 2.7 KB and 10 µs a
 * request: the redaction's `*.` paths (src/logging.ts) pass every binding through the redactor
 * (docs/performance.md, "What was tuned"). The lines are the child's own, made the same way.
 */
class RequestLogger implements FastifyBaseLogger {
  #made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The child logger, made at the first line the request writes. */
  get made(): FastifyBaseLogger {
    return (this.#made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.#made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.made.level = level;
  }

  // The level methods are on the prototype (below), not a closure of each per request.
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }
}

for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value(this: RequestLogger, ...args: Parameters<LogFn>): void {
      this.made[level](...args);
    },
  });
}

/** Fastify's childLoggerFactory: each request gets a RequestLogger. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
