import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { LoopOwner, NotifiedLoop } from '../db/notifiedLoop.js';
import { runDueCutoffs } from './service.js';

// The settlement job: a NotifiedLoop (docs/style.md, A long-running loop is written once) whose pass settles
// every daily cut-off that has come. Nothing announces a cut-off, so the poll wakes it (and wake(), for a
// test that moved the clock); every `serve` and `worker` process runs one, and the schedule row lets
// one of them at a time settle (src/settlements/service.ts).

type Logger = { info: (o: object, m: string) => void; error: (o: object, m: string) => void };

const silent: Logger = { info: () => undefined, error: () => undefined };

/** No NOTIFY is ever sent on it: the loop listens to nothing (listen off) and runs on its poll. */
const CHANNEL = 'paylinks_settlements';

export class SettlementWorker extends LoopOwner {
  protected readonly loop: NotifiedLoop;
  readonly stats = { cutoffs: 0, batches: 0 };

  constructor(opts: { db: Database; clock: Clock; cutoffMinutes: number; logger?: Logger; pollIntervalMs?: number }) {
    super();
    const log = opts.logger ?? silent;
    this.loop = new NotifiedLoop({
      db: opts.db,
      channel: CHANNEL,
      listen: false,
      // A cut-off is settled within this long of passing; a pass that finds none due is one short query.
      pollIntervalMs: opts.pollIntervalMs ?? 30_000,
      pass: async () => {
        const { cutoffs, batches } = await runDueCutoffs({ db: opts.db, clock: opts.clock }, opts.cutoffMinutes);
        this.stats.cutoffs += cutoffs.length;
        this.stats.batches += batches.length;
        for (const c of cutoffs) log.info({ cutoffAt: c.toISOString(), batches: batches.length }, 'settled a daily cut-off');
      },
      // Nothing was written (the transaction rolled back); the next poll tries again.
      onPassError: (err) => log.error({ err: err.message }, 'settling a cut-off failed; retrying on the next poll'),
    });
  }

  async start(): Promise<void> {
    await this.loop.start();
  }
}
