import type { Queryable } from './database.js';

// Reads of several modules in one statement. A page that needs a few small, independent reads (the
// portal's overview: the sales per day, the newest payments, the waiting authorisations, the failing
// webhooks, a waiting invitation) sent each as a statement of its own, and each statement costs the
// process more than its rows do (writing it to the database's socket, reading the answer; about a
// quarter of a portal page's time, docs/performance.md). Each module still writes its own SQL in its
// own sql.ts and hands it out as a `Read` through its service; this file only puts the reads side by
// side as the columns of one SELECT, each a sub-select answering one value (a list as JSON).

/** One read that can share a statement: a query answering one value, its parameters numbered from $1. */
export interface Read<T> {
  /** Names the read in the statement's prepared name (the reads together make the name). */
  name: string;
  /** A query of one row and one column; a list is answered as one JSON value. */
  sql: string;
  values: readonly unknown[];
  /** The value as the caller has it (rows out of JSON: their dates are text there). */
  decode(value: unknown): T;
}

/** A read of nothing, for a place in the list that this caller may not read (it answers null). */
export const NOTHING: Read<null> = { name: 'none', sql: 'SELECT NULL', values: [], decode: () => null };

type Results<R extends readonly Read<unknown>[]> = { -readonly [K in keyof R]: R[K] extends Read<infer T> ? T : never };

/** The reads in one statement; their answers in the same order. */
export async function readTogether<const R extends readonly Read<unknown>[]>(db: Queryable, reads: R): Promise<Results<R>> {
  const values: unknown[] = [];
  const columns = reads.map((read, i) => {
    const offset = values.length;
    values.push(...read.values);
    // The read's own $n, moved past the parameters of the reads before it.
    const text = offset === 0 ? read.sql : read.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    return `(${text}) AS r${i}`;
  });
  const name = `together.${reads.map((r) => r.name).join('+')}`;
  // PostgreSQL keeps a prepared statement's name to 63 bytes: two longer names that differ only after
  // that would be one statement to it, and the second refused.
  if (Buffer.byteLength(name) > 63) throw new Error(`statement name over 63 bytes: ${name}`);
  const { rows } = await db.query<Record<string, unknown>>({
    name,
    text: `SELECT ${columns.join(', ')}`,
    values,
  });
  const row = rows[0] ?? {};
  return reads.map((read, i) => read.decode(row[`r${i}`])) as Results<R>;
}

/** One read on its own (its module's plain function, for callers with nothing to read beside it). */
export async function readOne<T>(db: Queryable, read: Read<T>): Promise<T> {
  const [value] = await readTogether(db, [read] as const);
  return value;
}
