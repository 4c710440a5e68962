import { AsyncLocalStorage } from 'node:async_hooks';
import { dirname } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { acquireDataDirLock, type DataDirLock } from './dataDirLock.js';
import { backupPglite, BackupError, POSTGRES_BACKUP_HINT, type BackupResult } from './backup.js';

export { BackupError, POSTGRES_BACKUP_HINT, type BackupResult };
import { timestamptzParser } from './timestamps.js';

// One `pg` code path for both databases: PostgreSQL from DATABASE_URL, else PGlite through its
// node-postgres adapter. PGlite has exactly one connection, so its pool has size 1 and every
// transaction is serialised; PostgreSQL gets a real pool.

/**
 * A named statement: each connection parses and plans it once and reuses the plan afterwards
 * (docs/performance.md: re-planning a hot query cost more PostgreSQL CPU than running it). Only for constant
 * text; values always go in as parameters.
 */
interface PreparedQuery {
  name: string;
  text: string;
  values: readonly unknown[];
}

/** Anything that runs a parameterised query: the pool or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(statement: PreparedQuery): Promise<pg.QueryResult<R>>;
}

/**
 * The rows of a statement prepared once per connection under `name`, so that PostgreSQL parses and
 * plans it once: for the queries on the hot paths and the batched lookups (docs/performance.md).
 */
export async function preparedRows<R extends pg.QueryResultRow>(db: Queryable, name: string, text: string, values: readonly unknown[]): Promise<R[]> {
  const { rows } = await db.query<R>({ name, text, values });
  return rows;
}

/**
 * A row limit written into a statement's text instead of passed as a parameter, for a prepared
 * statement whose limit is the code's own small number. With `LIMIT $n` PostgreSQL's generic plan
 * of the statement expects a tenth of the table's rows, costs more than a plan for the values, and
 * so is never kept: the statement is planned again at every execution (a round trip of the overview's
 * one statement took 1.2 ms, 0.4-0.5 ms with its limits in the text; docs/performance.md). Only a
 * whole number, never text; the statement's name must name the number too.
 */
export function limitSql(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row limit: ${String(n)}`);
  return String(n);
}

/**
 * `ANY (…)` of an array parameter, for a prepared statement that looks up a batch of keys:
 * `WHERE id = ${anyOfArray('$1::text[]')}`. Written as `= ANY($1::text[])`, PostgreSQL's plan for
 * the values estimates the rows from the array's length, so it always costs less than the generic
 * plan, and the statement is planned anew at every execution (the API key lookup: 0 generic plans
 * of 202 on one connection). Read through a subquery, the length is unknown to both plans alike and
 * the generic plan is kept. Only a numbered parameter with an array type, never text.
 */
export function anyOfArray(param: string): string {
  if (!/^\$[1-9][0-9]*::[a-z]+\[\]$/.test(param)) throw new Error(`not an array parameter: ${param}`);
  return `ANY (ARRAY(SELECT unnest(${param})))`;
}

export type DatabaseKind = 'postgres' | 'pglite';

export interface Database {
  readonly kind: DatabaseKind;
  readonly pool: pg.Pool;
  /** PostgreSQL only: a URL for extra connections (LISTEN). Null for PGlite. */
  readonly url: string | null;
  /** PGlite only: the lock this process holds on the data folder while the database is open. */
  readonly lock?: DataDirLock;
  /**
   * Calls `onNotify` for every NOTIFY on `channel` that any connection commits: on PostgreSQL through
   * a LISTEN connection of its own (in any process), reconnecting after it is lost; on PGlite in this
   * process. `onNotify` is also called each time listening (re)starts, so that what was committed
   * while nobody listened is picked up. Resolves once listening has started or, on PostgreSQL, its
   * first try failed (it goes on trying); the function it resolves to stops listening.
   */
  listen(channel: string, onNotify: () => void, log?: ListenLog): Promise<() => Promise<void>>;
  /**
   * The embedded database: writes a backup of it to `path` (absolute; an existing file only with
   * force), holding every query for the moment it takes to read the folder (backup.ts). PostgreSQL
   * refuses with a BackupError that names pg_dump.
   */
  backupTo(path: string, opts?: { force?: boolean }): Promise<BackupResult>;
  close(): Promise<void>;
}

/** Where a lost or refused LISTEN connection is reported. */
export interface ListenLog {
  warn(obj: object, msg: string): void;
}

const RECONNECT_MS = 1_000;

/** LISTEN on a connection of its own, reconnecting until stopped (PostgreSQL). */
async function listenPostgres(url: string, channel: string, onNotify: () => void, log: ListenLog | undefined): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const again = (): void => {
    if (stopped) return;
    retry = setTimeout(() => void connect(), RECONNECT_MS);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', () => onNotify());
    c.on('error', (err) => {
      log?.warn({ err: err.message, channel }, 'LISTEN connection lost; reconnecting');
      if (client === c) client = undefined;
      c.end().catch(() => undefined);
      again();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (stopped) {
        await c.end().catch(() => undefined);
        return;
      }
      client = c;
      onNotify();
    } catch (err) {
      log?.warn({ err: (err as Error).message, channel }, 'LISTEN connection failed; relying on polling until it is back');
      await c.end().catch(() => undefined);
      again();
    }
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const c = client;
    client = undefined;
    if (c) await c.end().catch(() => undefined);
  };
}

// Amounts are bigint columns; JavaScript numbers hold them exactly up to 2^53, far above the limit of §Creating a link.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));
// Timestamps in the usual ISO text by their fixed positions, the rest by pg's own parser (timestamps.ts).
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, timestamptzParser(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)));

interface OpenOptions {
  databaseUrl: string | null;
  dataDir: string;
  poolSize?: number;
  /**
   * The embedded database: what this process is (shown to a second process that finds the folder
   * locked) and whether it answers admin commands on the folder's socket.
   */
  lock?: { command: string; adminSocket?: boolean };
  /**
   * The embedded database: the folder of the migrated template a new data folder starts from
   * (template.ts), or null to run PGlite's initdb instead. Defaults to the one `npm run build` made.
   */
  template?: string | null;
}

/**
 * PGlite's start parameters with a smaller shared buffer pool. initdb writes 160 MB into the folder's
 * postgresql.conf, and the embedded server touched all of it at start; 16 MB keeps its peak RSS about
 * 110 MB lower (docs/performance.md). The rest of the folder is still cached by the operating system.
 */
export const PGLITE_SHARED_BUFFERS = '16MB';

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl !== null) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
    });
    // A client losing its connection (database restart) must not crash the process: an idle one is
    // reported on the pool, one checked out between two queries on itself (§Hardening found this: serve
    // died on a restart). Its next query then fails as a connection error: 503 (§Status codes).
    pool.on('error', () => undefined);
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
    });
    const url = opts.databaseUrl;
    return {
      kind: 'postgres',
      pool,
      url,
      listen: (channel, onNotify, log) => listenPostgres(url, channel, onNotify, log),
      backupTo: () => Promise.reject(new BackupError(POSTGRES_BACKUP_HINT)),
      close: () => pool.end(),
    };
  }
  // PGlite's WebAssembly stays on V8's baseline compiler: the optimising tier compiled its hot
  // functions a second time for about 80-100 MB more peak memory on Node 22 (500 MB on Node 24), and
  // bought no measurable speed on the API's own work (docs/performance.md, "The embedded database's
  // memory"). The bin passes --liftoff-only at start (bin/paylinks.js), the only way it takes effect
  // on Node 24 and later; this sets it for a process started otherwise (the tests, `node dist/...`),
  // where Node 22 still reads it when PGlite's module is compiled.
  if (!process.execArgv.includes('--liftoff-only')) setFlagsFromString('--liftoff-only');
  const { PGlite: PGliteClass } = await import('@electric-sql/pglite');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const { PGLITE_EXTENSIONS } = await import('./pgliteExtensions.js');
  const dataDir = opts.dataDir;
  // One process per folder (see dataDirLock.ts): taken before PGlite reads a byte of it, so a second
  // process never opens, let alone migrates, a folder another one has open.
  const lock = dataDir.startsWith('memory://') ? undefined : acquireDataDirLock(dataDir, opts.lock ?? { command: 'paylinks' });
  let pglite: PGlite;
  try {
    if (lock && opts.template !== null) {
      const { seedFromTemplate, TEMPLATE_DIR } = await import('./template.js');
      seedFromTemplate(dataDir, opts.template ?? TEMPLATE_DIR);
    }
    pglite = await PGliteClass.create(dataDir, {
      extensions: PGLITE_EXTENSIONS,
      startParams: [...PGliteClass.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    });
  } catch (err) {
    lock?.release();
    throw err;
  }
  return wrapPglite(pglite, createPgConfig, lock);
}

/** Wraps an open PGlite instance (tests load one from a migrated template). */
export function wrapPglite(pglite: PGlite, createPgConfig: (p: PGlite) => pg.PoolConfig, lock?: DataDirLock): Database {
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 });
  pool.on('error', () => undefined);
  // PGlite's adapter hands its one connection to every client of the pool. pg-pool's own query()
  // ends its client after any SQL error (a constraint, a division by zero), and the next client then
  // receives the ended one's 'end': every query after the first error failed until a restart. So
  // pool queries run on a checked-out client that goes back as healthy unless the connection itself
  // failed.
  const poolQuery = async (textOrConfig: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> => {
    const client = await pool.connect();
    let broken = false;
    try {
      return await client.query(textOrConfig, values);
    } catch (err) {
      broken = isConnectionError(err);
      throw err;
    } finally {
      client.release(broken ? true : undefined);
    }
  };
  (pool as unknown as { query: typeof poolQuery }).query = poolQuery;
  let closed = false;
  return {
    kind: 'pglite',
    pool,
    url: null,
    ...(lock ? { lock } : {}),
    listen: async (channel, onNotify) => {
      // PGlite delivers a NOTIFY to its listeners when the transaction that sent it commits.
      const stop = await pglite.listen(channel, () => onNotify());
      onNotify();
      return async () => {
        if (!closed) await stop();
      };
    },
    backupTo: (path, opts) => backupPglite(pool, lock ? dirname(lock.path) : undefined, path, opts),
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await pool.end();
        await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
}

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

interface TransactionOptions {
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  /** Retries on serialization failures and deadlocks; the callback must be safe to run again. */
  retries?: number;
  /**
   * Constant statements (no parameters) sent in the same round trip as BEGIN, such as taking an
   * advisory lock by its literal id: a hot transaction saves one round trip per run.
   */
  withBegin?: string;
}

/** Runs fn inside one transaction on one client: commit on return, rollback on throw. */
export async function withTransaction<T>(db: Database, fn: (tx: pg.PoolClient) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  const retries = opts.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    const client = await db.pool.connect();
    let broken = false;
    try {
      const begin = opts.isolation ? `BEGIN ISOLATION LEVEL ${opts.isolation.toUpperCase()}` : 'BEGIN';
      await client.query(opts.withBegin ? `${begin}; ${opts.withBegin}` : begin);
      const result = await OPEN_TRANSACTION.run(true, () => fn(client));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true; // the connection itself failed: do not return it to the pool
      }
      const code = (err as { code?: unknown }).code;
      if (attempt < retries && typeof code === 'string' && RETRYABLE.has(code)) continue;
      throw err;
    } finally {
      client.release(broken ? true : undefined);
    }
  }
}

/** Marks the code that runs inside withTransaction's callback (and everything it awaits). */
const OPEN_TRANSACTION = new AsyncLocalStorage<true>();

/**
 * Whether the calling code runs inside a transaction of withTransaction: a call that may wait long
 * (an acquirer's answer) must not, or it holds a pooled connection and its row locks meanwhile
 * (src/payments/acquirer.ts, outsideTransactions).
 */
export function insideTransaction(): boolean {
  return OPEN_TRANSACTION.getStore() === true;
}

/** True for errors that mean the database cannot be reached (§Status codes: 503 with Retry-After). */
export function isConnectionError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection exceptions
  if (code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08')) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(msg);
}

/** Whether the database answers (the readiness probe). */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
