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
