import type { Database } from './database.js';
import { withTransaction } from './database.js';
import { loadMigrations } from './migrations.js';
import { advisoryLock, appliedVersions, ensureMigrationsTable, recordMigration } from './sql.js';

export { loadMigrations, type Migration } from './migrations.js';

// Numbered, forward-only SQL files in migrations/. Each one runs in its own transaction under a
// transaction-scoped advisory lock, so two processes starting at once apply each file exactly once:
// the second waits for the lock, then sees the version recorded and skips it.

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
