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
 * changed since the last analysis (50 + 10 %), and transaction ids older than the freeze age. With
 * `every`, every table, both ways: the counters start again at zero when the embedded database is
 * opened, so what was changed before is known to no threshold.
 */
export async function tablesDue(db: Queryable, every = false): Promise<TableDue[]> {
  const { rows } = await db.query<TableDue>(
    `WITH t AS (
       SELECT format('%I.%I', s.schemaname, s.relname) AS name, greatest(c.reltuples, 0) AS size,
              s.n_dead_tup, s.n_ins_since_vacuum, s.n_mod_since_analyze, age(c.relfrozenxid) AS xid_age
         FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
        WHERE c.relkind = 'r')
     SELECT name, vacuum, "analyze" FROM (
       SELECT name,
              $1::boolean
           OR n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8 + current_setting('autovacuum_vacuum_scale_factor')::float8 * size
           OR n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8 + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * size
           OR xid_age > current_setting('autovacuum_freeze_max_age')::float8 AS vacuum,
              $1::boolean
           OR n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8 + current_setting('autovacuum_analyze_scale_factor')::float8 * size AS "analyze"
         FROM t) d
     WHERE vacuum OR "analyze"
     ORDER BY name`,
    [every],
  );
  return rows;
}

/** What format('%I.%I') writes: each part bare, or quoted with any quote inside doubled. */
const QUALIFIED_NAME = /^(?:[a-z_][a-z0-9_$]*|"(?:[^"]|"")+")\.(?:[a-z_][a-z0-9_$]*|"(?:[^"]|"")+")$/;

/**
 * VACUUM (with ANALYZE when asked) of one table named by tablesDue, outside any transaction. A table
 * only analysed has its GIN indexes' pending entries merged too, which a vacuum does and an ANALYZE
 * does only when autovacuum runs it. (A name cannot be a parameter; it comes quoted from tablesDue.)
 */
export async function vacuumTable(db: Queryable, table: TableDue): Promise<void> {
  if (!QUALIFIED_NAME.test(table.name)) throw new Error(`not a table name: ${table.name}`);
  if (table.vacuum) await db.query(`VACUUM ${table.analyze ? '(ANALYZE) ' : ''}${table.name}`);
  else if (table.analyze) {
    await db.query(`ANALYZE ${table.name}`);
    await db.query(
      `SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
        WHERE i.indrelid = $1::regclass AND a.amname = 'gin'`,
      [table.name],
    );
  }
}

/** Whether the database's oldest transaction id is past the freeze age, which only a vacuum of the whole database (its catalogues too) moves. */
export async function databaseFreezeDue(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ due: boolean }>(
    `SELECT age(datfrozenxid) > current_setting('autovacuum_freeze_max_age')::float8 AS due FROM pg_database WHERE datname = current_database()`,
  );
  return rows[0]?.due === true;
}

/** VACUUM of the whole database, the system catalogues included; outside any transaction. */
export async function vacuumDatabase(db: Queryable): Promise<void> {
  await db.query('VACUUM');
}

/** Whether the server's autovacuum is off (PostgreSQL; the embedded database has its own upkeep). */
export async function autovacuumOff(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ off: boolean }>(`SELECT current_setting('autovacuum') = 'off' AS off`);
  return rows[0]?.off === true;
}
