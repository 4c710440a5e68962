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
import { OpenedKeys } from './keys.js';
import { ATTEMPT_TIMEOUT_MS, createDeliveryAgent, sendAttempt } from './send.js';
import { LoopOwner, NotifiedLoop } from '../../db/notifiedLoop.js';
import { DELIVERIES_CHANNEL, renewLeases, type AttemptRecord, type ClaimedRow } from './sql.js';
import type { DeliveryMetrics, GiveBackReason } from '../../metrics.js';
import { DeliveryHousekeeping } from './housekeeping.js';
import { RecentSamples } from './samples.js';
import { Kept } from '../../kept.js';
import { countByWebhook, depths, followEndpoints, heldBack, heldByWebhook, holdingsOf, type Endpoint, type Queued } from './endpoints.js';

// The delivery worker. It claims due deliveries in batches under a lease and sends each
// attempt on a keep-alive undici Agent. One database transaction per cycle records every attempt
// that finished since the last cycle and claims more due deliveries (group commit: while one cycle
// runs the next batch accumulates, so the database sees one transaction per batch, not per attempt,
// and a lone attempt is still recorded on the next turn of the event loop).
//
// Full slots: per webhook the worker holds up to its max in flight on the wire and a queue of claimed
// deliveries beside them, so an attempt that ends is followed at once by the next from the queue,
// without waiting for a cycle to commit; the cycles refill the queue, as deep as what the endpoint
// completes in a cycle (src/webhooks/delivery/endpoints.ts). How many may be on the
// wire is the claim's `allowance` (the max in flight less what other workers hold), so the limit
// holds across workers (claimDueDeliveries says why). A queue held back by other workers' holdings
// asks the next cycle for its allowance again. A delivery sent from the queue whose result is not
// recorded before the worker dies is sent again after its lease (at-least-once, never lost).
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

/**
 * Most deliveries one cycle claims. A cycle's fixed part (four round trips, each answered late while
 * the event loop is busy with attempts, and the commit's flush) is paid per cycle, so larger claims
 * mean fewer cycles where they run back to back: 20,000 deliveries to 100 endpoints took 103 cycles
 * with claims of up to 200 against 203 with 100, and one endpoint at 50 in flight about 120
 * deliveries a cycle against 100 (docs/performance.md). Measured on PostgreSQL. The embedded
 * database keeps 100: its one connection also serves the server's requests, which wait while a
 * cycle holds it, and a longer cycle would make them wait longer.
 */
const DEFAULT_BATCH = { postgres: 200, pglite: 100 } as const;

/** Slot turnarounds kept for the stop log's percentiles (the most recent ones). */
const TURNAROUND_SAMPLES = 20_000;

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error' | 'debug'>;

export interface DeliveryWorkerOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'env' | 'webhookMaxInFlightPerEndpoint' | 'deliveryLeaseMs'> &
    Partial<Pick<Config, 'deliveryRetentionDays' | 'webhookDisableAfterDays' | 'workerMaxInFlight'>>;
  /** Opens each webhook's apiKey, sealed at rest. */
  sealer: Sealer;
  logger?: Logger;
  /** The HTTP dispatcher (tests pass an Agent that trusts their CA); default: a keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** interface §8: 15 s. Tests shorten it. */
  attemptTimeoutMs?: number;
  /** Attempts in flight in this process, all endpoints together; default: the configuration's. */
  maxInFlight?: number;
  /** Most deliveries taken by one claim; default DEFAULT_BATCH. */
  batchSize?: number;
  /** Fallback poll (real time). */
  pollIntervalMs?: number;
  /** Listen for NOTIFY; default on. */
  listen?: boolean;
  /** Where attempts are counted for Prometheus. */
  metrics?: DeliveryMetrics;
}

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

export class DeliveryWorker extends LoopOwner {
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
  protected readonly loop: NotifiedLoop;

  private running = false;
  /** Attempts on the wire (claimed, sent, no result yet). */
  private onWire = 0;
  private cycleScheduled = false;
  /** Finished attempts waiting to be recorded by the next cycle. */
  private buffer: AttemptRecord[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  /** Retention, kept counts and endpoint health, on their own timers. */
  private readonly housekeeping: DeliveryHousekeeping;
  /** Webhook keys opened once, not per attempt. */
  private readonly keys: OpenedKeys;
  /** Deliveries this worker holds (claimed, and not yet recorded), with their claim token: their leases are renewed. */
  private readonly held = new Map<string, { token: string; webhookId: string }>();
  /** Per webhook: its queue and counts (removed when nothing of it is held). */
  private readonly endpoints = new Map<string, Endpoint>();
  /** Deliveries queued, all webhooks together. */
  private queued = 0;
  /** A queue waits for the process-wide limit (maxInFlight): pump them all when a slot frees. */
  private waitingForProcess = false;
  private renewTimer: NodeJS.Timeout | undefined;
  private renewing = false;
  /** Counters for logs and the benchmark. */
  readonly stats = { attempts: 0, delivered: 0, failedAttempts: 0, givenBack: 0, cycles: 0, cycleMs: 0 };
  /** When each webhook's endpoint was last logged as slow (performance.now()): once a minute at most. */
  private readonly slowLogged = new Kept<string, { at: number }>(10_000);
  /** Recent slot turnarounds in ms: from an attempt's end to the next attempt on that slot. */
  private readonly turnarounds = new RecentSamples(TURNAROUND_SAMPLES);

  constructor(opts: DeliveryWorkerOptions) {
    super();
    this.db = opts.db;
    this.clock = opts.clock;
    this.log = opts.logger ?? silent;
    this.publicOnly = opts.config.env === 'production';
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher = opts.dispatcher ?? createDeliveryAgent({ publicOnly: this.publicOnly });
    this.timeoutMs = opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.perEndpoint = opts.config.webhookMaxInFlightPerEndpoint;
    this.leaseMs = opts.config.deliveryLeaseMs;
    this.maxInFlight = opts.maxInFlight ?? opts.config.workerMaxInFlight ?? 256;
    this.batchSize = opts.batchSize ?? DEFAULT_BATCH[opts.db.kind];
    this.metrics = opts.metrics;
    this.keys = new OpenedKeys(opts.sealer);
    this.loop = new NotifiedLoop({
      db: opts.db,
      channel: DELIVERIES_CHANNEL,
      pass: () => this.cycleLoop(),
      listen: opts.listen ?? true,
      // Also how soon a dead worker's lapsed lease is noticed: within a third of a lease.
      pollIntervalMs: opts.pollIntervalMs ?? Math.min(2_000, Math.max(250, Math.floor(opts.config.deliveryLeaseMs / 3))),
      onPassError: (err) => this.log.error({ err: err.message }, 'delivery cycle crashed; the next wake-up starts a new one'),
      // Attempts on the wire or unrecorded are work too: settled() and the drain wait for them.
      busy: () => this.cycleScheduled || this.onWire > 0 || this.buffer.length > 0 || this.queued > 0,
      // Stopping, finished attempts are still recorded and the queue given back.
      passAfterStop: () => this.buffer.length > 0 || this.queued > 0,
      log: this.log,
    });
    this.housekeeping = new DeliveryHousekeeping({
      db: opts.db,
      clock: opts.clock,
      sealer: opts.sealer,
      log: this.log,
      retentionDays: opts.config.deliveryRetentionDays ?? 0,
      disableAfterDays: opts.config.webhookDisableAfterDays ?? 0,
      isStopped: () => this.loop.isStopped,
    });
  }

  /** Starts listening and claiming; resolves once listening has started. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.loop.start();
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(100, Math.floor(this.leaseMs / 4)));
    this.renewTimer.unref();
    this.housekeeping.start();
    this.metrics?.workerStarted(() => holdingsOf(this.endpoints, this.queued, this.onWire));
  }

  /** Disables the webhooks that have failed for too long (see DeliveryHousekeeping.disableFailing). */
  disableFailing(): Promise<string[]> {
    return this.housekeeping.disableFailing();
  }

  /** Removes finished deliveries past their retention (see DeliveryHousekeeping.removeOld). */
  removeOld(): Promise<number> {
    return this.housekeeping.removeOld();
  }

  /** Removes finished deliveries last changed before `before`, at most `most` (the bench's measure). */
  removeOldBefore(before: Date, most = Infinity): Promise<number> {
    return this.housekeeping.removeOldBefore(before, most);
  }

  /** Drain: stop claiming, let attempts in flight finish and be recorded (at most graceMs). */
  override async stop(graceMs = 20_000): Promise<void> {
    if (this.loop.isStopped) return;
    const stopping = this.loop.stop(graceMs);
    // Queued deliveries are given back by one more pass (an attempt that ends would also run it).
    if (this.queued > 0) this.wake();
    const clean = await stopping;
    clearInterval(this.renewTimer);
    clearTimeout(this.retryTimer);
    this.housekeeping.stop();
    if (!clean)
      this.log.warn(
        { onWire: this.onWire, unrecorded: this.buffer.length },
        'delivery worker stopped with attempts in flight; their leases will run out and another worker retries them',
      );
    const { cycles, cycleMs, ...counts } = this.stats;
    const turnaround = this.slotTurnaround();
    this.log.info(
      {
        ...counts,
        cycles,
        meanCycleMs: cycles === 0 ? 0 : Math.round((cycleMs / cycles) * 100) / 100,
        slotTurnarounds: turnaround.n,
        slotTurnaroundP50Ms: turnaround.p50,
        slotTurnaroundP99Ms: turnaround.p99,
      },
      'delivery worker stopped',
    );
    if (this.ownsDispatcher) {
      if (clean) await this.dispatcher.close();
      else await this.dispatcher.destroy();
    }
    this.metrics?.workerStopped();
    this.running = false;
  }

  /** One pass: record what finished and claim into the free places, until nothing is left to do. */
  private async cycleLoop(): Promise<void> {
    for (;;) {
      const records = this.buffer;
      this.buffer = [];
      const stopping = this.loop.isStopped;
      // Stopping, the queue is given back, claimed by no one and due at once; else what a queue holds
      // beyond the depth its webhook's recorded attempts now give it.
      const excess = stopping ? [] : this.takeExcess(records);
      const release = stopping ? this.takeQueue() : excess.map((q): [string, string] => [q.row.id, q.token]);
      const limit = stopping ? 0 : Math.min(2 * this.maxInFlight - this.held.size + records.length, this.batchSize);
      if (records.length === 0 && release.length === 0 && limit <= 0) break;
      const recording = new Map<string, number>();
      for (const r of records) recording.set(r.webhookId, (recording.get(r.webhookId) ?? 0) + 1);
      const started = performance.now();
      let result: Awaited<ReturnType<typeof claimAndRecord>>;
      try {
        result = await claimAndRecord(this.db, this.clock, {
          records,
          release,
          limit: Math.max(limit, 0),
          perEndpoint: this.perEndpoint,
          leaseMs: this.leaseMs,
          // Attempts that finished while this cycle ran are off the wire: their places are free.
          finished: () => this.unrecordedByWebhook(),
          mine: () => heldByWebhook(this.endpoints, recording),
          depths: depths(this.endpoints),
          refresh: () => heldBack(this.endpoints, recording),
        });
      } catch (err) {
        // Nothing was recorded, given back or claimed (one transaction). Keep the results and try
        // again shortly; until their leases run out no other worker sends those deliveries (a stopping
        // worker's queue is left to its leases, renewed no more).
        this.buffer = records.concat(this.buffer);
        // What was to be given back is still this worker's claim: queued again, to be sent.
        for (const q of excess) this.enqueue(q.row, q.token, false);
        this.pumpAll();
        this.log.error({ err: (err as Error).message, unrecorded: this.buffer.length }, 'delivery cycle failed; retrying');
        this.retryTimer = setTimeout(() => this.wake(), this.loop.isStopped ? 200 : 1_000);
        this.retryTimer.unref();
        return;
      }
      this.stats.cycles++;
      this.stats.cycleMs += performance.now() - started;
      for (const r of records) this.forget(r.deliveryId, r.webhookId);
      if (result.released > 0) this.gaveBack(stopping ? 'stopping' : 'slow_endpoint', result.released, excess);
      if (result.recorded < records.length)
        this.log.warn({ lost: records.length - result.recorded }, 'attempts finished after their lease was taken over; not recorded');
      for (const [webhookId, allowance] of result.allowances) {
        const ep = this.endpoints.get(webhookId);
        if (ep) ep.allowance = allowance;
      }
      for (const row of result.claim.rows) this.enqueue(row, result.claim.token);
      // A webhook the claim gave nothing to queue has nothing due: its free slots wait for no work.
      for (const ep of this.endpoints.values()) if (ep.queue.length === 0) ep.freed.length = 0;
      this.pumpAll();
      // Stop when the claim found less than it could take and nothing new needs recording.
      if (result.claim.rows.length < limit && this.buffer.length === 0) break;
      if (limit <= 0 && this.buffer.length === 0) break;
    }
  }

  /**
   * Counts deliveries given back; an endpoint's slowness is logged once a minute at most, so that an
   * operator sees which endpoint held up its deliveries (and a merchant's receiver can be looked at).
   */
  private gaveBack(reason: GiveBackReason, count: number, slow: readonly Queued[]): void {
    this.stats.givenBack += count;
    this.metrics?.givenBack(reason, count);
    const now = performance.now();
    for (const [webhookId, n] of countByWebhook(slow)) {
      const logged = this.slowLogged.get(webhookId, () => ({ at: -Infinity }));
      if (now - logged.at < 60_000) continue;
      logged.at = now;
      const onWire = this.endpoints.get(webhookId)?.onWire ?? 0;
      this.log.info({ webhookId, givenBack: n, onWire }, 'webhook endpoint answers slowly or not at all; deliveries queued for it given back');
    }
  }

  /** A claimed delivery joins its webhook's queue (`fresh`: from this claim, whose allowance and cap it carries). */
  private enqueue(row: ClaimedRow, token: string, fresh = true): void {
    let ep = this.endpoints.get(row.webhookId);
    if (!ep) {
      ep = { queue: [], onWire: 0, held: 0, allowance: row.allowance, cap: row.cap, depth: row.cap, slow: false, lastEnded: performance.now(), freed: [] };
      this.endpoints.set(row.webhookId, ep);
    }
    if (fresh) {
      ep.allowance = row.allowance;
      ep.cap = row.cap;
    }
    ep.queue.push({ row, token });
    ep.held++;
    this.queued++;
    this.held.set(row.id, { token, webhookId: row.webhookId });
  }

  /** Sends from the webhook's queue while it has places on the wire (and the process has). */
  private pump(webhookId: string, ep: Endpoint): void {
    while (ep.queue.length > 0 && ep.onWire < ep.allowance && !this.loop.isStopped) {
      if (this.onWire >= this.maxInFlight) {
        this.waitingForProcess = true;
        return;
      }
      const next = ep.queue.shift() as Queued;
      this.queued--;
      const freedAt = ep.freed.shift();
      if (freedAt !== undefined) this.turnarounds.add(performance.now() - freedAt);
      this.startAttempt(next.row, next.token, webhookId, ep);
    }
  }

  private pumpAll(): void {
    this.waitingForProcess = false;
    for (const [webhookId, ep] of this.endpoints) this.pump(webhookId, ep);
  }

  /** A delivery is no longer held (recorded, given back, or never sent). */
  private forget(deliveryId: string, webhookId: string): void {
    if (!this.held.delete(deliveryId)) return;
    const ep = this.endpoints.get(webhookId);
    if (!ep) return;
    ep.held--;
    if (ep.held <= 0 && ep.queue.length === 0 && ep.onWire === 0) this.endpoints.delete(webhookId);
  }

  /** Sets each queue's depth from the attempts recorded (see followEndpoints): what it holds beyond, to give back. */
  private takeExcess(records: readonly AttemptRecord[]): Queued[] {
    const excess = followEndpoints(this.endpoints, records, performance.now());
    for (const q of excess) {
      this.queued--;
      this.forget(q.row.id, q.row.webhookId);
    }
    return excess;
  }

  /** Empties every queue: the deliveries to give back, [id, claim token]. They are held no more (nor renewed). */
  private takeQueue(): [string, string][] {
    const out: [string, string][] = [];
    for (const [webhookId, ep] of this.endpoints) {
      const queue = ep.queue;
      ep.queue = [];
      this.queued -= queue.length;
      for (const q of queue) {
        out.push([q.row.id, q.token]);
        this.forget(q.row.id, webhookId);
      }
    }
    return out;
  }

  private startAttempt(row: ClaimedRow, claimToken: string, webhookId: string, ep: Endpoint): void {
    let apiKey: string;
    let hmacKey: string;
    let previousKey: string | null;
    try {
      apiKey = this.keys.open(row.apiKeySealed);
      hmacKey = this.keys.open(row.hmacKeySealed);
      previousKey = row.previousHmacKeySealed === null ? null : this.keys.open(row.previousHmacKeySealed);
    } catch (err) {
      // An operator's mistake (PAYLINKS_SECRET_KEY changed), not the receiver's: send nothing and
      // spend no attempt. The claim lapses with its lease and the delivery waits until the key is
      // right again, instead of one bad row stopping the whole process.
      this.log.error({ deliveryId: row.id, webhookId: row.webhookId, err: (err as Error).message }, 'webhook secret cannot be opened; delivery not sent');
      this.forget(row.id, webhookId);
      return;
    }
    this.onWire++;
    // Silence is counted from the last attempt that ended or from when the wire became busy again.
    if (ep.onWire === 0) ep.lastEnded = performance.now();
    ep.onWire++;
    const attemptNumber = row.attemptCount + 1;
    const correlationId = newUuid();
    const sentAt = this.clock.now();
    const body = Buffer.from(row.body, 'utf8');
    const standard = standardWebhookHeaders(this.keys.secretOf(hmacKey), row.id, sentAt, body, previousKey === null ? null : this.keys.secretOf(previousKey));
    void sendAttempt(this.dispatcher, { url: row.url, body, apiKey, correlationId, standard }, { timeoutMs: this.timeoutMs, publicOnly: this.publicOnly }).then(
      (result) => {
        this.onWire--;
        ep.onWire--;
        ep.lastEnded = performance.now();
        if (ep.freed.length < ep.cap) ep.freed.push(performance.now());
        const outcome = afterAttempt(attemptNumber, sentAt, result.success);
        this.metrics?.attempt(result.success ? 'delivered' : (result.errorKind ?? 'status'), result.durationMs / 1000);
        if (outcome.state === 'Failed') this.metrics?.failedForGood(1);
        this.stats.attempts++;
        if (result.success) this.stats.delivered++;
        else {
          this.stats.failedAttempts++;
          this.log.info(
            {
              deliveryId: row.id,
              webhookId: row.webhookId,
              attempt: attemptNumber,
              correlationId,
              status: result.responseStatus,
              errorKind: result.errorKind,
              error: result.errorDetail,
              next: outcome.state,
            },
            'webhook attempt failed',
          );
        }
        this.buffer.push({
          deliveryId: row.id,
          webhookId: row.webhookId,
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
        // The slot is refilled now from the queue; the next cycle records this attempt and claims more.
        this.pump(webhookId, ep);
        if (this.waitingForProcess) this.pumpAll();
        this.scheduleCycle();
      },
    );
  }

  /** How long a freed slot waited for its next attempt (the recent ones): how many, p50 and p99 in ms. */
  slotTurnaround(): { n: number; p50: number | null; p99: number | null } {
    return this.turnarounds.summary();
  }

  /** Extends the leases of the deliveries held; a renewal that fails is tried again at the next tick, within the lease. */
  private async renewLeases(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    try {
      await renewLeases(
        this.db.pool,
        new Date(this.clock.now().getTime() + this.leaseMs),
        [...this.held].map(([id, h]) => [id, h.token] as const),
      );
    } catch (err) {
      this.log.warn({ err: (err as Error).message, held: this.held.size }, 'renewing delivery leases failed; trying again');
    } finally {
      this.renewing = false;
    }
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
