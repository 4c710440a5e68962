import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { LoopOwner, NotifiedLoop } from '../db/notifiedLoop.js';
import { sweepHolds } from './holds.js';

// The places held by payments whose process died before the acquirer answered (./shopper.ts): such a
// hold counts no more once it expires, so the caps are right without this loop; it removes the rows.
// A NotifiedLoop (docs/style.md, A long-running loop is written once) on its poll alone; every `serve`
// and `worker` process runs one, and each pass deletes what has expired, whoever gets there first.

type Logger = { info: (o: object, m: string) => void; error: (o: object, m: string) => void };

const silent: Logger = { info: () => undefined, error: () => undefined };

export class HoldSweeper extends LoopOwner {
  protected readonly loop: NotifiedLoop;
  readonly stats = { removed: 0 };

  constructor(opts: { db: Database; clock: Clock; logger?: Logger; pollIntervalMs?: number }) {
    super();
    const log = opts.logger ?? silent;
    this.loop = new NotifiedLoop({
      db: opts.db,
      channel: 'paylinks_payment_holds',
      listen: false,
      pollIntervalMs: opts.pollIntervalMs ?? 60_000,
      pass: async () => {
        const removed = await sweepHolds({ db: opts.db, clock: opts.clock });
        this.stats.removed += removed;
        if (removed > 0) log.info({ removed }, 'removed places held by payments that never finished');
      },
      onPassError: (err) => log.error({ err: err.message }, 'removing expired payment holds failed; retrying on the next poll'),
    });
  }

  async start(): Promise<void> {
    await this.loop.start();
  }
}
