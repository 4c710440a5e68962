import { Agent, type Dispatcher } from 'undici';
import type { ConnectionOptions } from 'node:tls';
import { literalAddressAllowed, publicOnlyLookup, publicOnlyLookupWith, AddressNotAllowedError, type Resolver } from '../addressRules.js';
import { Kept } from '../../kept.js';

// One HTTP attempt of a delivery (interface §3, 6, 8): success is status exactly 200 with the whole
// response received within the time limit; anything else is a failed attempt of one kind (§Deliveries).

/** interface §8: 15 seconds, counted over the entire response. Tests inject a shorter one. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/** §Deliveries: the first 64 KiB of the response body are recorded. */
export const RESPONSE_BODY_LIMIT = 64 * 1024;

export type ErrorKind = 'timeout' | 'connection' | 'tls' | 'status';

interface AttemptResult {
  success: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  errorKind: ErrorKind | null;
  /** A short description of a failure for logs (never headers or secrets). */
  errorDetail: string | null;
}

interface DeliveryAgentOptions {
  /** §Webhooks: refuse loopback, private, link-local and internal addresses at every connection. */
  publicOnly: boolean;
  /** Extra TLS options (tests trust their own CA here). */
  tls?: Pick<ConnectionOptions, 'ca'>;
  /** Connections kept per origin; the per-endpoint in-flight limit is enforced by the claim. */
  connectionsPerOrigin?: number;
  /** DNS for the publicOnly check at each connection (tests inject one); default: the system's. */
  resolver?: Resolver;
}

/** The keep-alive undici Agent the worker sends with (one pool per origin). */
export function createDeliveryAgent(opts: DeliveryAgentOptions): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connections: opts.connectionsPerOrigin ?? null,
    // Our own timer bounds the whole attempt; undici's must not fire first.
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: {
      timeout: 10_000,
      ...(opts.tls ?? {}),
      ...(opts.publicOnly ? { lookup: opts.resolver ? publicOnlyLookupWith(opts.resolver) : publicOnlyLookup } : {}),
    },
  });
}

interface AttemptRequest {
  url: string;
  body: Buffer;
  apiKey: string;
  correlationId: string;
  /** The Standard Webhooks headers of this attempt (webhook-id, webhook-timestamp, webhook-signature). */
  standard?: Record<string, string>;
}

const TLS_CODES = new Set([
  'EPROTO',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
]);

function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  let cur: unknown = err;
  for (let i = 0; i < 5 && typeof cur === 'object' && cur !== null; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    cur = (cur as { cause?: unknown }).cause;
  }
  return codes;
}

/** Connection error or TLS failure, from the error's code (or its cause's). */
export function classifyError(err: unknown): 'tls' | 'connection' {
  const codes = errorCodes(err);
  const tls = codes.some((c) => TLS_CODES.has(c) || c.startsWith('ERR_TLS_') || c.startsWith('ERR_SSL_') || c.startsWith('CERT_'));
  return tls ? 'tls' : 'connection';
}

/**
 * Why a connection or TLS handshake failed, for the attempt's record (the merchant reads it): the
 * most specific error code (a certificate error's, else the socket's) with its message, e.g.
 * `DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate` or `ECONNREFUSED: connect ECONNREFUSED
 * 127.0.0.1:9`. It names an address at most, never a header or a secret.
 */
function describeError(err: unknown): string {
  let cur: unknown = err;
  let best: { code: string; message: string } | undefined;
  for (let i = 0; i < 5 && typeof cur === 'object' && cur !== null; i++) {
    const e = cur as { code?: unknown; message?: unknown; cause?: unknown };
    const message = typeof e.message === 'string' ? e.message : '';
    if (typeof e.code === 'string') {
      const tls = TLS_CODES.has(e.code) || e.code.startsWith('ERR_TLS_') || e.code.startsWith('ERR_SSL_') || e.code.startsWith('CERT_');
      // Node 24 and later append advice for whoever runs Node to a certificate error ("; if the root
      // CA is installed locally, try running Node.js with --use-system-ca"). The merchant who reads
      // the attempt fixes the certificate, not our runtime: keep OpenSSL's reason alone.
      if (best === undefined || tls) best = { code: e.code, message: tls ? (message.split('; ')[0] ?? message) : message };
    }
    cur = e.cause;
  }
  const text = best
    ? best.message === '' || best.message === best.code
      ? best.code
      : `${best.code}: ${best.message}`
    : err instanceof Error
      ? err.message
      : 'error';
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

/** A webhook URL parsed once: where undici sends it, and the IP-literal check's answer. */
interface Target {
  origin: string;
  path: string;
  url: URL;
}
/** Parsed URLs by their text; a worker sends to a few hundred webhooks, so this stays small. */
const targets = new Kept<string, Target>(10_000);

function targetOf(text: string): Target {
  return targets.get(text, () => {
    const url = new URL(text);
    return { origin: url.origin, path: `${url.pathname}${url.search}`, url };
  });
}

/** The attempt's time limit ran out: what aborts the request (never shown; the result says "timeout"). */
class AttemptTimeout extends Error {}

/**
 * One attempt on the wire: undici's dispatch handler, its time limit and what it has read. One object
 * per attempt, its callbacks on the prototype, instead of a closure per callback: at thousands of
 * attempts a second the closures were a part of the worker's garbage (docs/performance.md).
 */
class Attempt implements Dispatcher.DispatchHandler {
  private status: number | null = null;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private abort: ((err?: Error) => void) | undefined = undefined;
  private timedOut = false;
  private settled = false;
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly timeoutMs: number,
    private readonly resolve: (result: AttemptResult) => void,
  ) {
    this.timer = setTimeout(timeUp, timeoutMs, this);
  }

  /** The time limit ran out: abort the request (now, or once undici hands over its abort). */
  timeUp(): void {
    this.timedOut = true;
    this.abort?.(new AttemptTimeout());
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    if (this.timedOut) abort(new AttemptTimeout());
  }

  onHeaders(statusCode: number): boolean {
    this.status = statusCode;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.keptBytes < RESPONSE_BODY_LIMIT) {
      const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - this.keptBytes);
      this.kept.push(part);
      this.keptBytes += part.length;
    }
    return true;
  }

  onComplete(): void {
    const ok = this.status === 200;
    this.finish({
      success: ok,
      responseStatus: this.status,
      responseBody: this.keptText(),
      durationMs: this.elapsed(),
      errorKind: ok ? null : 'status',
      errorDetail: ok ? null : `HTTP ${this.status}`,
    });
  }

  onError(err: Error): void {
    const partial = this.kept.length > 0 ? this.keptText() : null;
    if (this.timedOut) {
      this.finish({
        success: false,
        responseStatus: this.status,
        responseBody: partial,
        durationMs: this.elapsed(),
        errorKind: 'timeout',
        errorDetail: `no complete response within ${this.timeoutMs} ms`,
      });
      return;
    }
    this.finish({
      success: false,
      responseStatus: this.status,
      responseBody: partial,
      durationMs: this.elapsed(),
      errorKind: classifyError(err),
      errorDetail: describeError(err),
    });
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.started);
  }

  private keptText(): string {
    const bytes = this.kept.length === 1 ? (this.kept[0] as Buffer) : Buffer.concat(this.kept);
    return bytes.toString('utf8').replace(/\0/g, '\uFFFD');
  }

  private finish(result: AttemptResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(result);
  }
}

function timeUp(attempt: Attempt): void {
  attempt.timeUp();
}

/**
 * Sends one attempt and reads the whole response, all within `timeoutMs`. Never throws.
 *
 * Written on undici's dispatch handler rather than its `request()`: the attempt needs the status and
 * the first 64 KiB of the body, and `request()` built a readable stream, an async iterator and an
 * AbortController around them for each attempt, a large share of the worker's CPU time per delivery
 * (docs/performance.md). The time limit aborts through the function undici hands the handler when
 * the request goes onto a connection; a limit that runs out before then (while connecting) aborts it
 * at that moment, as undici's own signal handling does.
 */
export function sendAttempt(dispatcher: Dispatcher, req: AttemptRequest, opts: { timeoutMs?: number; publicOnly: boolean }): Promise<AttemptResult> {
  const timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  let target: Target;
  try {
    target = targetOf(req.url);
    // An IP literal is dialled without a lookup, so publicOnlyLookup never sees it: check it here.
    if (opts.publicOnly && !literalAddressAllowed(target.url)) throw new AddressNotAllowedError(target.url.hostname);
  } catch (err) {
    return Promise.resolve({
      success: false,
      responseStatus: null,
      responseBody: null,
      durationMs: 0,
      errorKind: classifyError(err),
      errorDetail: describeError(err),
    });
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    authorization: req.apiKey,
    'x-webhook-correlationid': req.correlationId,
  };
  if (req.standard) for (const name in req.standard) headers[name] = req.standard[name] as string;
  return new Promise<AttemptResult>((resolve) => {
    dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body: req.body }, new Attempt(timeoutMs, resolve));
  });
}
