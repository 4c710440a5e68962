import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from './db/database.js';
import type { UpkeepMetrics } from './db/upkeep.js';

// Prometheus metrics (prom-client): what an operator watches. One registry per process, passed to
// whatever records into it (the HTTP app, the delivery worker); the database gauges are read when
// Prometheus scrapes, never on a request's path.
//
// - HTTP: a latency histogram by method, route pattern and status (its _count is the request count).
// - Webhook deliveries: attempts by outcome, attempt latency, deliveries that failed for good, and at
//   scrape time the backlog of due deliveries and the age of the oldest.
// - A delivery worker's holdings (a process that runs one): deliveries queued and on the wire, the
//   webhooks held and how many of them answer slowly, and deliveries given back.
// - Authorisations waiting for capture, per currency, at scrape time: how many, the amount still
//   authorised and not captured, and the age of the oldest (docs/metrics.md).
// - E-mails at scrape time: how many wait to be sent, and how many were given up on.
// - The database pool's connections (total, idle, waited for).
// - The embedded database's upkeep (serve on PGlite only): its passes, the tables vacuumed or passed
//   over, and when the last pass ended.
// - prom-client's process and Node.js metrics: CPU, memory, event loop lag, GC.

type AttemptOutcome = 'delivered' | 'status' | 'timeout' | 'connection' | 'tls';

/** What a delivery worker holds at a moment (read at scrape time). */
export interface WorkerHoldings {
  /** Deliveries claimed and waiting for a place on the wire. */
  queued: number;
  /** Attempts on the wire. */
  sending: number;
  /** Webhooks it holds deliveries of. */
  webhooks: number;
  /** Of those, the ones whose endpoint its last attempts took it for slow (a second or more) or silent. */
  slowWebhooks: number;
}

/** Why a worker gave queued deliveries back, due at once for any worker. */
export type GiveBackReason = 'slow_endpoint' | 'stopping';

/** What the delivery worker records. */
export interface DeliveryMetrics {
  attempt(outcome: AttemptOutcome, seconds: number): void;
  failedForGood(count: number): void;
  /** A worker started: its holdings are read from `read` when scraped, until it stops. */
  workerStarted(read: () => WorkerHoldings): void;
  /** The worker stopped: it holds nothing any more (what it left is left to its leases). */
  workerStopped(): void;
  givenBack(reason: GiveBackReason, count: number): void;
}

/** Due-delivery backlog, read at scrape time (the webhooks module answers it). */
type BacklogReader = () => Promise<{ due: number; oldestDueAt: Date | null }>;

/** Authorisations waiting for capture per currency, read at scrape time (the payments module answers it). */
type WaitingReader = () => Promise<readonly { currency: string; count: number; amount: number; oldest: Date }[]>;

/** E-mails waiting to be sent and given up on, read at scrape time (the mail module answers it). */
type MailReader = () => Promise<{ Pending: number; Failed: number }>;

interface MetricsOptions {
  db?: Database;
  /** The backlog of due deliveries; none in a process that does not send them. */
  backlog?: BacklogReader;
  /** Waiting authorisations; none in a process that has no database. */
  authorisations?: WaitingReader;
  /** The e-mail outbox; none in a process that has no database. */
  mail?: MailReader;
  now?: () => Date;
}

export class Metrics implements DeliveryMetrics, UpkeepMetrics {
  readonly registry = new Registry();
  private readonly http: Histogram<'method' | 'route' | 'status'>;
  private readonly attempts: Counter<'outcome'>;
  private readonly attemptSeconds: Histogram<'outcome'>;
  private readonly failed: Counter;
  /** Made when a delivery worker starts: a `serve --no-worker` shows none. */
  private givenBackCounter: Counter<'reason'> | undefined;
  /** The running worker's holdings; none once it stopped. */
  private holdings: (() => WorkerHoldings) | undefined;
  /** Made when the embedded database's upkeep starts: a process on PostgreSQL shows none. */
  private upkeep: { seconds: Histogram; tables: Counter<'outcome'>; last: Gauge } | undefined;

  constructor(opts: MetricsOptions = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'paylinks_' });
    this.http = new Histogram({
      name: 'paylinks_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status, with their duration',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.attempts = new Counter({
      name: 'paylinks_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered, or the kind of failure (status, timeout, connection, tls)',
      labelNames: ['outcome'],
      registers,
    });
    this.attemptSeconds = new Histogram({
      name: 'paylinks_webhook_attempt_duration_seconds',
      help: 'Webhook delivery attempts: time from sending to the whole answer (or the failure)',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers,
    });
    this.failed = new Counter({
      name: 'paylinks_webhook_deliveries_failed_total',
      help: 'Webhook deliveries that ended Failed after their last attempt',
      registers,
    });
    const backlog = opts.backlog;
    const now = opts.now ?? (() => new Date());
    if (backlog) {
      // One query serves both gauges of a scrape.
      let pending: Promise<{ due: number; oldestDueAt: Date | null }> | undefined;
      const read = (): Promise<{ due: number; oldestDueAt: Date | null }> => {
        pending ??= backlog().finally(() => {
          pending = undefined;
        });
        return pending;
      };
      new Gauge({
        name: 'paylinks_webhook_deliveries_due',
        help: 'Pending webhook deliveries whose next attempt is due now and not being sent',
        registers,
        async collect() {
          this.set((await read()).due);
        },
      });
      new Gauge({
        name: 'paylinks_webhook_oldest_due_seconds',
        help: 'How long the oldest due webhook delivery has waited past its due time (0 when none is due)',
        registers,
        async collect() {
          const { oldestDueAt } = await read();
          this.set(oldestDueAt === null ? 0 : Math.max(0, (now().getTime() - oldestDueAt.getTime()) / 1000));
        },
      });
    }
    if (opts.authorisations) this.authorisationGauges(opts.authorisations, now);
    const mail = opts.mail;
    if (mail) {
      new Gauge({
        name: 'paylinks_mail_messages',
        help: 'E-mails (receipts, payment notices) waiting to be sent or tried again (Pending), and given up on after their last attempt (Failed)',
        labelNames: ['state'],
        registers,
        async collect() {
          const totals = await mail();
          this.set({ state: 'Pending' }, totals.Pending);
          this.set({ state: 'Failed' }, totals.Failed);
        },
      });
    }
    const pool = opts.db?.pool;
    if (pool) {
      new Gauge({
        name: 'paylinks_db_pool_connections',
        help: 'Database pool connections: total open, idle, and requests waiting for one',
        labelNames: ['state'],
        registers,
        collect() {
          this.set({ state: 'total' }, pool.totalCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
        },
      });
    }
  }

  /**
   * Three gauges from one query a scrape (by the partial index of waiting authorisations: its range is
   * those not yet expired). Each is reset before it is set, so a currency with nothing waiting any more
   * drops out instead of keeping its last value.
   */
  private authorisationGauges(reader: WaitingReader, now: () => Date): void {
    const registers = [this.registry];
    let pending: ReturnType<WaitingReader> | undefined;
    const read = (): ReturnType<WaitingReader> => {
      pending ??= reader().finally(() => {
        pending = undefined;
      });
      return pending;
    };
    const gauge = (name: string, help: string, value: (w: Awaited<ReturnType<WaitingReader>>[number]) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['currency'],
        registers,
        async collect() {
          const rows = await read();
          this.reset();
          for (const w of rows) this.set({ currency: w.currency }, value(w));
        },
      });
    };
    gauge('paylinks_authorisations_waiting', 'Authorisations with manual capture or pre-authorisations not captured in full and not expired', (w) => w.count);
    gauge('paylinks_authorisations_waiting_amount', 'What those authorisations still hold, authorised and not captured, in minor units', (w) => w.amount);
    gauge('paylinks_authorisations_oldest_waiting_seconds', 'Age of the oldest of those authorisations', (w) =>
      Math.max(0, (now().getTime() - w.oldest.getTime()) / 1000),
    );
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.http.observe({ method, route, status: String(status) }, seconds);
  }

  attempt(outcome: AttemptOutcome, seconds: number): void {
    this.attempts.inc({ outcome });
    this.attemptSeconds.observe({ outcome }, seconds);
  }

  failedForGood(count: number): void {
    if (count > 0) this.failed.inc(count);
  }

  workerStarted(read: () => WorkerHoldings): void {
    this.holdings = read;
    if (this.givenBackCounter) return;
    const registers = [this.registry];
    const now = (): WorkerHoldings => this.holdings?.() ?? { queued: 0, sending: 0, webhooks: 0, slowWebhooks: 0 };
    this.givenBackCounter = new Counter({
      name: 'paylinks_webhook_deliveries_given_back_total',
      help: 'Queued webhook deliveries this worker gave back, due at once for any worker: its endpoint answered slowly or not at all (slow_endpoint), or the worker stopped (stopping)',
      labelNames: ['reason'],
      registers,
    });
    this.givenBackCounter.inc({ reason: 'slow_endpoint' }, 0);
    this.givenBackCounter.inc({ reason: 'stopping' }, 0);
    new Gauge({
      name: 'paylinks_worker_deliveries_held',
      help: 'Webhook deliveries this worker holds: claimed and waiting for a place on the wire (queued), and on the wire (sending)',
      labelNames: ['stage'],
      registers,
      collect() {
        const h = now();
        this.set({ stage: 'queued' }, h.queued);
        this.set({ stage: 'sending' }, h.sending);
      },
    });
    new Gauge({
      name: 'paylinks_worker_webhooks',
      help: 'Webhooks this worker holds deliveries of (held), and of those the ones whose endpoint answers in a second or more, or not at all (slow)',
      labelNames: ['state'],
      registers,
      collect() {
        const h = now();
        this.set({ state: 'held' }, h.webhooks);
        this.set({ state: 'slow' }, h.slowWebhooks);
      },
    });
  }

  workerStopped(): void {
    this.holdings = undefined;
  }

  givenBack(reason: GiveBackReason, count: number): void {
    if (count > 0) this.givenBackCounter?.inc({ reason }, count);
  }

  upkeepStarted(at: Date): void {
    const series = this.upkeepSeries();
    series.tables.inc({ outcome: 'done' }, 0);
    series.tables.inc({ outcome: 'failed' }, 0);
    series.last.set(at.getTime() / 1000);
  }

  upkeepPass(seconds: number, done: number, failed: number, completedAt: Date | null): void {
    const series = this.upkeepSeries();
    series.seconds.observe(seconds);
    series.tables.inc({ outcome: 'done' }, done);
    series.tables.inc({ outcome: 'failed' }, failed);
    if (completedAt !== null) series.last.set(completedAt.getTime() / 1000);
  }

  /** Registered when the upkeep starts, so that a process on PostgreSQL (which has none) shows none. */
  private upkeepSeries(): { seconds: Histogram; tables: Counter<'outcome'>; last: Gauge } {
    const registers = [this.registry];
    this.upkeep ??= {
      seconds: new Histogram({
        name: 'paylinks_embedded_upkeep_pass_duration_seconds',
        help: 'Passes of the embedded database upkeep (vacuum and analysis of the tables that need it), with how long each held the database',
        buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60],
        registers,
      }),
      tables: new Counter({
        name: 'paylinks_embedded_upkeep_tables_total',
        help: 'Tables the embedded database upkeep vacuumed or analysed (done), or could not and will try again (failed)',
        labelNames: ['outcome'],
        registers,
      }),
      last: new Gauge({
        name: 'paylinks_embedded_upkeep_last_pass_timestamp_seconds',
        help: 'When the last pass of the embedded database upkeep that went through ended, or when the upkeep started (Unix time)',
        registers,
      }),
    };
    return this.upkeep;
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
