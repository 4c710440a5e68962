import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { parseConfig, ConfigError, type Config } from './config.js';
import type { Database } from './db/database.js';
import { DataDirLockedError } from './db/dataDirLock.js';
import { AccountError, isCapability, type Capability } from './accounts/capabilities.js';
import type { KeySummary, MerchantSummary } from './accounts/service.js';
import type { AdminCommand, AdminContext } from './admin/commands.js';
import { systemClock } from './clock.js';
import { AdminSocketUntrustedError, AdminUnreachableError, runThroughHolder } from './admin/client.js';
import { table } from './cli/client.js';
import { registerOperations } from './cli/operations.js';
import { registerListen } from './cli/listen.js';
import { PACKAGE_VERSION, unsupportedNode } from './version.js';

// The `paylinks` command: running the service (serve, worker, migrate) and the operator's account
// commands (merchant, terminal, key, partner). Every command that creates something prints, with
// --json, one JSON object as its last output line. The database and the account commands are imported
// by the commands that use them: `--help` and the API's commands start without the server's code.

const print = (line: string): void => void process.stdout.write(`${line}\n`);

function loadConfig(): Config {
  try {
    return parseConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`paylinks: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

function parseCapabilities(value: string): Capability[] {
  const caps = value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  const bad = caps.filter((c) => !isCapability(c));
  if (caps.length === 0 || bad.length > 0) {
    throw new InvalidArgumentError(`unknown capability ${bad.join(', ') || '(none given)'}; use PaymentLinks, TokenizeLinks, HostedCheckout, Webhooks`);
  }
  return caps as Capability[];
}

/** Opens the configured database, migrates it (unless told not to), runs fn, closes it. */
async function withDb<T>(config: Config, command: string, fn: (db: Database) => Promise<T>, opts: { migrate?: boolean } = {}): Promise<T> {
  const [{ openDatabase }, { migrate }] = await Promise.all([import('./db/database.js'), import('./db/migrate.js')]);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, lock: { command } });
  try {
    if (opts.migrate !== false) await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/**
 * An account command run where there is no embedded database (another folder than the server's, a
 * typing mistake in PAYLINKS_DATA_DIR) would otherwise create a new, empty one there and answer from
 * it. It refuses instead and says where it looked; `paylinks migrate` (or `serve`) creates one.
 */
function refuseEmptyDataDir(config: Config): void {
  if (config.databaseUrl !== null || config.dataDir.startsWith('memory://')) return;
  if (existsSync(join(config.dataDir, 'PG_VERSION'))) return;
  throw new AccountError(
    `there is no paylinks database in ${resolve(config.dataDir)}.\n` +
      '  Point this command at the folder the server uses (PAYLINKS_DATA_DIR=<folder>), or at PostgreSQL (DATABASE_URL),\n' +
      '  or create a new database in this folder with `paylinks migrate`.',
  );
}

/** How long an account command waits for another short command that holds the embedded database. */
const WAIT_FOR_COMMAND_MS = 10_000;

/**
 * Runs an account command. On PostgreSQL, or on an embedded database no other process has open, it
 * runs here. When a server holds the embedded database, it runs in that server, through its admin
 * socket: the server sees the change at once and nothing is written behind its back.
 */
async function runAdmin(
  command: AdminCommand,
  label: string,
  args: Record<string, unknown>,
  opts: { migrate?: boolean } = {},
): Promise<Record<string, unknown>> {
  const config = loadConfig();
  refuseEmptyDataDir(config);
  const deadline = Date.now() + WAIT_FOR_COMMAND_MS;
  const { adminCommands } = await import('./admin/commands.js');
  const run: (c: AdminContext, a: Record<string, unknown>) => Promise<Record<string, unknown>> = adminCommands[command];
  for (;;) {
    try {
      return await withDb(config, label, (db) => run({ db, clock: systemClock, publicBaseUrl: config.publicBaseUrl }, args), opts);
    } catch (err) {
      if (!(err instanceof DataDirLockedError)) throw err;
      const holder = err.holder;
      if (holder.adminSocket !== null) {
        try {
          return await runThroughHolder(err, command, args);
        } catch (e) {
          if (e instanceof AdminSocketUntrustedError) throw new AccountError(`${err.message}, and ${e.message}`);
          if (!(e instanceof AdminUnreachableError)) throw e;
          throw new AccountError(`${err.message}, and ${e.message}. If that process is stuck, stop it (kill ${holder.pid}) and run this command again.`);
        }
      }
      // Another account command or a migration: they take a moment. Wait for it, then run here.
      if (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      throw new AccountError(`${err.message}. Wait until it has finished, or stop it, and run this command again.`);
    }
  }
}

function emit(json: boolean, value: Record<string, unknown>, human: string[]): void {
  if (json) print(JSON.stringify(value));
  else for (const l of human) print(l);
}

const when = (iso: string | null): string => (iso === null ? '-' : iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));

export function buildCli(): Command {
  const program = new Command('paylinks')
    .description('Payment links, hosted checkout and webhook delivery: run the service, manage accounts, and call the API')
    .version(PACKAGE_VERSION, '-V, --version', 'print the version of paylinks')
    .showHelpAfterError()
    .exitOverride((err) => {
      // Help and version exit 0; a mistake in the command line (unknown option, missing argument) 2.
      process.exit(err.exitCode === 0 ? 0 : 2);
    });

  program
    .command('serve')
    .description('apply migrations, serve HTTP (API, shopper pages, docs) and run the delivery worker; SIGTERM or Ctrl-C drains and exits')
    .option('--no-worker', 'serve HTTP only, without the delivery worker')
    .action(async (opts: { worker: boolean }) => {
      // The service's modules load only for the commands that run it: account commands start in a
      // fraction of the time.
      const { serve, runUntilSignalled } = await import('./main.js');
      await runUntilSignalled(() => serve(loadConfig(), { worker: opts.worker }), print);
    });

  program
    .command('worker')
    .description('run the webhook delivery worker and the modification processor without HTTP (PostgreSQL only; any number beside serve)')
    .action(async () => {
      const { runWorker, runUntilSignalled } = await import('./main.js');
      await runUntilSignalled(() => runWorker(loadConfig()), print);
    });

  program
    .command('migrate')
    .description('apply database migrations and exit (serve applies them too; safe when several processes start at once)')
    .action(async () => {
      const config = loadConfig();
      const [{ openDatabase }, { migrate }] = await Promise.all([import('./db/database.js'), import('./db/migrate.js')]);
      let db: Database;
      try {
        db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, lock: { command: 'migrate' } });
      } catch (err) {
        if (err instanceof DataDirLockedError && err.holder.command === 'serve') {
          process.stderr.write(`paylinks: ${err.message}.\n  That server applied the migrations when it started: there is nothing to do.\n`);
          process.exit(1);
        }
        throw err;
      }
      try {
        const applied = await migrate(db);
        print(applied.length === 0 ? 'database is up to date' : `applied ${applied.join(', ')}`);
      } finally {
        await db.close();
      }
    });

  const merchant = program.command('merchant').description('merchant accounts (on the database, or through the running embedded server)');
  merchant
    .command('create')
    .description('a merchant with one terminal and one API key with every capability; the key is shown only now')
    .requiredOption('--name <name>', 'merchant name')
    .option('--json', 'print one JSON object')
    .action(async (opts: { name: string; json?: boolean }) => {
      const m = await runAdmin('merchant.create', 'merchant create', { name: opts.name });
      emit(!!opts.json, m, [
        `merchantId          ${String(m.merchantId)}`,
        `terminalIdentifier  ${String(m.terminalIdentifier)}`,
        `apiKey              ${String(m.apiKey)}  (shown only now)`,
      ]);
    });
  merchant
    .command('list')
    .description('every merchant with its terminals and how many live API keys it has')
    .option('--json', 'print one JSON object')
    .action(async (opts: { json?: boolean }) => {
      const r = await runAdmin('merchant.list', 'merchant list', {});
      const merchants = r.merchants as MerchantSummary[];
      emit(
        !!opts.json,
        r,
        table(
          ['MERCHANT', 'NAME', 'CREATED', 'KEYS', 'TERMINALS'],
          merchants.map((m) => [m.merchantId, m.name, when(m.createdAt), m.liveKeys, m.terminals.join(' ')]),
        ),
      );
    });
  merchant
    .command('origins')
    .description('set the browser origins allowed to call the create operations (none given: any origin)')
    .requiredOption('--merchant <id>', 'merchant id')
    .argument('[origins...]', 'allowed origins, e.g. https://shop.example.com')
    .option('--json', 'print one JSON object')
    .action(async (origins: string[], opts: { merchant: string; json?: boolean }) => {
      const r = await runAdmin('merchant.origins', 'merchant origins', { merchantId: opts.merchant, origins });
      emit(!!opts.json, r, [`allowed origins of ${opts.merchant}: ${origins.join(' ') || '(any)'}`]);
    });

  merchant
    .command('fees')
    .description(
      "a merchant's settlement fees per currency: a percentage of each capture plus a fixed amount in minor units (refunds cost nothing). " +
        'With --currency, --percent and --fixed, sets them for that currency first. Default for every other currency: 1.50 % and 0',
    )
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--currency <code>', 'ISO 4217 code, e.g. EUR')
    .option('--percent <p>', 'percentage of each capture, 0 to 100 with at most two decimals, e.g. 2.5')
    .option('--fixed <minor>', 'fixed amount per capture in minor units (for ISK ending in 00), e.g. 30')
    .option('--json', 'print one JSON object')
    .action(async (opts: { merchant: string; currency?: string; percent?: string; fixed?: string; json?: boolean }) => {
      const setting = opts.currency !== undefined || opts.percent !== undefined || opts.fixed !== undefined;
      if (setting && (opts.currency === undefined || opts.percent === undefined || opts.fixed === undefined)) {
        throw new AccountError('give --currency, --percent and --fixed together to set fees');
      }
      const r = await runAdmin(
        'merchant.fees',
        'merchant fees',
        setting ? { merchantId: opts.merchant, currency: opts.currency, percent: opts.percent, fixedAmount: opts.fixed } : { merchantId: opts.merchant },
      );
      const fees = r.fees as { currency: string; percent: string; fixedAmount: number }[];
      const fallback = r.default as { percent: string; fixedAmount: number };
      emit(!!opts.json, r, [
        ...table(
          ['CURRENCY', 'PERCENT', 'FIXED'],
          [...fees.map((f) => [f.currency, f.percent, f.fixedAmount]), ['(others)', fallback.percent, fallback.fixedAmount]],
        ),
      ]);
    });

  program
    .command('terminal')
    .description('terminals of a merchant')
    .command('add')
    .description('another terminal (a 12-character terminalIdentifier) for a merchant')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { merchant: string; json?: boolean }) => {
      const t = await runAdmin('terminal.add', 'terminal add', { merchantId: opts.merchant });
      emit(!!opts.json, t, [`terminalIdentifier  ${String(t.terminalIdentifier)}`]);
    });

  const key = program.command('key').description('API keys of a merchant or a partner (shown once, stored only as hashes)');
  key
    .command('create')
    .description('an API key with some capabilities; the key is shown only now')
    .option('--merchant <id>', 'merchant id')
    .option('--partner <id>', 'partner id')
    .requiredOption('--capabilities <list>', 'comma-separated: PaymentLinks,TokenizeLinks,HostedCheckout,Webhooks', parseCapabilities)
    .option('--json', 'print one JSON object')
    .action(async (opts: { merchant?: string; partner?: string; capabilities: Capability[]; json?: boolean }) => {
      const k = await runAdmin('key.create', 'key create', { merchantId: opts.merchant, partnerId: opts.partner, capabilities: opts.capabilities });
      emit(!!opts.json, k, [
        `keyId         ${String(k.keyId)}`,
        `apiKey        ${String(k.apiKey)}  (shown only now)`,
        `capabilities  ${(k.capabilities as string[]).join(',')}`,
      ]);
    });
  key
    .command('list')
    .description(
      "a merchant's or partner's keys: id, first and last characters, capabilities, created, last used (about a minute's accuracy), revoked; never the secret",
    )
    .option('--merchant <id>', 'merchant id')
    .option('--partner <id>', 'partner id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { merchant?: string; partner?: string; json?: boolean }) => {
      const r = await runAdmin('key.list', 'key list', { merchantId: opts.merchant, partnerId: opts.partner });
      const keys = r.keys as KeySummary[];
      emit(
        !!opts.json,
        r,
        table(
          ['KEY', 'SHOWN AS', 'CAPABILITIES', 'CREATED', 'LAST USED', 'REVOKED'],
          keys.map((k) => [k.keyId, k.display ?? '-', k.capabilities.join(','), when(k.createdAt), when(k.lastUsedAt), when(k.revokedAt)]),
        ),
      );
    });
  key
    .command('revoke')
    .description('revoke a key: every request with it is refused from now on (revoking it again changes nothing)')
    .argument('<keyId>', 'the key id (key_...) from key list or key create, not the key itself')
    .option('--json', 'print one JSON object')
    .action(async (keyId: string, opts: { json?: boolean }) => {
      const r = await runAdmin('key.revoke', 'key revoke', { keyId });
      const k = r.key as KeySummary;
      emit(!!opts.json, r, [
        r.revokedNow ? `revoked ${k.keyId} (${k.display ?? 'no display form'})` : `${k.keyId} was already revoked at ${when(k.revokedAt)}`,
      ]);
    });

  const partner = program.command('partner').description('partners: their webhooks receive the events of the merchants they are linked to');
  partner
    .command('create')
    .description('a partner account and its API key (Webhooks capability); the key is shown only now')
    .requiredOption('--name <name>', 'partner name')
    .option('--json', 'print one JSON object')
    .action(async (opts: { name: string; json?: boolean }) => {
      const p = await runAdmin('partner.create', 'partner create', { name: opts.name });
      emit(!!opts.json, p, [`partnerId  ${String(p.partnerId)}`, `apiKey     ${String(p.apiKey)}  (shown only now)`]);
    });
  partner
    .command('link')
    .description("link a merchant to a partner: the partner's webhooks then receive the merchant's events too")
    .requiredOption('--partner <id>', 'partner id')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { partner: string; merchant: string; json?: boolean }) => {
      const r = await runAdmin('partner.link', 'partner link', { partnerId: opts.partner, merchantId: opts.merchant });
      emit(!!opts.json, r, [r.linked ? `linked ${opts.partner} to ${opts.merchant}` : `${opts.partner} was already linked to ${opts.merchant}`]);
    });

  const user = program.command('user').description('people who sign in to the merchant portal (/portal), separate from API keys');
  user
    .command('create')
    .description(
      'a portal user of a merchant (or of a partner: then they see every merchant linked to it); prints a one-time sign-in link, valid 24 hours, where they choose a password',
    )
    .option('--merchant <id>', 'merchant id')
    .option('--partner <id>', 'partner id')
    .requiredOption('--email <address>', 'their e-mail address (what they sign in with)')
    .requiredOption(
      '--role <role>',
      'owner (everything, users included), developer (keys, webhooks, themes; reads money) or staff (links, sessions, payments, refunds)',
    )
    .option('--json', 'print one JSON object')
    .action(async (opts: { merchant?: string; partner?: string; email: string; role: string; json?: boolean }) => {
      const r = await runAdmin('user.create', 'user create', { merchantId: opts.merchant, partnerId: opts.partner, email: opts.email, role: opts.role });
      emit(!!opts.json, r, [
        `userId      ${String(r.userId)}`,
        `email       ${String(r.email)}`,
        `role        ${String(r.role)}`,
        `sign in at  ${String(r.signInUrl)}`,
        `            (one time, until ${when(String(r.expiresAt))}; they choose a password there)`,
      ]);
    });
  user
    .command('link')
    .description(
      'a new one-time sign-in link for a user (someone invited in the portal who has no password yet, a forgotten password); earlier links stop working',
    )
    .requiredOption('--email <address>', 'the user’s e-mail address')
    .option('--json', 'print one JSON object')
    .action(async (opts: { email: string; json?: boolean }) => {
      const r = await runAdmin('user.link', 'user link', { email: opts.email });
      emit(!!opts.json, r, [`sign in at  ${String(r.signInUrl)}`, `            (one time, until ${when(String(r.expiresAt))})`]);
    });
  user
    .command('list')
    .description("a merchant's or partner's portal users: role, whether they have accepted, last sign-in")
    .option('--merchant <id>', 'merchant id')
    .option('--partner <id>', 'partner id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { merchant?: string; partner?: string; json?: boolean }) => {
      const r = await runAdmin('user.list', 'user list', { merchantId: opts.merchant, partnerId: opts.partner });
      const list = r.users as { userId: string; email: string; role: string; status: string; lastSignInAt: string | null; createdAt: string }[];
      emit(
        !!opts.json,
        r,
        table(
          ['USER', 'EMAIL', 'ROLE', 'STATUS', 'CREATED', 'LAST SIGN-IN'],
          list.map((u) => [u.userId, u.email, u.role, u.status, when(u.createdAt), when(u.lastSignInAt)]),
        ),
      );
    });

  program
    .command('reconcile')
    .description(
      'check settlement on the database: every capture and refund in exactly one batch with the amount that moved, every batch adding up, ' +
        'no capture left incomplete across a cut-off. Prints every discrepancy and exits 1 when there is one',
    )
    .option('--since <date>', 'check only what was booked, requested or cut off from this day (YYYY-MM-DD, UTC) or instant (ISO 8601) on')
    .option('--json', 'print one JSON object')
    .action(async (opts: { since?: string; json?: boolean }) => {
      const since = opts.since === undefined ? undefined : new Date(opts.since);
      if (since !== undefined && (Number.isNaN(since.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(opts.since ?? ''))) {
        throw new InvalidArgumentError(`--since ${JSON.stringify(opts.since)}: give a day such as 2026-11-24 or an ISO 8601 instant`);
      }
      const config = loadConfig();
      const r = await runAdmin('reconcile', 'reconcile', { since: since?.toISOString(), cutoffMinutes: config.settlementCutoffMinutes });
      const found = r.discrepancies as { kind: string; merchantId: string | null; reference: string; detail: string }[];
      const checked = (n: unknown): string => (n === 1 ? 'one capture or refund checked' : `${String(n)} captures and refunds checked`);
      emit(!!opts.json, r, [
        ...found.map((d) => `${d.kind}  ${d.merchantId ?? '-'}  ${d.reference}  ${d.detail}`),
        found.length === 0
          ? `all is well: ${checked(r.movementsChecked)}, every batch adds up, no capture left incomplete`
          : `${found.length === 1 ? 'one discrepancy' : `${found.length} discrepancies`} (${checked(r.movementsChecked)})`,
      ]);
      if (found.length > 0) process.exitCode = 1;
    });

  registerBackup(program);
  registerOperations(program);
  registerListen(program);
  return program;
}

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

function registerBackup(program: Command): void {
  program
    .command('backup')
    .description(
      'write a backup of the embedded database to a file; while a server runs, that server writes it (queries wait for the moment the folder is read). On PostgreSQL use pg_dump',
    )
    .argument('<file>', 'the backup file to write (a gzip-compressed tar of the data folder)')
    .option('--force', 'replace the file if it exists')
    .option('--json', 'print one JSON object')
    .action(async (file: string, opts: { force?: boolean; json?: boolean }) => {
      const r = await runAdmin('backup', 'backup', { path: resolve(file), force: opts.force === true }, { migrate: false });
      emit(!!opts.json, r, [
        `wrote ${String(r.path)} (${megabytes(Number(r.bytes))}) in ${String(r.totalMs)} ms; queries waited ${String(r.heldMs)} ms while the folder was read`,
      ]);
    });
  program
    .command('vacuum')
    .description(
      "vacuum and analyse every table now (after a large import or many deletions, say), and the whole database when its transaction ids are due to be frozen; the embedded database's upkeep does this once a minute for the tables that need it. While `paylinks serve` has the embedded database open, that server runs the command and its requests wait meanwhile. On PostgreSQL autovacuum normally does this; the command works there too, and may take long on a large database",
    )
    .option('--json', 'print one JSON object')
    .action(async (opts: { json?: boolean }) => {
      const r = await runAdmin('vacuum', 'vacuum', {}, { migrate: false });
      const failed = r.failed as { table: string; error: string }[];
      const done = (r.done as string[]).length;
      emit(!!opts.json, r, [
        ...failed.map((f) => `${f.table}: not vacuumed: ${f.error}`),
        `vacuumed and analysed ${done === 1 ? 'one table' : `${String(done)} tables`} in ${String(r.ms)} ms${failed.length > 0 ? `; ${String(failed.length)} could not be` : ''}`,
      ]);
      if (failed.length > 0) process.exitCode = 1;
    });
  program
    .command('restore')
    .description(
      'make a backup file the embedded database of the data folder (PAYLINKS_DATA_DIR); no process may have that folder open. On PostgreSQL use pg_restore',
    )
    .argument('<file>', 'a file written by paylinks backup')
    .option('--force', 'the folder holds a database: move it aside (to <folder>.before-restore-<time>, never deleted) and restore in its place')
    .option('--json', 'print one JSON object')
    .action(async (file: string, opts: { force?: boolean; json?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl !== null) throw new AccountError((await import('./db/database.js')).POSTGRES_BACKUP_HINT);
      if (config.dataDir.startsWith('memory://')) throw new AccountError('PAYLINKS_DATA_DIR names an in-memory database; restore needs a folder');
      const { restoreDataDir } = await import('./db/restore.js');
      let r;
      try {
        r = await restoreDataDir(resolve(file), config.dataDir, { force: opts.force === true });
      } catch (err) {
        if (err instanceof DataDirLockedError)
          throw new AccountError(`${err.message}.\n  Stop it before restoring into this folder, or restore into a new folder (PAYLINKS_DATA_DIR=<folder>).`);
        throw err;
      }
      emit(!!opts.json, { ...r }, [
        `restored ${resolve(file)} (${megabytes(r.bytes)}) into ${r.dataDir}; it starts`,
        r.movedAside === null ? 'the folder held no database before' : `what the folder held before is in ${r.movedAside}`,
      ]);
    });
}

export async function main(argv: string[]): Promise<void> {
  const unsupported = unsupportedNode();
  if (unsupported !== null) process.stderr.write(`paylinks: warning: ${unsupported}\n`);
  try {
    await buildCli().parseAsync(argv);
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      process.stderr.write(
        `paylinks: ${err.message}.\n` +
          '  Stop that process first, or give this one a folder of its own (PAYLINKS_DATA_DIR).\n' +
          '  To run several processes on one database, use PostgreSQL (DATABASE_URL).\n',
      );
      process.exit(1);
    }
    process.stderr.write(`paylinks: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
