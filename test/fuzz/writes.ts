import type { Database } from '../../src/db/database.js';

// "A rejected request writes nothing" (§Hardening), measured by the database itself: a row-level trigger
// on every table of this test database counts each inserted, updated or deleted row in one counter
// row. A rolled-back transaction rolls its counts back too, so the counter moves exactly when a write
// was committed. Installed only in a test file's own throwaway database.
//
// Bookkeeping that a background timer writes on its own schedule is not a request's write and is left
// out: when each API key was last used (flushed about once a minute) and when a `listen` connection was
// last seen. A trigger on those tables fires only for updates that touch any other column.
const BOOKKEEPING: Record<string, readonly string[]> = {
  api_keys: ['last_used_at'],
  webhooks: ['listener_seen_at'],
};

export async function installWriteCounter(db: Database): Promise<void> {
  await db.pool.query(`
    CREATE TABLE fuzz_writes (n bigint NOT NULL);
    INSERT INTO fuzz_writes VALUES (0);
    CREATE FUNCTION fuzz_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE fuzz_writes SET n = n + 1;
      RETURN NULL;
    END $$;
  `);
  const { rows } = await db.pool.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'fuzz_writes'");
  for (const { tablename } of rows) {
    const skip = BOOKKEEPING[tablename];
    let update = 'UPDATE';
    if (skip !== undefined) {
      const cols = await db.pool.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
        [tablename],
      );
      const counted = cols.rows.map((c) => c.column_name).filter((c) => !skip.includes(c));
      update = `UPDATE OF ${counted.map((c) => `"${c}"`).join(', ')}`;
    }
    await db.pool.query(`CREATE TRIGGER fuzz_count AFTER INSERT OR ${update} OR DELETE ON "${tablename}" FOR EACH ROW EXECUTE FUNCTION fuzz_count()`);
  }
}

export async function writeCount(db: Database): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>('SELECT n FROM fuzz_writes');
  return Number(rows[0]?.n ?? 0);
}

/** Which tables changed: a row count per table, to name them when a rejected request did write. */
export async function tableCounts(db: Database): Promise<Record<string, number>> {
  const { rows } = await db.pool.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
  const out: Record<string, number> = {};
  for (const r of rows) {
    const c = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${r.tablename}"`);
    out[r.tablename] = c.rows[0]?.n ?? 0;
  }
  return out;
}
