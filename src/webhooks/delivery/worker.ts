import type { FastifyBaseLogger } from 'fastify';
import type { Dispatcher } from 'undici';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { newUuid } from '../../ids.js';
import type { Sealer } from '../../sealing.js';
import { claimAndRecord } from './claim.js';
import { afterAttempt } from './schedule.js';
import { standardWebhookHeaders } from './sign.js';
import { ATTEMPT_TIMEOUT_MS, createDeliveryAgent, sendAttempt } from './send.js';
import type { AttemptRecord, ClaimedRow } from './sql.js';
import { NotifiedLoop } from '../../db/notifiedLoop.js';
import { DELIVERIES_CHANNEL, removeFinishedBefore, renewLeases } from './sql.js';
import type { DeliveryMetrics } from '../../metrics.js';
import { disableFailingWebhooks } from '../service.js';

// The delivery worker . It claims due deliveries in batches under a lease and sends each
// attempt on a keep-alive undici Agent. One database transaction per cycle records every attempt
// that finished since the last cycle and claims as many due deliveries as there are free slots
// (group commit: while one cycle runs the next batch accumulates, so the database sees one
// transaction per batch, not per attempt, and a lone attempt is still recorded on the next turn of
// the event loop). Recording and claiming together also keeps the per-endpoint count exact: the
// attempts just recorded no longer count as in flight when the claim counts.
//
// It runs as a NotifiedLoop (src/db/notifiedLoop.ts) whose pass is the cycle loop: woken by the
// NOTIFY of the transaction that made deliveries due, by each batch of finished attempts (slots
// freed), and by a slow fallback poll for retries that come due and leases of dead workers that run out.
//
// Leases are short (PAYLINKS_DELIVERY_LEASE_MS, 3 s) and renewed: every quarter of a lease the worker
// extends the lease of every delivery it holds, from its claim until its attempt is recorded, so an
// attempt may take its full 15 s and keep its claim. A worker that dies (kill -9, a lost machine or
// connection) stops renewing: its deliveries are due again within a lease and the next claim of
// another worker takes them over, its endpoints' slots free again. Renewing rather than a
// heartbeat row per worker keeps the claim as it is (a lease is a time on the row, checked by the
// same index) and needs nothing of PGlite that it lacks.

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error' | 'debug'>;

export interface DeliveryWorkerOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'env' | 'webhookMaxInFlightPerEndpoint' | 'deliveryLeaseMs'> & Partial<Pick<Config, 'deliveryRetentionDays' | 'webhookDisableAfterDays'>>;
  /** Opens each webhook's apiKey, sealed at rest. */
  sealer: Sealer;
  logger?: Logger;
  /** The HTTP dispatcher (tests pass an Agent that trusts their CA); default: a keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** interface §8: 15 s. Tests shorten it. */
  attemptTimeoutMs?: number;
  /** Attempts in flight in this process, all endpoints together. */
  maxInFlight?: number;
  /** Most deliveries taken by one claim. */
  batchSize?: number;
  /** Fallback poll (real time). */
  pollIntervalMs?: number;
  /** Listen for NOTIFY; default on. */
  listen?: boolean;
  /** Where attempts are counted for Prometheus. */
  metrics?: DeliveryMetrics;
}

const RETENTION_INTERVAL_MS = 10 * 60 * 1000;
const HEALTH_INTERVAL_MS = 60 * 1000;
const RETENTION_BATCH = 1_000;

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
  private readonly metrics: DeliveryMetrics | undefined;
  private readonly sealer: Sealer;
  private readonly loop: NotifiedLoop;

  private running = false;
  /** Attempts on the wire (claimed, sent, no result yet). */
  private onWire = 0;
  private cycleScheduled = false;
  /** Finished attempts waiting to be recorded by the next cycle. */
  private buffer: AttemptRecord[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  private readonly retentionDays: number;
  private healthTimer: NodeJS.Timeout | undefined;
  private readonly disableAfterDays: number;
  /**
   * Webhook keys opened from their sealed form, by sealed form: opening one per attempt (AES-GCM)
   * cost about 45 µs of each attempt (docs/performance.md). A rotated key is a new sealed form, so a new entry.
   */
  private readonly openedKeys = new Map<string, string>();
  /** Deliveries this worker holds (claimed, and not yet recorded), with their claim token: their leases are renewed. */
  private readonly held = new Map<string, string>();
  private renewTimer: NodeJS.Timeout | undefined;
  private renewing = false;
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
    this.metrics = opts.metrics;
    this.sealer = opts.sealer;
    this.retentionDays = opts.config.deliveryRetentionDays ?? 0;
    this.disableAfterDays = opts.config.webhookDisableAfterDays ?? 0;
    this.loop = new NotifiedLoop({
      db: opts.db,
      channel: DELIVERIES_CHANNEL,
      pass: () => this.cycleLoop(),
      listen: opts.listen ?? true,
      // Also how soon a dead worker's lapsed lease is noticed: within a third of a lease.
      pollIntervalMs: opts.pollIntervalMs ?? Math.min(2_000, Math.max(250, Math.floor(opts.config.deliveryLeaseMs / 3))),
      onPassError: (err) => this.log.error({ err: err.message }, 'delivery cycle crashed; the next wake-up starts a new one'),
      // Attempts on the wire or unrecorded are work too: settled() and the drain wait for them.
      busy: () => this.cycleScheduled || this.onWire > 0 || this.buffer.length > 0,
      // Stopping, finished attempts are still recorded.
      passAfterStop: () => this.buffer.length > 0,
      log: this.log,
    });
  }

  /** Starts listening and claiming; resolves once listening has started. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.loop.start();
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(100, Math.floor(this.leaseMs / 4)));
    this.renewTimer.unref();
    // Retention: once shortly after start, then every ten minutes (real time), a few batches at a time.
    if (this.retentionDays > 0) {
      const sweep = () => void this.removeOld().catch((err: unknown) => this.log.warn({ err: (err as Error).message }, 'removing old deliveries failed; trying again later'));
      this.retentionTimer = setInterval(sweep, RETENTION_INTERVAL_MS);
      this.retentionTimer.unref();
      setTimeout(sweep, 5_000).unref();
    }
    // Endpoint health: every minute (real time), webhooks failing for too long are disabled.
    if (this.disableAfterDays > 0) {
      const check = () => void this.disableFailing().catch((err: unknown) => this.log.warn({ err: (err as Error).message }, 'checking failing webhooks failed; trying again later'));
      this.healthTimer = setInterval(check, HEALTH_INTERVAL_MS);
      this.healthTimer.unref();
    }
  }

  /**
   * Disables the webhooks whose deliveries have failed for PAYLINKS_WEBHOOK_DISABLE_AFTER_DAYS with no
   * success in between, by the injected clock (see disableFailingWebhooks). Returns their ids.
   */
  async disableFailing(): Promise<string[]> {
    if (this.disableAfterDays <= 0 || this.loop.isStopped) return [];
    const disabled = await disableFailingWebhooks({ db: this.db, clock: this.clock, sealer: this.sealer }, this.disableAfterDays);
    for (const webhookId of disabled) this.log.warn({ webhookId, days: this.disableAfterDays }, 'webhook disabled: its deliveries failed for days with no success');
    return disabled;
  }

  /**
   * Removes finished deliveries (and their attempts) last changed more than the retention period ago
   * by the injected clock, in batches of RETENTION_BATCH rows, each its own statement, so the claim
   * and the API never wait long behind it. Returns how many deliveries went.
   */
  async removeOld(): Promise<number> {
    if (this.retentionDays <= 0) return 0;
    const before = new Date(this.clock.now().getTime() - this.retentionDays * 86_400_000);
    let removed = 0;
    for (;;) {
      if (this.loop.isStopped) break;
      const n = await removeFinishedBefore(this.db.pool, before, RETENTION_BATCH);
      removed += n;
      if (n < RETENTION_BATCH) break;
    }
    if (removed > 0) this.log.info({ removed, before: before.toISOString() }, 'old deliveries removed');
    return removed;
  }

  /** Claim now (a new delivery, a freed slot, a test that moved the clock). */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Resolves when a claim found nothing more to do and no attempt is in flight or unrecorded
   * (tests: move the clock, wake, wait for this).
   */
  settled(): Promise<void> {
    return this.loop.settled();
  }

  /** Drain: stop claiming, let attempts in flight finish and be recorded (at most graceMs). */
  async stop(graceMs = 20_000): Promise<void> {
    if (this.loop.isStopped) return;
    const clean = await this.loop.stop(graceMs);
    clearInterval(this.renewTimer);
    clearTimeout(this.retryTimer);
    clearInterval(this.retentionTimer);
    clearInterval(this.healthTimer);
    if (!clean) this.log.warn({ onWire: this.onWire, unrecorded: this.buffer.length }, 'delivery worker stopped with attempts in flight; their leases will run out and another worker retries them');
    if (this.ownsDispatcher) {
      if (clean) await this.dispatcher.close();
      else await this.dispatcher.destroy();
    }
    this.running = false;
  }

  /** One pass: record what finished and claim into the free slots, until nothing is left to do. */
  private async cycleLoop(): Promise<void> {
    for (;;) {
      const records = this.buffer;
      this.buffer = [];
      const limit = this.loop.isStopped ? 0 : Math.min(this.maxInFlight - this.onWire, this.batchSize);
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
        this.retryTimer = setTimeout(() => this.wake(), this.loop.isStopped ? 200 : 1_000);
        this.retryTimer.unref();
        return;
      }
      this.stats.cycles++;
      this.stats.cycleMs += performance.now() - started;
      for (const r of records) this.held.delete(r.deliveryId);
      if (result.recorded < records.length) this.log.warn({ lost: records.length - result.recorded }, 'attempts finished after their lease was taken over; not recorded');
      for (const row of result.claim.rows) this.startAttempt(row, result.claim.token);
      // Stop when the claim found less than it could take and nothing new needs recording.
      if (result.claim.rows.length < limit && this.buffer.length === 0) break;
      if (limit <= 0 && this.buffer.length === 0) break;
    }
  }

  private startAttempt(row: ClaimedRow, claimToken: string): void {
    let apiKey: string;
    let hmacKey: string;
    let previousKey: string | null;
    try {
      apiKey = this.opened(row.api_key_sealed);
      hmacKey = this.opened(row.hmac_key_sealed);
      previousKey = row.previous_hmac_key_sealed === null ? null : this.opened(row.previous_hmac_key_sealed);
    } catch (err) {
      // An operator's mistake (PAYLINKS_SECRET_KEY changed), not the receiver's: send nothing and
      // spend no attempt. The claim lapses with its lease and the delivery waits until the key is
      // right again, instead of one bad row stopping the whole process.
      this.log.error({ deliveryId: row.id, webhookId: row.webhook_id, err: (err as Error).message }, 'webhook secret cannot be opened; delivery not sent');
      return;
    }
    this.onWire++;
    this.held.set(row.id, claimToken);
    const attemptNumber = row.attempt_count + 1;
    const correlationId = newUuid();
    const sentAt = this.clock.now();
    const body = Buffer.from(row.body, 'utf8');
    void sendAttempt(
      this.dispatcher,
      { url: row.url, body, apiKey, correlationId, standard: standardWebhookHeaders(hmacKey, row.id, sentAt, body, previousKey) },
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

  /** Extends the leases of the deliveries held; a renewal that fails is tried again at the next tick, within the lease. */
  private async renewLeases(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    try {
      await renewLeases(this.db.pool, new Date(this.clock.now().getTime() + this.leaseMs), [...this.held]);
    } catch (err) {
      this.log.warn({ err: (err as Error).message, held: this.held.size }, 'renewing delivery leases failed; trying again');
    } finally {
      this.renewing = false;
    }
  }

  /** A webhook secret opened from its sealed form, once per sealed form (a rotation is a new one). */
  private opened(sealed: string): string {
    const known = this.openedKeys.get(sealed);
    if (known !== undefined) return known;
    const plain = this.sealer.open(sealed);
    if (this.openedKeys.size >= 10_000) this.openedKeys.clear();
    this.openedKeys.set(sealed, plain);
    return plain;
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
