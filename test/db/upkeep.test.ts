import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { EmbeddedUpkeep } from '../../src/db/upkeep.js';
import { Metrics } from '../../src/metrics.js';
import { vacuumTable } from '../../src/db/sql.js';
import { mkdtemp, rm } from 'node:fs/promises';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCommands } from '../../src/admin/commands.js';
import { runThroughHolder } from '../../src/admin/client.js';
import { startAdminServer } from '../../src/admin/server.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

// The embedded database's autovacuum (src/db/upkeep.ts): a pass vacuums the tables past autovacuum's
// thresholds, analyses those changed enough since their last analysis, and leaves the others. Its
// statements are plain SQL, so the same pass is tried on PostgreSQL too, where `serve` leaves the
// work to the server's own autovacuum.

interface TableStats {
  n_live_tup: number;
  n_dead_tup: number;
  vacuumed: boolean;
  analyzed: boolean;
}

const quiet = { info: () => undefined, debug: () => undefined, warn: () => undefined };

describe('embedded database upkeep', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase({ poolSize: 2 });
  });
  afterAll(async () => {
    await tdb.drop();
  });

  /** Runs `sql` on one connection and has its statistics sent at once (a backend otherwise sends them at most once a second). */
  async function change(sql: string): Promise<void> {
    const client = await tdb.db.pool.connect();
    try {
      await client.query(sql);
      await client.query('SELECT pg_stat_force_next_flush()');
      await client.query('SELECT 1');
    } finally {
      client.release();
    }
  }

  async function stats(table: string): Promise<TableStats> {
    const { rows } = await tdb.db.pool.query<TableStats>(
      `SELECT n_live_tup::int, n_dead_tup::int, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed
         FROM pg_stat_user_tables WHERE relname = $1`,
      [table],
    );
    if (rows[0] === undefined) throw new Error(`no statistics for ${table}`);
    return rows[0];
  }

  /** Waits until the server's statistics show `ok` (they are sent when a backend goes idle). */
  async function until(table: string, ok: (s: TableStats) => boolean): Promise<TableStats> {
    for (let i = 0; i < 100; i++) {
      const s = await stats(table);
      if (ok(s)) return s;
      await new Promise((r) => setTimeout(r, 50));
    }
    return stats(table);
  }

  it('vacuums a table with many dead rows, analyses one with many new rows, and leaves the rest', async () => {
    await change(`CREATE TABLE upkeep_churned (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off);
                  INSERT INTO upkeep_churned SELECT i, 'row ' || i FROM generate_series(1, 5000) i;
                  UPDATE upkeep_churned SET v = v || '!' WHERE id % 2 = 0`);
    // With a trigram index, as the links' description has: new rows' entries wait in its pending list.
    await change(`CREATE TABLE upkeep_quiet (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off);
                  CREATE INDEX upkeep_quiet_trgm ON upkeep_quiet USING gin (v gin_trgm_ops) WITH (fastupdate = on);
                  INSERT INTO upkeep_quiet SELECT i, 'row ' || i FROM generate_series(1, 5000) i`);
    await until('upkeep_churned', (s) => s.n_dead_tup === 2500);
    const upkeep = new EmbeddedUpkeep(tdb.db, quiet);
    const first = await upkeep.pass();
    expect(first).toContainEqual({ name: 'public.upkeep_churned', vacuum: true, analyze: true });
    expect(first).toContainEqual({ name: 'public.upkeep_quiet', vacuum: true, analyze: true });
    const churned = await until('upkeep_churned', (s) => s.vacuumed);
    expect(churned).toMatchObject({ n_live_tup: 5000, n_dead_tup: 0, vacuumed: true, analyzed: true });

    // Now 5,000 rows each: 600 more rows (12 %) are under the vacuum's thresholds (1,000 + 20 %
    // inserted, 50 + 20 % dead) but over the analysis's (50 + 10 %); 10 rows changed are under both.
    await change(`INSERT INTO upkeep_quiet SELECT i, 'row ' || i FROM generate_series(5001, 5600) i`);
    await change(`UPDATE upkeep_churned SET v = v || '?' WHERE id <= 10`);
    await until('upkeep_quiet', (s) => s.n_live_tup === 5600);
    const second = await upkeep.pass();
    expect(second.filter((t) => t.name.startsWith('public.upkeep_'))).toEqual([{ name: 'public.upkeep_quiet', vacuum: false, analyze: true }]);
    // The analysis merged the new rows' pending index entries too: none are left to merge.
    const { rows } = await tdb.db.pool.query<{ pages: number }>(`SELECT gin_clean_pending_list('upkeep_quiet_trgm'::regclass)::int AS pages`);
    expect(rows).toEqual([{ pages: 0 }]);
    // And a pass after that has nothing of them left to do.
    await until('upkeep_quiet', (s) => s.analyzed);
    expect((await upkeep.pass()).filter((t) => t.name.startsWith('public.upkeep_'))).toEqual([]);
    // A process's first pass does every table: the counters start at zero when the database opens.
    const next = await new EmbeddedUpkeep(tdb.db, quiet).pass();
    expect(next).toContainEqual({ name: 'public.upkeep_churned', vacuum: true, analyze: true });
    expect(next).toContainEqual({ name: 'public.upkeep_quiet', vacuum: true, analyze: true });
  });

  it('does a table its first pass failed at in full at the next pass, then only by its thresholds; one dropped meanwhile is owed no more', async () => {
    // Ten rows: under every threshold (an analysis wants 50 changed rows), so only the debt names it later.
    await change(`CREATE TABLE upkeep_owed (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off);
                  INSERT INTO upkeep_owed SELECT i, 'row ' || i FROM generate_series(1, 10) i;
                  CREATE TABLE upkeep_gone (id int PRIMARY KEY) WITH (autovacuum_enabled = off)`);
    const metrics = new Metrics();
    const clock = new ManualClock(new Date('2026-11-27T09:00:00Z'));
    const upkeep = new EmbeddedUpkeep(tdb.db, quiet, { watch: { metrics, clock } });
    const query = tdb.db.pool.query.bind(tdb.db.pool) as (text: unknown, values?: unknown) => Promise<unknown>;
    const spy = vi.spyOn(tdb.db.pool, 'query').mockImplementation(((text: unknown, values?: unknown) => {
      if (typeof text === 'string' && text.startsWith('VACUUM') && /upkeep_(owed|gone)/.test(text)) return Promise.reject(new Error('the table was busy'));
      return query(text, values);
    }) as typeof tdb.db.pool.query);
    let first;
    try {
      first = await upkeep.pass();
    } finally {
      spy.mockRestore();
    }
    expect(first.map((t) => t.name)).not.toContain('public.upkeep_owed');
    expect(first.length).toBeGreaterThan(0);
    // The operator sees the pass, and the tables passed over, in the metrics.
    const scraped = (await metrics.text()).body;
    expect(scraped).toContain(`paylinks_embedded_upkeep_tables_total{outcome="done"} ${first.length}`);
    expect(scraped).toContain('paylinks_embedded_upkeep_tables_total{outcome="failed"} 2');
    expect(scraped).toContain('paylinks_embedded_upkeep_pass_duration_seconds_count 1');
    expect(scraped).toContain(`paylinks_embedded_upkeep_last_pass_timestamp_seconds ${clock.now().getTime() / 1000}`);

    await change('DROP TABLE upkeep_gone');
    const ours = (tables: { name: string }[]) => tables.filter((t) => t.name.startsWith('public.upkeep_owed') || t.name.startsWith('public.upkeep_gone'));
    expect(ours(await upkeep.pass())).toEqual([{ name: 'public.upkeep_owed', vacuum: true, analyze: true }]);
    expect(ours(await upkeep.pass())).toEqual([]);
    // The dropped table was not tried again: no new failure.
    expect((await metrics.text()).body).toContain('paylinks_embedded_upkeep_tables_total{outcome="failed"} 2');
  });

  it('shows its series from its start, and counts a pass that throws without moving its last pass', async () => {
    const metrics = new Metrics();
    const clock = new ManualClock(new Date('2026-11-27T10:00:00Z'));
    const upkeep = new EmbeddedUpkeep(tdb.db, quiet, { intervalMs: 60_000, watch: { metrics, clock } });
    upkeep.start();
    try {
      const started = (await metrics.text()).body;
      expect(started).toContain('paylinks_embedded_upkeep_tables_total{outcome="failed"} 0');
      expect(started).toContain(`paylinks_embedded_upkeep_last_pass_timestamp_seconds ${clock.now().getTime() / 1000}`);
      clock.advance(120_000);
      const spy = vi.spyOn(tdb.db.pool, 'query').mockImplementation((() => Promise.reject(new Error('the database went away'))) as typeof tdb.db.pool.query);
      try {
        await expect(upkeep.pass()).rejects.toThrow('the database went away');
      } finally {
        spy.mockRestore();
      }
      const after = (await metrics.text()).body;
      expect(after).toContain('paylinks_embedded_upkeep_pass_duration_seconds_count 1');
      expect(after).toContain(`paylinks_embedded_upkeep_last_pass_timestamp_seconds ${new Date('2026-11-27T10:00:00Z').getTime() / 1000}`);
    } finally {
      await upkeep.stop();
    }
  });

  it('runs its passes on a timer until stopped', async () => {
    await change(`CREATE TABLE upkeep_timed (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off);
                  INSERT INTO upkeep_timed SELECT i, 'row ' || i FROM generate_series(1, 2000) i;
                  DELETE FROM upkeep_timed WHERE id > 1000`);
    await until('upkeep_timed', (s) => s.n_dead_tup === 1000);
    const upkeep = new EmbeddedUpkeep(tdb.db, quiet, { intervalMs: 20 });
    upkeep.start();
    try {
      // A pass may find the dead rows still visible to a snapshot elsewhere (a loaded CI machine's
      // other tests): the table stays past its thresholds and a later pass removes them.
      expect(await until('upkeep_timed', (s) => s.vacuumed && s.n_dead_tup === 0)).toMatchObject({ n_live_tup: 1000, n_dead_tup: 0, vacuumed: true });
    } finally {
      await upkeep.stop();
    }
  });

  it('ends a pass after the table it is at when stopped, and runs none after; `paylinks vacuum` then says the server is stopping', async () => {
    // Stopped while the first table is vacuumed: that table is done, no other.
    let stopping: Promise<void> | undefined;
    const log = { ...quiet, debug: () => void (stopping ??= upkeep.stop()), info: () => void (stopping ??= upkeep.stop()) };
    const upkeep = new EmbeddedUpkeep(tdb.db, log);
    const cut = await upkeep.everyTable();
    await stopping;
    expect(cut.stopped).toBe(true);
    expect(cut.done).toHaveLength(1);
    expect(cut.failed).toEqual([]);
    // Asked for after the stop: nothing done, the database not touched.
    const after = await upkeep.everyTable();
    expect(after).toEqual({ done: [], failed: [], ms: 0, stopped: true });
    const ctx = { db: tdb.db, clock: new ManualClock(new Date('2026-11-27T12:00:00Z')), publicBaseUrl: 'http://127.0.0.1', upkeep };
    const queries = vi.spyOn(tdb.db.pool, 'query');
    try {
      await expect(adminCommands.vacuum(ctx)).rejects.toThrow(
        /^the server holding the data folder is stopping; once it has exited, run paylinks vacuum again and it vacuums the folder directly$/,
      );
      expect(queries).not.toHaveBeenCalled();
    } finally {
      queries.mockRestore();
    }
    // The command, stopped after one table, names it.
    let halting: Promise<void> | undefined;
    const haltLog = { ...quiet, debug: () => void (halting ??= halted.stop()), info: () => void (halting ??= halted.stop()) };
    const halted = new EmbeddedUpkeep(tdb.db, haltLog);
    await expect(adminCommands.vacuum({ ...ctx, upkeep: halted })).rejects.toThrow(
      /^the server holding the data folder is stopping \(it vacuumed one table first\); once it has exited/,
    );
    await halting;

    // A pass not stopped goes through every table.
    const whole = await new EmbeddedUpkeep(tdb.db, quiet).everyTable();
    expect(whole.stopped).toBe(false);
    expect(whole.done.length).toBeGreaterThan(10);
    expect(await adminCommands.vacuum({ ...ctx, upkeep: new EmbeddedUpkeep(tdb.db, quiet) })).toMatchObject({ failed: [] });
  });

  // A table locked by another connection holds the pass at that table, so the stop comes while the
  // command is under way (PGlite has one connection: PostgreSQL only).
  it.skipIf(TEST_DB === 'pglite')('answers the command a stopping server was running through its admin socket, not hanging up on it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paylinks-admin-'));
    const upkeep = new EmbeddedUpkeep(tdb.db, quiet);
    const admin = await startAdminServer(
      { db: tdb.db, clock: new ManualClock(new Date('2026-11-27T12:00:00Z')), publicBaseUrl: 'http://127.0.0.1', upkeep },
      join(dir, 'admin.sock'),
      { info: () => undefined, error: () => undefined },
    );
    const holder = { pid: process.pid, processStart: null, host: 'test', since: new Date().toISOString(), command: 'paylinks serve', adminSocket: admin.path };
    // Connections of their own: the pool's two are the upkeep's and the test's.
    const locker = new pg.Client({ connectionString: tdb.db.url ?? '' });
    const watcher = new pg.Client({ connectionString: tdb.db.url ?? '' });
    await locker.connect();
    await watcher.connect();
    try {
      await locker.query('BEGIN; LOCK TABLE webhook_deliveries IN SHARE UPDATE EXCLUSIVE MODE');
      const answered = runThroughHolder({ dataDir: dir, holder }, 'vacuum', {}).then(
        (r) => ({ ok: r }),
        (err: unknown) => ({ err: (err as Error).message }),
      );
      // The pass waits at the locked table.
      for (let i = 0; ; i++) {
        const { rows } = await watcher.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE 'VACUUM%webhook_deliveries%'`,
        );
        if (rows[0]?.n === 1) break;
        if (i > 200) throw new Error('the pass never reached the locked table');
        await new Promise((r) => setTimeout(r, 25));
      }
      // The server's drain: the admin socket closes (with a grace) and the upkeep stops, side by side.
      const stopped = Promise.all([admin.close(10_000), upkeep.stop()]);
      await locker.query('COMMIT');
      await stopped;
      expect(await answered).toEqual({
        // However many tables the pass did before the locked one (none, one, or more).
        err: expect.stringMatching(
          /^the server holding the data folder is stopping( \(it vacuumed (one table|\d+ tables) first\))?; once it has exited/,
        ) as unknown,
      });
    } finally {
      await locker.end();
      await watcher.end();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes only a name as format() quotes it into its statement', async () => {
    for (const name of ['public.upkeep_churned; DROP TABLE upkeep_churned', 'upkeep_churned', 'public."a" ; x"'])
      await expect(vacuumTable(tdb.db.pool, { name, vacuum: true, analyze: false })).rejects.toThrow(/not a table name/);
    await vacuumTable(tdb.db.pool, { name: 'public."upkeep_churned"', vacuum: false, analyze: true });
  });
});
