import type { Database } from '../../src/db/database.js';

// "A rejected request writes nothing" (issue 7), measured by the database itself: a row-level trigger
// on every table of this test database counts each inserted, updated or deleted row in one counter
// row. A rolled-back transaction rolls its counts back too, so the counter moves exactly when a write
// was committed. Installed only in a test file's own throwaway database.

export async function installWriteCounter(db: Database): Promise<void> {
  await db.pool.query(`
    CREATE TABLE fuzz_writes (n bigint NOT NULL);
    INSERT INTO fuzz_writes VALUES (0);
    CREATE FUNCTION fuzz_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE fuzz_writes SET n = n + 1;
      RETURN NULL;
    END $$;
    DO $$
    DECLARE t text;
    BEGIN
      FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'fuzz_writes' LOOP
        EXECUTE format('CREATE TRIGGER fuzz_count AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION fuzz_count()', t);
      END LOOP;
    END $$;
  `);
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
