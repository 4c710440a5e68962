import { isConnectionError } from './database.js';

// Coalescing of concurrent lookups (docs/performance.md). Requests that arrive together each want one row by
// key: the API key's hash, a link's reference. Instead of one round trip each, the lookups asked for
// in one turn of the event loop go to the database as one query with an array parameter.
//
// A lookup never joins a query that was already sent: it waits for the next one. So the row it gets
// was read after the lookup was asked for, as with a query of its own; a key revoked before a
// request arrived is never served from an earlier read (§Authentication), and a link changed before the GET
// arrived is read as changed.

/**
 * One instance per database, made on first use: the batchers of a service live as long as its
 * database, and a test's second database gets its own.
 */
export function perDatabase<D extends object, T>(make: (db: D) => T): (db: D) => T {
  const made = new WeakMap<D, T>();
  return (db) => {
    let t = made.get(db);
    if (t === undefined) made.set(db, (t = make(db)));
    return t;
  };
}

interface BatchLoaderOptions {
  /** Most keys in one query; more wait for the next (default 256). */
  maxBatch?: number;
  /** Errors after which the keys are not asked for again one by one (default: the connection failed). */
  isFinal?: (err: unknown) => boolean;
}

interface Waiter<V> {
  resolve(value: V | undefined): void;
  reject(err: unknown): void;
}

export class BatchLoader<K extends string, V> {
  private pending = new Map<K, Waiter<V>[]>();
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly isFinal: (err: unknown) => boolean;

  /**
   * @param load reads the rows for these distinct keys; a key absent from the returned map is not
   * found. `asked[i]` is how many lookups asked for `keys[i]` (a counting statement needs it).
   */
  constructor(
    private readonly load: (keys: K[], asked: number[]) => Promise<ReadonlyMap<K, V>>,
    opts: BatchLoaderOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 256;
    this.isFinal = opts.isFinal ?? isConnectionError;
  }

  /** The value for `key`, read by a query sent after this call. */
  get(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiters = this.pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate runs after the poll phase: every request read in this turn has asked by then.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.pending.size > 0) {
      const batch = new Map<K, Waiter<V>[]>();
      for (const [key, waiters] of this.pending) {
        if (batch.size >= this.maxBatch) break;
        batch.set(key, waiters);
      }
      for (const key of batch.keys()) this.pending.delete(key);
      void this.run(batch);
    }
  }

  private async run(batch: Map<K, Waiter<V>[]>): Promise<void> {
    try {
      const found = await this.load(
        [...batch.keys()],
        [...batch.values()].map((w) => w.length),
      );
      for (const [key, waiters] of batch) {
        const value = found.get(key);
        for (const w of waiters) w.resolve(value);
      }
    } catch (err) {
      // A key the database refuses (a NUL in it, say) must fail its own lookups only, never those
      // that happened to share its query: each key is asked for again alone. The failed statement
      // changed nothing, so a counting load counts nothing twice.
      if (batch.size > 1 && !this.isFinal(err)) {
        await Promise.all([...batch].map(([key, waiters]) => this.run(new Map([[key, waiters]]))));
        return;
      }
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }
}

interface BatchWriterOptions {
  /** Most items in one statement; more go into the next (default 100). */
  maxBatch?: number;
  /** Errors after which the items are not written again one by one (default: the connection failed). */
  isFinal?: (err: unknown) => boolean;
}

/**
 * Writes submitted in one turn of the event loop go to the database as one statement, so one
 * transaction and one WAL flush serve them all (docs/performance.md). Each write's promise settles only after the
 * statement that holds it committed. When a batch fails for a reason of its own rows (a constraint),
 * its items are written again one by one, so that each caller gets the outcome of its own row and one
 * bad row never fails another's write.
 */
export class BatchWriter<T> {
  private pending: { item: T; resolve(): void; reject(err: unknown): void }[] = [];
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly isFinal: (err: unknown) => boolean;

  /**
   * @param writeMany writes the items in one statement; it may refuse some of them without failing
   * the others, by returning an error (or undefined for success) per item.
   */
  constructor(
    private readonly writeMany: (items: readonly T[]) => Promise<readonly unknown[] | void>,
    private readonly writeOne: (item: T) => Promise<void>,
    opts: BatchWriterOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 100;
    this.isFinal = opts.isFinal ?? isConnectionError;
  }

  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.pending.length > 0) void this.run(this.pending.splice(0, this.maxBatch));
  }

  private async run(batch: { item: T; resolve(): void; reject(err: unknown): void }[]): Promise<void> {
    if (batch.length === 1) {
      const only = batch[0] as (typeof batch)[number];
      await this.writeOne(only.item).then(only.resolve, only.reject);
      return;
    }
    try {
      const refused = await this.writeMany(batch.map((b) => b.item));
      batch.forEach((b, i) => {
        const err = refused?.[i];
        if (err === undefined) b.resolve();
        else b.reject(err);
      });
    } catch (err) {
      if (this.isFinal(err)) {
        for (const b of batch) b.reject(err);
        return;
      }
      await Promise.all(batch.map((b) => this.writeOne(b.item).then(b.resolve, b.reject)));
    }
  }
}
