import type { Database, ListenLog } from './database.js';

// A background loop woken by the database: it runs its owner's `pass` whenever there may be work.
// Wake-ups come from a NOTIFY on the owner's channel (sent inside the transaction that made the work,
// so it arrives when that commits: PostgreSQL in any process, PGlite in this one), from a slow
// fallback poll (work that comes due with time, or whose notice was lost), and from wake() (a test
// that moved the clock, an owner that freed capacity). A wake-up during a pass runs one more pass
// after it, never two at once. The delivery worker and the modification processor are such loops.

interface NotifiedLoopOptions {
  db: Database;
  /** The NOTIFY channel that announces work. */
  channel: string;
  /** One pass over the work there is. A wake-up while it runs makes the loop run it again. */
  pass: () => Promise<void>;
  /** Listen for NOTIFY; off, only the poll and wake() run passes (tests that hold the loop still). */
  listen: boolean;
  /** Fallback poll (real time). */
  pollIntervalMs: number;
  /** A pass that threw: the loop goes on at the next wake-up. */
  onPassError: (err: Error) => void;
  /** Work of the owner's outside a pass that settled() must also wait for (attempts on the wire). */
  busy?: () => boolean;
  /** After stop(): whether a wake-up may still run a pass (results that must still be recorded). */
  passAfterStop?: () => boolean;
  log?: ListenLog;
}

export class NotifiedLoop {
  private running = false;
  private again = false;
  private stopped = false;
  private poll: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly o: NotifiedLoopOptions) {}

  /** Starts listening and polling, and runs a first pass; resolves once listening has started. */
  async start(): Promise<void> {
    if (this.poll) return;
    this.poll = setInterval(() => this.wake(), this.o.pollIntervalMs);
    this.poll.unref();
    if (this.o.listen) this.unlisten = await this.o.db.listen(this.o.channel, () => this.wake(), this.o.log);
    this.wake();
  }

  /** Run a pass now, or once more after the one running. */
  wake(): void {
    if (!this.mayPass()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run();
  }

  /** Resolves when a pass found nothing more to do and the owner is not busy. */
  async settled(): Promise<void> {
    this.wake();
    await this.idle();
  }

  /** Resolves when no pass runs or is asked for and the owner is not busy. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** The owner's own work ended (an attempt came back): wakes those waiting for idle, if it is. */
  checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * The drain: no more wake-ups from the database or the poll; then waits, at most `graceMs`, until the
   * pass running and the owner's own work are done. Resolves true when they were, false on the time limit.
   */
  async stop(graceMs: number): Promise<boolean> {
    if (!this.stopped) {
      this.stopped = true;
      clearInterval(this.poll);
      const unlisten = this.unlisten;
      this.unlisten = undefined;
      await unlisten?.();
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const clean = await Promise.race([this.idle().then(() => true), timeout]);
    clearTimeout(timer);
    return clean;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  private mayPass(): boolean {
    return !this.stopped || (this.o.passAfterStop?.() ?? false);
  }

  private isIdle(): boolean {
    return !this.running && !this.again && !(this.o.busy?.() ?? false);
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.o.pass();
      } while (this.again && this.mayPass());
    } catch (err) {
      this.o.onPassError(err as Error);
    } finally {
      this.running = false;
      this.again = false;
      this.checkIdle();
    }
  }
}

/**
 * What the owner of a NotifiedLoop offers those who run it (the service's main, tests): wake, settled,
 * and a drain. An owner whose drain does more (gives work back, logs) overrides stop().
 */
export abstract class LoopOwner {
  protected abstract readonly loop: NotifiedLoop;

  /** Run a pass now (new work, freed capacity, a test that moved the clock). */
  wake(): void {
    this.loop.wake();
  }

  /** Resolves when a pass found nothing more to do and the owner is not busy (tests: move the clock, wake, wait for this). */
  settled(): Promise<void> {
    return this.loop.settled();
  }

  /** Drain: no new pass; the one running finishes (at most graceMs). */
  async stop(graceMs = 20_000): Promise<void> {
    if (this.loop.isStopped) return;
    await this.loop.stop(graceMs);
  }
}
