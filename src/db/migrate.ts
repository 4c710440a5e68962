import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';
import { withTransaction } from './database.js';
import { advisoryLock, appliedVersions, ensureMigrationsTable, recordMigration } from './sql.js';

// Numbered, forward-only SQL files in migrations/. Each one runs in its own transaction under a
// transaction-scoped advisory lock, so two processes starting at once apply each file exactly once:
// the second waits for the lock, then sees the version recorded and skips it.

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const seen = new Set<number>();
  return files.map((file) => {
    const version = Number(file.slice(0, 4));
    if (seen.has(version)) throw new Error(`two migrations share version ${version}: ${file}`);
    seen.add(version);
    return { version, name: file.replace(/\.sql$/, ''), sql: readFileSync(`${dir}/${file}`, 'utf8') };
  });
}

/** Applies every migration not yet applied; returns the names applied now. */
export async function migrate(db: Database, migrations = loadMigrations()): Promise<string[]> {
  const applied: string[] = [];
  const current = await withTransaction(db, async (tx) => {
    await advisoryLock(tx);
    await ensureMigrationsTable(tx);
    const versions = await appliedVersions(tx);
    return migrations.every((m) => versions.has(m.version));
  });
  // Every start of a current database ends here: one transaction instead of one per file, which also
  // kept the embedded server's peak RSS lower (docs/performance.md).
  if (current) return applied;
  for (const m of migrations) {
    const done = await withTransaction(db, async (tx) => {
      await advisoryLock(tx);
      const versions = await appliedVersions(tx);
      if (versions.has(m.version)) return false;
      await tx.query(m.sql);
      await recordMigration(tx, m.version, m.name);
      return true;
    });
    if (done) applied.push(m.name);
  }
  return applied;
}
