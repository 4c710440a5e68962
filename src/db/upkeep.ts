import type { Clock } from '../clock.js';
import type { Database } from './database.js';
import { autovacuumOff, databaseFreezeDue, tablesDue, vacuumDatabase, vacuumTable, type TableDue } from './sql.js';

// The embedded database's autovacuum. PostgreSQL's autovacuum removes the dead rows that updates and
// deletes leave, merges the trigram index's pending list, keeps the planner's statistics fresh and
// freezes old transaction ids. PGlite runs no background processes, so without this an embedded
// database would only grow, its plans would be made from the statistics of its first day, and after
// about two billion transactions it would refuse to write. Once a minute (autovacuum's own interval)
// this asks which tables are past autovacuum's thresholds and vacuums or analyses each; the first
// pass of a process does every table, because PGlite's counters of changed rows start again at zero
// each time the folder is opened. PGlite runs in this process's main thread: while a table is
// vacuumed, requests, health checks and timers wait (about a second for a million-row table on this
// project's development machine), which the thresholds make rare. PostgreSQL's own autovacuum does
// this there; `serve` starts this only on the embedded database.

/** What the upkeep records of itself (the process's metrics, src/metrics.ts, keep it). */
export interface UpkeepMetrics {
  /** Its series exist from its start (counters at zero, the last pass at the start): an alert sees its first pass's failures, and a pass that never ends. */
  upkeepStarted(at: Date): void;
  /** A pass: how long it held the database, the tables done and failed, and when it ended if it went through (not when it threw). */
  upkeepPass(seconds: number, done: number, failed: number, completedAt: Date | null): void;
}

const INTERVAL_MS = 60_000;
/** A vacuum that held the database longer than this is logged at info, as PostgreSQL logs a slow autovacuum. */
const SLOW_MS = 1_000;

interface UpkeepLog {
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * What a pass did: the tables done, those that failed (and why), how long it took, and whether it was
 * cut short because the process is stopping (the tables after the one it was at are not done).
 */
export interface UpkeepResult {
  done: TableDue[];
  failed: { table: string; error: string }[];
  ms: number;
  stopped: boolean;
}

export class EmbeddedUpkeep {
  private timer: NodeJS.Timeout | undefined;
  /** Whether the timer's pass is under way (a timer tick while one is skips its turn). */
  private ticking = false;
  /** Passes run one at a time, the timer's and those asked for (`paylinks vacuum`): the last one queued. */
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /**
   * The tables this process has not yet vacuumed since it opened the database (every table, until
   * its first pass has done each); undefined before that pass. A table that failed stays owed; one
   * dropped (or renamed) meanwhile is owed no more.
   */
  private owed: Set<string> | undefined;
  private readonly intervalMs: number;
  /** Where the passes are recorded for Prometheus, with the clock their times are read from. */
  private readonly watch: { metrics: UpkeepMetrics; clock: Clock } | undefined;

  constructor(
    private readonly db: Database,
    private readonly log: UpkeepLog,
    opts: { intervalMs?: number; watch?: { metrics: UpkeepMetrics; clock: Clock } } = {},
  ) {
    this.intervalMs = opts.intervalMs ?? INTERVAL_MS;
    this.watch = opts.watch;
  }

  /** Starts the timer; the first pass runs one interval after start, not during it. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.watch?.metrics.upkeepStarted(this.watch.clock.now());
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = true;
      this.exclusive(() => this.run(false))
        .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, 'embedded database upkeep failed; trying again in a minute'))
        .finally(() => {
          this.ticking = false;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass under way: it ends after the table it is at. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.chain;
  }

  /**
   * One pass: every table past its thresholds vacuumed or analysed, one at a time (on a process's
   * first pass every table, since the counters start at zero when the database is opened), then the
   * whole database when its oldest transaction id is past the freeze age. Returns the tables done.
   * A table that fails is logged and passed over; the others are still done.
   */
  async pass(): Promise<TableDue[]> {
    return (await this.exclusive(() => this.run(false))).done;
  }

  /** Every table vacuumed and analysed now (`paylinks vacuum`), after any pass under way; recorded and logged as a pass. */
  everyTable(): Promise<UpkeepResult> {
    return this.exclusive(() => this.run(true));
  }

  private exclusive<T>(f: () => Promise<T>): Promise<T> {
    const next = this.chain.then(f, f);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async run(every: boolean): Promise<UpkeepResult> {
    const started = performance.now();
    const done: TableDue[] = [];
    const failed: UpkeepResult['failed'] = [];
    // Asked for after the stop (its database may be closing): no pass at all.
    if (this.stopped) return { done, failed, ms: 0, stopped: true };
    let completed = false;
    let cut = false;
    try {
      for (const table of await this.tablesToDo(every)) {
        if (this.stopped) {
          cut = true;
          break;
        }
        const t0 = performance.now();
        try {
          await vacuumTable(this.db.pool, table);
        } catch (err) {
          failed.push({ table: table.name, error: (err as Error).message });
          this.log.warn(
            { table: table.name, err: (err as Error).message },
            'embedded database upkeep: a table could not be vacuumed; trying again at the next pass',
          );
          continue;
        }
        this.owed?.delete(table.name);
        const ms = Math.round(performance.now() - t0);
        const what = table.vacuum ? (table.analyze ? 'vacuumed and analysed' : 'vacuumed') : 'analysed';
        if (ms >= SLOW_MS) this.log.info({ table: table.name, ms }, `embedded database upkeep: ${what}`);
        else this.log.debug({ table: table.name, ms }, `embedded database upkeep: ${what}`);
        done.push(table);
      }
      // Stopped during the last table: the whole database's turn is skipped, so the pass is cut short too.
      if (this.stopped) cut = true;
      else if (await databaseFreezeDue(this.db.pool)) {
        const t0 = performance.now();
        try {
          await vacuumDatabase(this.db.pool);
          this.log.info({ ms: Math.round(performance.now() - t0) }, 'embedded database upkeep: the whole database vacuumed (transaction ids frozen)');
        } catch (err) {
          failed.push({ table: 'the whole database', error: (err as Error).message });
          this.log.warn({ err: (err as Error).message }, 'embedded database upkeep: the whole database could not be vacuumed; trying again at the next pass');
        }
      }
      // A pass cut short by the stop is not one that went through.
      completed = !cut;
    } finally {
      // A pass that threw (the database unreachable, say) counts, but is not one that went through.
      this.watch?.metrics.upkeepPass((performance.now() - started) / 1000, done.length, failed.length, completed ? this.watch.clock.now() : null);
    }
    return { done, failed, ms: Math.round(performance.now() - started), stopped: cut };
  }

  /**
   * The tables a pass goes through: on the first, or when every table is asked for, every table (each
   * then owed until it is done); later, those past their thresholds and, in full, those still owed.
   */
  private async tablesToDo(every: boolean): Promise<TableDue[]> {
    if (!this.owed || every) {
      const all = await tablesDue(this.db.pool, true);
      this.owed = new Set(all.map((t) => t.name));
      return all;
    }
    const due = await tablesDue(this.db.pool);
    if (this.owed.size === 0) return due;
    const was = this.owed;
    const owed = (await tablesDue(this.db.pool, true)).filter((t) => was.has(t.name));
    this.owed = new Set(owed.map((t) => t.name));
    return [...due.filter((t) => !this.owed?.has(t.name)), ...owed];
  }
}

/**
 * Every table vacuumed and analysed now, one at a time, and the whole database when its transaction
 * ids are due to be frozen: what a process's first pass does (`paylinks vacuum` on a database no
 * server holds). A table that fails is passed over and named.
 */
export function vacuumEveryTable(db: Database): Promise<UpkeepResult> {
  const silent = { info: () => undefined, debug: () => undefined, warn: () => undefined };
  return new EmbeddedUpkeep(db, silent).everyTable();
}

/**
 * On PostgreSQL, a warning when the server's autovacuum is off: nothing then removes dead rows, merges
 * the link search's pending index entries or refreshes the planner's statistics, and pages slow down
 * week by week.
 */
export async function warnIfAutovacuumOff(db: Database, log: Pick<UpkeepLog, 'warn'>): Promise<void> {
  if (db.kind !== 'postgres') return;
  // A check that fails (the server went away meanwhile) is not worth failing the start for.
  if (await autovacuumOff(db.pool).catch(() => false))
    log.warn(
      {},
      'autovacuum is off on this PostgreSQL server: dead rows and stale statistics will slow the service down; turn it on (docs/production.md, PostgreSQL)',
    );
}
