import type { Queryable } from './database.js';

// An arbitrary constant that names the migration lock.
const MIGRATION_LOCK_ID = 7_341_209_551;

export async function advisoryLock(db: Queryable): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
}

export async function ensureMigrationsTable(db: Queryable): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
}

export async function appliedVersions(db: Queryable): Promise<Set<number>> {
  const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
  return new Set(rows.map((r) => r.version));
}

export async function recordMigration(db: Queryable, version: number, name: string): Promise<void> {
  await db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, name]);
}

/** A table the embedded database's upkeep should vacuum, analyse, or both (upkeep.ts). */
export interface TableDue {
  /** Schema-qualified and quoted, ready for a statement's text. */
  name: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * The tables past the thresholds PostgreSQL's autovacuum uses, read from the server's own settings:
 * dead rows (50 + 20 % of the table), rows inserted since the last vacuum (1,000 + 20 %), rows
 * changed since the last analysis (50 + 10 %), and transaction ids older than the freeze age.
 */
export async function tablesDue(db: Queryable): Promise<TableDue[]> {
  const { rows } = await db.query<TableDue>(
    `WITH t AS (
       SELECT format('%I.%I', s.schemaname, s.relname) AS name, greatest(c.reltuples, 0) AS size,
              s.n_dead_tup, s.n_ins_since_vacuum, s.n_mod_since_analyze, age(c.relfrozenxid) AS xid_age
         FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
        WHERE c.relkind = 'r')
     SELECT name, vacuum, "analyze" FROM (
       SELECT name,
              n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8 + current_setting('autovacuum_vacuum_scale_factor')::float8 * size
           OR n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8 + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * size
           OR xid_age > current_setting('autovacuum_freeze_max_age')::float8 AS vacuum,
              n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8 + current_setting('autovacuum_analyze_scale_factor')::float8 * size AS "analyze"
         FROM t) d
     WHERE vacuum OR "analyze"
     ORDER BY name`,
  );
  return rows;
}

/** VACUUM (with ANALYZE when asked) of one table named by tablesDue; outside any transaction. */
export async function vacuumTable(db: Queryable, table: TableDue): Promise<void> {
  if (!/^[a-z0-9_."]+$/i.test(table.name)) throw new Error(`not a table name: ${table.name}`);
  if (table.vacuum) await db.query(`VACUUM ${table.analyze ? '(ANALYZE) ' : ''}${table.name}`);
  else if (table.analyze) await db.query(`ANALYZE ${table.name}`);
}

/** Whether the server's autovacuum is off (PostgreSQL; the embedded database has its own upkeep). */
export async function autovacuumOff(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ off: boolean }>(`SELECT current_setting('autovacuum') = 'off' AS off`);
  return rows[0]?.off === true;
}
