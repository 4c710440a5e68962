import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { newUuid } from '../../ids.js';
import type { Sealer } from '../../sealing.js';
import { afterAttempt } from '../delivery/schedule.js';
import { standardWebhookHeaders } from '../delivery/sign.js';
import { ATTEMPT_TIMEOUT_MS, RESPONSE_BODY_LIMIT, type ErrorKind } from '../delivery/send.js';
import { DELIVERIES_CHANNEL, recordAttempts, releaseClaims, type AttemptRecord } from '../delivery/sql.js';
import { claimListenerDeliveries, touchListener } from './sql.js';

// The service's side of `paylinks listen`. A listener webhook has no URL: the CLI opens a stream
// (Server-Sent Events) to a service process, and while the stream is open that process claims the
// listener's due deliveries, exactly as a worker claims a URL webhook's (lease, claim token, the same
// retry schedule), and sends each attempt down the stream with the headers and body a URL webhook
// would receive. The CLI forwards it to the developer's local URL and reports the answer back; the
// attempt is recorded with that answer. An attempt not reported within the time limit (plus a little
// for the round trip to the CLI) is recorded as a timeout, and one whose stream closed as a
// connection failure: either way it is retried on the schedule.
//
// The report carries an attempt token (delivery, claim, attempt number, send time): any service
// process can record it, so a CLI behind a load balancer may report to another instance. The claim
// token makes a late or repeated report harmless (it records nothing once the claim is gone).

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** One attempt as the stream carries it to the CLI. */
export interface StreamedAttempt {
  deliveryId: string;
  eventType: string;
  payfacReference: string;
  attemptNumber: number;
  correlationId: string;
  /** Opaque; sent back with the report. */
  attemptToken: string;
  /** The headers a URL webhook's receiver gets, to be forwarded as they are. */
  headers: Record<string, string>;
  /** The exact body, to be forwarded byte for byte. */
  body: string;
}

interface AttemptReport {
  deliveryId: string;
  attemptToken: string;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  errorKind: ErrorKind | null;
  errorDetail: string | null;
}

interface Token {
  d: string;
  c: string;
  k: string;
  n: number;
  s: number;
  w: string;
}

function encodeToken(t: Token): string {
  return Buffer.from(JSON.stringify(t)).toString('base64url');
}

function decodeToken(raw: string): Token | undefined {
  try {
    const t = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Token>;
    if (
      typeof t.d !== 'string' ||
      typeof t.c !== 'string' ||
      typeof t.k !== 'string' ||
      typeof t.n !== 'number' ||
      typeof t.s !== 'number' ||
      typeof t.w !== 'string'
    )
      return undefined;
    if (!Number.isInteger(t.n) || t.n < 1 || t.n > 5) return undefined;
    return t as Token;
  } catch {
    return undefined;
  }
}

interface ListenerHubOptions {
  db: Database;
  clock: Clock;
  /** Opens each listener's apiKey, sealed at rest. */
  sealer: Sealer;
  leaseMs: number;
  logger?: Logger;
  /** Time the CLI has to report an attempt: the receiver's limit (15 s) and a margin for the round trip. */
  reportTimeoutMs?: number;
  /** Attempts in flight per stream. */
  maxInFlight?: number;
  /** How often an open stream looks for due deliveries without being woken (real time). */
  pollIntervalMs?: number;
  /** Comment lines that keep proxies from closing an idle stream, and the liveness mark (real time). */
  heartbeatMs?: number;
}

interface InFlight {
  token: Token;
  timer: NodeJS.Timeout;
}

/** Where a stream writes: the route's response. */
export interface Sink {
  send(event: string, data: unknown): void;
  comment(text: string): void;
  end(): void;
}

interface Stream {
  webhookId: string;
  /** What the route gave to open(): its close detaches this stream and no later one. */
  sink: Sink;
  /** The client's name for itself across its reconnections, when it gave one. */
  session: string | undefined;
  inFlight: Map<string, InFlight>;
  pumping: boolean;
  again: boolean;
  closed: boolean;
  heartbeat: NodeJS.Timeout;
}

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export class ListenerHub {
  private readonly streams = new Map<string, Stream>();
  private readonly log: Logger;
  private readonly reportTimeoutMs: number;
  private readonly maxInFlight: number;
  private readonly pollIntervalMs: number;
  private readonly heartbeatMs: number;
  private poll: NodeJS.Timeout | undefined;
  /** Stops listening for NOTIFY of new deliveries; listening runs while a stream is open. */
  private unlisten: Promise<() => Promise<void>> | undefined;
  private closing = false;

  constructor(private readonly opts: ListenerHubOptions) {
    this.log = opts.logger ?? silent;
    this.reportTimeoutMs = opts.reportTimeoutMs ?? ATTEMPT_TIMEOUT_MS + 5_000;
    this.maxInFlight = opts.maxInFlight ?? 10;
    this.pollIntervalMs = opts.pollIntervalMs ?? 1_000;
    this.heartbeatMs = opts.heartbeatMs ?? 15_000;
  }

  /** True when this process holds a stream for the listener that a stream of `session` may not replace. */
  isHeld(webhookId: string, session?: string): boolean {
    const held = this.streams.get(webhookId);
    return held !== undefined && (session === undefined || held.session !== session);
  }

  /**
   * Attaches a stream to a listener webhook; false when this process already has one open for it
   * (one CLI per listener). A stream of the same session replaces the one held: that client lost its
   * connection without it closing (a laptop that slept, a network that dropped; the service's
   * keep-alive comments still fit in the socket's buffers, so nothing here notices for many
   * minutes) and came back. What the old stream had in flight is recorded as a connection failure
   * and retried on the schedule, as when a stream closes.
   */
  open(webhookId: string, sink: Sink, session?: string): boolean {
    if (this.closing || this.isHeld(webhookId, session)) return false;
    const held = this.streams.get(webhookId);
    if (held) {
      this.detach(webhookId, held.sink);
      held.sink.end();
    }
    const stream: Stream = {
      webhookId,
      sink,
      session,
      inFlight: new Map(),
      pumping: false,
      again: false,
      closed: false,
      heartbeat: setInterval(() => {
        sink.comment('keep-alive');
        touchListener(this.opts.db.pool, webhookId, this.opts.clock.now()).catch(() => undefined);
      }, this.heartbeatMs),
    };
    stream.heartbeat.unref();
    this.streams.set(webhookId, stream);
    if (this.streams.size === 1) {
      this.unlisten = this.opts.db.listen(DELIVERIES_CHANNEL, () => this.wakeAll(), this.log);
      this.poll = setInterval(() => this.wakeAll(), this.pollIntervalMs);
      this.poll.unref();
    }
    touchListener(this.opts.db.pool, webhookId, this.opts.clock.now()).catch(() => undefined);
    stream.sink.send('ready', { webhookId });
    this.pump(stream);
    return true;
  }

  /**
   * The CLI went away: attempts it had not answered are recorded as connection failures. With `sink`,
   * only the stream opened with it (a replaced stream's late close leaves its successor alone).
   */
  detach(webhookId: string, sink?: Sink): void {
    const stream = this.streams.get(webhookId);
    if (!stream || (sink !== undefined && stream.sink !== sink)) return;
    stream.closed = true;
    clearInterval(stream.heartbeat);
    this.streams.delete(webhookId);
    if (this.streams.size === 0) {
      clearInterval(this.poll);
      const unlisten = this.unlisten;
      this.unlisten = undefined;
      void unlisten?.then((stop) => stop()).catch(() => undefined);
    }
    for (const [correlationId, f] of stream.inFlight) {
      clearTimeout(f.timer);
      void this.record(f.token, correlationId, {
        responseStatus: null,
        responseBody: null,
        durationMs: this.elapsed(f.token),
        errorKind: 'connection',
        errorDetail: 'the listener disconnected before answering',
      });
    }
    stream.inFlight.clear();
  }

  /** Ends every stream (the process is shutting down); their attempts are recorded as failed. */
  closeAll(): void {
    this.closing = true;
    for (const stream of [...this.streams.values()]) {
      this.detach(stream.webhookId);
      stream.sink.end();
    }
  }

  /** Wakes every open stream (a new delivery was enqueued, or a test moved the clock). */
  wakeAll(): void {
    for (const s of this.streams.values()) this.pump(s);
  }

  /**
   * Records the CLI's report of an attempt. False when the attempt is no longer awaited (it timed
   * out, its stream closed and it was recorded, or the token is not one of this listener's).
   */
  async report(webhookId: string, r: AttemptReport): Promise<boolean> {
    const token = decodeToken(r.attemptToken);
    if (!token || token.d !== r.deliveryId || token.w !== webhookId) return false;
    const stream = this.streams.get(webhookId);
    const local = stream?.inFlight.get(token.c);
    if (local) {
      clearTimeout(local.timer);
      stream?.inFlight.delete(token.c);
    }
    const recorded = await this.record(token, token.c, r);
    if (stream) this.pump(stream);
    return recorded;
  }

  private elapsed(token: Token): number {
    return Math.max(0, this.opts.clock.now().getTime() - token.s);
  }

  private async record(
    token: Token,
    correlationId: string,
    r: Pick<AttemptReport, 'responseStatus' | 'responseBody' | 'durationMs' | 'errorKind' | 'errorDetail'>,
  ): Promise<boolean> {
    const success = r.responseStatus === 200 && r.errorKind === null;
    const sentAt = new Date(token.s);
    const outcome = afterAttempt(token.n, sentAt, success);
    const body = r.responseBody === null ? null : r.responseBody.slice(0, RESPONSE_BODY_LIMIT).replace(/\0/g, '\uFFFD');
    const record: AttemptRecord = {
      deliveryId: token.d,
      webhookId: token.w,
      claimToken: token.k,
      attemptNumber: token.n,
      correlationId,
      sentAt,
      responseStatus: r.responseStatus,
      responseBody: body,
      durationMs: Math.max(0, Math.round(r.durationMs)),
      errorKind: success ? null : (r.errorKind ?? 'status'),
      errorDetail: success || r.errorKind === null || r.errorKind === 'status' ? null : r.errorDetail,
      state: outcome.state,
      nextAttemptAt: outcome.nextAttemptAt,
    };
    try {
      const done = await recordAttempts(this.opts.db.pool, this.opts.clock.now(), [record]);
      return done.length === 1;
    } catch (err) {
      // Not recorded: the claim lapses with its lease and the attempt is made again.
      this.log.error({ deliveryId: token.d, err: (err as Error).message }, 'listener attempt not recorded');
      return false;
    }
  }

  private pump(stream: Stream): void {
    if (stream.closed) return;
    if (stream.pumping) {
      stream.again = true;
      return;
    }
    stream.pumping = true;
    void this.claim(stream)
      .catch((err: unknown) => this.log.warn({ webhookId: stream.webhookId, err: (err as Error).message }, 'listener claim failed; retrying on the next poll'))
      .finally(() => {
        stream.pumping = false;
        if (stream.again) {
          stream.again = false;
          this.pump(stream);
        }
      });
  }

  private async claim(stream: Stream): Promise<void> {
    const free = this.maxInFlight - stream.inFlight.size;
    if (free <= 0) return;
    const now = this.opts.clock.now();
    const claimToken = newUuid();
    const rows = await claimListenerDeliveries(this.opts.db.pool, {
      webhookId: stream.webhookId,
      now,
      leaseUntil: new Date(now.getTime() + this.opts.leaseMs),
      claimToken,
      limit: free,
    });
    // A stream that closed while the claim ran gives back what it claimed, due at once, and wakes the
    // stream that replaced it (whose own claim passed over these rows); else they would wait for the
    // lease, a minute.
    if (stream.closed) {
      if (rows.length === 0) return;
      const held = rows.map((r) => [r.id, claimToken] as const);
      try {
        await releaseClaims(this.opts.db.pool, this.opts.clock.now(), held);
      } catch (err) {
        this.log.warn(
          { webhookId: stream.webhookId, deliveries: held.length, err: (err as Error).message },
          'deliveries claimed for a closed listener stream not given back; they are due again when their lease ends',
        );
        return;
      }
      const next = this.streams.get(stream.webhookId);
      if (next) this.pump(next);
      return;
    }
    for (const row of rows) {
      const correlationId = newUuid();
      const token: Token = { d: row.id, c: correlationId, k: claimToken, n: row.attemptCount + 1, s: this.opts.clock.now().getTime(), w: stream.webhookId };
      let apiKey: string;
      let hmacKey: string;
      let previousKey: string | null;
      try {
        apiKey = this.opts.sealer.open(row.apiKeySealed);
        hmacKey = this.opts.sealer.open(row.hmacKeySealed);
        previousKey = row.previousHmacKeySealed === null ? null : this.opts.sealer.open(row.previousHmacKeySealed);
      } catch (err) {
        this.log.error({ deliveryId: row.id, err: (err as Error).message }, 'webhook secret cannot be opened; delivery not sent');
        continue;
      }
      const timer = setTimeout(() => {
        if (!stream.inFlight.delete(correlationId)) return;
        void this.record(token, correlationId, {
          responseStatus: null,
          responseBody: null,
          durationMs: this.reportTimeoutMs,
          errorKind: 'timeout',
          errorDetail: `paylinks listen reported no answer within ${this.reportTimeoutMs / 1000} s`,
        }).then(() => this.pump(stream));
      }, this.reportTimeoutMs);
      timer.unref();
      stream.inFlight.set(correlationId, { token, timer });
      const attempt: StreamedAttempt = {
        deliveryId: row.id,
        eventType: row.eventType,
        payfacReference: row.payfacReference,
        attemptNumber: token.n,
        correlationId,
        attemptToken: encodeToken(token),
        headers: {
          'content-type': 'application/json; charset=utf-8',
          authorization: apiKey,
          'x-webhook-correlationid': correlationId,
          ...standardWebhookHeaders(hmacKey, row.id, new Date(token.s), row.body, previousKey),
        },
        body: row.body,
      };
      stream.sink.send('attempt', attempt);
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The streams of `paylinks listen` open on this process (tests wake them after moving the clock). */
    readonly listeners: ListenerHub;
  }
}
