import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { Dispatcher } from 'undici';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { newUuid } from '../../ids.js';
import { openSecret } from '../secrets.js';
import { claimAndRecord } from './claim.js';
import { afterAttempt } from './schedule.js';
import { ATTEMPT_TIMEOUT_MS, createDeliveryAgent, sendAttempt } from './send.js';
import type { AttemptRecord, ClaimedRow } from './sql.js';
import { NOTIFY_CHANNEL, onDeliveriesEnqueued } from './wake.js';
import type { DeliveryMetrics } from '../../metrics.js';

// The delivery worker (issue 3). It claims due deliveries in batches under a lease and sends each
// attempt on a keep-alive undici Agent. One database transaction per cycle records every attempt
// that finished since the last cycle and claims as many due deliveries as there are free slots
// (group commit: while one cycle runs the next batch accumulates, so the database sees one
// transaction per batch, not per attempt, and a lone attempt is still recorded on the next turn of
// the event loop). Recording and claiming together also keeps the per-endpoint count exact: the
// attempts just recorded no longer count as in flight when the claim counts.
//
// Wake-ups: NOTIFY on a LISTEN connection (PostgreSQL, any process), an in-process signal (PGlite),
// each recorded batch (slots freed), and a slow fallback poll for retries that come due and for
// leases of dead workers that run out.

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error' | 'debug'>;

export interface DeliveryWorkerOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'env' | 'webhookMaxInFlightPerEndpoint' | 'deliveryLeaseMs'>;
  logger?: Logger;
  /** The HTTP dispatcher (tests pass an Agent that trusts their CA); default: a keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** interface.md 8: 15 s. Tests shorten it. */
  attemptTimeoutMs?: number;
  /** Attempts in flight in this process, all endpoints together. */
  maxInFlight?: number;
  /** Most deliveries taken by one claim. */
  batchSize?: number;
  /** Fallback poll (real time). */
  pollIntervalMs?: number;
  /** Listen for NOTIFY (PostgreSQL only); default on for PostgreSQL. */
  listen?: boolean;
  /** Where attempts are counted for Prometheus. */
  metrics?: DeliveryMetrics;
}

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

export class DeliveryWorker {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly publicOnly: boolean;
  private readonly perEndpoint: number;
  private readonly leaseMs: number;
  private readonly maxInFlight: number;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly listen: boolean;
  private readonly metrics: DeliveryMetrics | undefined;

  private running = false;
  private stopping = false;
  /** Attempts on the wire (claimed, sent, no result yet). */
  private onWire = 0;
  /** A cycle (one transaction) is running; `again` asks for one more after it. */
  private cycling = false;
  private again = false;
  private cycleScheduled = false;
  /** Finished attempts waiting to be recorded by the next cycle. */
  private buffer: AttemptRecord[] = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private listener: pg.Client | undefined;
  private idleWaiters: (() => void)[] = [];
  /**
   * Webhook keys opened from their sealed form, by sealed form: opening one per attempt (AES-GCM)
   * cost about 45 µs of each attempt (issue 8). A rotated key is a new sealed form, so a new entry.
   */
  private readonly openedKeys = new Map<string, string>();
  /** Counters for logs and the benchmark. */
  readonly stats = { attempts: 0, delivered: 0, failedAttempts: 0, cycles: 0, cycleMs: 0 };

  constructor(opts: DeliveryWorkerOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.log = opts.logger ?? silent;
    this.publicOnly = opts.config.env === 'production';
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher = opts.dispatcher ?? createDeliveryAgent({ publicOnly: this.publicOnly });
    this.timeoutMs = opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.perEndpoint = opts.config.webhookMaxInFlightPerEndpoint;
    this.leaseMs = opts.config.deliveryLeaseMs;
    this.maxInFlight = opts.maxInFlight ?? 256;
    this.batchSize = opts.batchSize ?? 100;
    this.pollIntervalMs = opts.pollIntervalMs ?? 2_000;
    this.listen = opts.listen ?? opts.db.kind === 'postgres';
    this.metrics = opts.metrics;
    // A lease must outlive an attempt, or a live worker's claim could be taken over mid-send.
    if (this.leaseMs <= this.timeoutMs) throw new Error('deliveryLeaseMs must be longer than the attempt timeout');
  }

  /** Starts listening and claiming; resolves once the LISTEN connection (if any) is up. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    // With LISTEN the in-process signal would only trigger a claim before the caller's COMMIT (one
    // wasted claim that delays the real one); NOTIFY arrives after it.
    if (this.listen) await this.connectListener();
    else this.unsubscribe = onDeliveriesEnqueued(() => this.wake());
    this.pollTimer = setInterval(() => this.wake(), this.pollIntervalMs);
    this.pollTimer.unref();
    this.wake();
  }

  /** Claim now (a new delivery, a freed slot, a test that moved the clock). */
  wake(): void {
    if (this.stopping && this.buffer.length === 0) return;
    if (this.cycling) {
      this.again = true;
      return;
    }
    this.cycling = true;
    this.cycleLoop().catch((err: unknown) => {
      this.log.error({ err: (err as Error).message }, 'delivery cycle crashed; the next wake-up starts a new one');
    });
  }

  /**
   * Resolves when a claim found nothing more to do and no attempt is in flight or unrecorded
   * (tests: move the clock, wake, wait for this).
   */
  async settled(): Promise<void> {
    this.wake();
    if (this.isIdle()) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** D17 drain: stop claiming, let attempts in flight finish and be recorded (at most graceMs). */
  async stop(graceMs = 20_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.retryTimer);
    this.unsubscribe?.();
    const listener = this.listener;
    this.listener = undefined;
    if (listener) await listener.end().catch(() => undefined);
    const drained = new Promise<boolean>((resolve) => {
      if (this.isIdle()) return resolve(true);
      this.idleWaiters.push(() => resolve(true));
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const clean = await Promise.race([drained, timeout]);
    clearTimeout(timer);
    clearTimeout(this.retryTimer);
    if (!clean) this.log.warn({ onWire: this.onWire, unrecorded: this.buffer.length }, 'delivery worker stopped with attempts in flight; their leases will run out and another worker retries them');
    if (this.ownsDispatcher) {
      if (clean) await this.dispatcher.close();
      else await this.dispatcher.destroy();
    }
    this.running = false;
  }

  private isIdle(): boolean {
    return !this.cycling && !this.again && !this.cycleScheduled && this.onWire === 0 && this.buffer.length === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async connectListener(): Promise<void> {
    if (this.db.url === null || this.stopping) return;
    const client = new pg.Client({ connectionString: this.db.url });
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      this.log.warn({ err: err.message }, 'delivery LISTEN connection lost; reconnecting');
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      const t = setTimeout(() => void this.connectListener().catch(() => undefined), 1_000);
      t.unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      this.listener = client;
      // Anything committed while we were not listening is picked up now.
      this.wake();
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'delivery LISTEN connection failed; relying on polling until it is back');
      await client.end().catch(() => undefined);
      const t = setTimeout(() => void this.connectListener().catch(() => undefined), 1_000);
      t.unref();
    }
  }

  private async cycleLoop(): Promise<void> {
    try {
      do {
        this.again = false;
        for (;;) {
          const records = this.buffer;
          this.buffer = [];
          const limit = this.stopping ? 0 : Math.min(this.maxInFlight - this.onWire, this.batchSize);
          if (records.length === 0 && limit <= 0) break;
          const started = performance.now();
          let result: Awaited<ReturnType<typeof claimAndRecord>>;
          try {
            result = await claimAndRecord(this.db, this.clock, {
              records,
              limit: Math.max(limit, 0),
              perEndpoint: this.perEndpoint,
              leaseMs: this.leaseMs,
              // Attempts that finished while this cycle ran are off the wire: their slots are free.
              finished: () => this.unrecordedByWebhook(),
            });
          } catch (err) {
            // Nothing was recorded or claimed (one transaction). Keep the results and try again
            // shortly; until their leases run out no other worker sends those deliveries.
            this.buffer = records.concat(this.buffer);
            this.log.error({ err: (err as Error).message, unrecorded: this.buffer.length }, 'delivery cycle failed; retrying');
            this.retryTimer = setTimeout(() => this.wake(), this.stopping ? 200 : 1_000);
            this.retryTimer.unref();
            return;
          }
          this.stats.cycles++;
          this.stats.cycleMs += performance.now() - started;
          if (result.recorded < records.length) this.log.warn({ lost: records.length - result.recorded }, 'attempts finished after their lease was taken over; not recorded');
          for (const row of result.claim.rows) this.startAttempt(row, result.claim.token);
          // Stop when the claim found less than it could take and nothing new needs recording.
          if (result.claim.rows.length < limit && this.buffer.length === 0) break;
          if (limit <= 0 && this.buffer.length === 0) break;
        }
      } while (this.again);
    } finally {
      this.cycling = false;
      this.again = false;
      this.checkIdle();
    }
  }

  private startAttempt(row: ClaimedRow, claimToken: string): void {
    let apiKey: string;
    try {
      apiKey = this.openedKeys.get(row.api_key_sealed) ?? openSecret(row.api_key_sealed);
      if (this.openedKeys.size >= 10_000) this.openedKeys.clear();
      this.openedKeys.set(row.api_key_sealed, apiKey);
    } catch (err) {
      // An operator's mistake (PAYLINKS_SECRET_KEY changed), not the receiver's: send nothing and
      // spend no attempt. The claim lapses with its lease and the delivery waits until the key is
      // right again, instead of one bad row stopping the whole process.
      this.log.error({ deliveryId: row.id, webhookId: row.webhook_id, err: (err as Error).message }, 'webhook secret cannot be opened; delivery not sent');
      return;
    }
    this.onWire++;
    const attemptNumber = row.attempt_count + 1;
    const correlationId = newUuid();
    const sentAt = this.clock.now();
    void sendAttempt(
      this.dispatcher,
      { url: row.url, body: Buffer.from(row.body, 'utf8'), apiKey, correlationId },
      { timeoutMs: this.timeoutMs, publicOnly: this.publicOnly },
    ).then((result) => {
      this.onWire--;
      const outcome = afterAttempt(attemptNumber, sentAt, result.success);
      this.metrics?.attempt(result.success ? 'delivered' : (result.errorKind ?? 'status'), result.durationMs / 1000);
      if (outcome.state === 'Failed') this.metrics?.failedForGood(1);
      this.stats.attempts++;
      if (result.success) this.stats.delivered++;
      else {
        this.stats.failedAttempts++;
        this.log.info(
          { deliveryId: row.id, webhookId: row.webhook_id, attempt: attemptNumber, correlationId, status: result.responseStatus, errorKind: result.errorKind, error: result.errorDetail, next: outcome.state },
          'webhook attempt failed',
        );
      }
      this.buffer.push({
        deliveryId: row.id,
        webhookId: row.webhook_id,
        claimToken,
        attemptNumber,
        correlationId,
        sentAt,
        responseStatus: result.responseStatus,
        responseBody: result.responseBody,
        durationMs: result.durationMs,
        errorKind: result.errorKind,
        errorDetail: result.errorKind === 'status' ? null : result.errorDetail,
        state: outcome.state,
        nextAttemptAt: outcome.nextAttemptAt,
      });
      this.scheduleCycle();
    });
  }

  private unrecordedByWebhook(): Map<string, number> {
    const m = new Map<string, number>();
    for (const r of this.buffer) m.set(r.webhookId, (m.get(r.webhookId) ?? 0) + 1);
    return m;
  }

  /** Coalesces the results of one turn of the event loop into one cycle. */
  private scheduleCycle(): void {
    if (this.cycleScheduled) return;
    this.cycleScheduled = true;
    setImmediate(() => {
      this.cycleScheduled = false;
      this.wake();
    });
  }
}
