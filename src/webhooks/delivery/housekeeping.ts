import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { Sealer } from '../../sealing.js';
import { foldDeliveryCounts } from '../deliveries/service.js';
import { disableFailingWebhooks } from '../service.js';
import { removeFinishedBefore } from './sql.js';

// What the delivery worker does beside delivering, each on its own real-time timer: removing
// finished deliveries past their retention, folding the delivery list's kept counts, and disabling
// webhooks that have failed for days. None of it touches the worker's slots or claims, so it lives
// apart from the cycle; the worker starts and stops it with itself.

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn'>;

const RETENTION_INTERVAL_MS = 10 * 60 * 1000;
const HEALTH_INTERVAL_MS = 60 * 1000;
/** How often the kept delivery counts are folded (real time). */
const FOLD_INTERVAL_MS = 10 * 1000;
const RETENTION_BATCH = 1_000;

interface HousekeepingOptions {
  db: Database;
  clock: Clock;
  sealer: Sealer;
  log: Logger;
  /** Finished deliveries are removed this many days after they last changed; 0 keeps them. */
  retentionDays: number;
  /** A webhook whose deliveries failed this many days with no success is disabled; 0 never. */
  disableAfterDays: number;
  /** Whether the worker is stopping: a sweep under way ends at its next batch. */
  isStopped: () => boolean;
}

export class DeliveryHousekeeping {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly opts: HousekeepingOptions) {}

  start(): void {
    const { retentionDays, disableAfterDays, log } = this.opts;
    const guarded = (what: string, run: () => Promise<unknown>) => () =>
      void run().catch((err: unknown) => log.warn({ err: (err as Error).message }, `${what} failed; trying again later`));
    const keep = (timer: NodeJS.Timeout) => {
      timer.unref();
      this.timers.push(timer);
    };
    // Retention: once shortly after start, then every ten minutes, a few batches at a time.
    if (retentionDays > 0) {
      const sweep = guarded('removing old deliveries', () => this.removeOld());
      keep(setInterval(sweep, RETENTION_INTERVAL_MS));
      keep(setTimeout(sweep, 5_000));
    }
    // The delivery list's kept counts: their change rows folded every ten seconds.
    keep(
      setInterval(
        guarded('folding delivery counts', () => foldDeliveryCounts({ db: this.opts.db })),
        FOLD_INTERVAL_MS,
      ),
    );
    // Endpoint health: every minute, webhooks failing for too long are disabled.
    if (disableAfterDays > 0)
      keep(
        setInterval(
          guarded('checking failing webhooks', () => this.disableFailing()),
          HEALTH_INTERVAL_MS,
        ),
      );
  }

  stop(): void {
    // clearInterval and clearTimeout clear either kind of timer.
    for (const t of this.timers.splice(0)) clearInterval(t);
  }

  /**
   * Disables the webhooks whose deliveries have failed for PAYLINKS_WEBHOOK_DISABLE_AFTER_DAYS with no
   * success in between, by the injected clock (see disableFailingWebhooks). Returns their ids.
   */
  async disableFailing(): Promise<string[]> {
    const { db, clock, sealer, disableAfterDays, log } = this.opts;
    if (disableAfterDays <= 0 || this.opts.isStopped()) return [];
    const disabled = await disableFailingWebhooks({ db, clock, sealer }, disableAfterDays);
    for (const webhookId of disabled) log.warn({ webhookId, days: disableAfterDays }, 'webhook disabled: its deliveries failed for days with no success');
    return disabled;
  }

  /**
   * Removes finished deliveries (and their attempts) last changed more than the retention period ago
   * by the injected clock, in batches of RETENTION_BATCH rows, each its own statement, so the claim
   * and the API never wait long behind it. Returns how many deliveries went.
   */
  async removeOld(): Promise<number> {
    const { retentionDays, clock, log } = this.opts;
    if (retentionDays <= 0) return 0;
    const before = new Date(clock.now().getTime() - retentionDays * 86_400_000);
    const removed = await this.removeOldBefore(before);
    if (removed > 0) log.info({ removed, before: before.toISOString() }, 'old deliveries removed');
    return removed;
  }

  /** Removes finished deliveries last changed before `before`, in batches, at most `most` of them (the bench's measure). */
  async removeOldBefore(before: Date, most = Infinity): Promise<number> {
    let removed = 0;
    while (removed < most) {
      if (this.opts.isStopped()) break;
      const n = await removeFinishedBefore(this.opts.db.pool, before, Math.min(RETENTION_BATCH, most - removed));
      removed += n;
      if (n < RETENTION_BATCH) break;
    }
    return removed;
  }
}
