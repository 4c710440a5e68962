import { Command, InvalidArgumentError } from 'commander';
import { parseConfig, ConfigError, type Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import {
  AccountError,
  addTerminal,
  createKey,
  createMerchant,
  createPartner,
  isCapability,
  linkPartner,
  setOrigins,
  type Capability,
} from './accounts/service.js';
import { registerOperations } from './cli/operations.js';

// The `paylinks` command (D17). Every command that creates something prints, with --json, one JSON
// object as its last output line.

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

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
  const caps = value.split(',').map((c) => c.trim()).filter((c) => c !== '');
  const bad = caps.filter((c) => !isCapability(c));
  if (caps.length === 0 || bad.length > 0) {
    throw new InvalidArgumentError(`unknown capability ${bad.join(', ') || '(none given)'}; use PaymentLinks, TokenizeLinks, HostedCheckout, Webhooks`);
  }
  return caps as Capability[];
}

/** Opens the configured database, migrates it, runs fn, closes it. */
async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

function emit(json: boolean, value: Record<string, unknown>, human: string[]): void {
  if (json) print(JSON.stringify(value));
  else for (const l of human) print(l);
}

export function buildCli(): Command {
  const program = new Command('paylinks')
    .description('Payment links, hosted checkout and webhook delivery')
    .showHelpAfterError()
    .exitOverride((err) => {
      process.exit(err.exitCode);
    });

  program
    .command('serve')
    .description('apply migrations, serve HTTP and run the delivery worker')
    .option('--no-worker', 'serve HTTP only, without the delivery worker')
    .action(async (opts: { worker: boolean }) => {
      // The service's modules load only for the commands that run it: account commands start in a
      // fraction of the time.
      const { serve, stopOnSignals } = await import('./main.js');
      const running = await serve(loadConfig(), { worker: opts.worker });
      stopOnSignals(running.stop, print);
    });

  program
    .command('worker')
    .description('run the webhook delivery worker and the modification processor, without HTTP')
    .action(async () => {
      const { runWorker, stopOnSignals } = await import('./main.js');
      const running = await runWorker(loadConfig());
      stopOnSignals(running.stop, print);
    });

  program
    .command('migrate')
    .description('apply database migrations and exit')
    .action(async () => {
      const config = loadConfig();
      const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        const applied = await migrate(db);
        print(applied.length === 0 ? 'database is up to date' : `applied ${applied.join(', ')}`);
      } finally {
        await db.close();
      }
    });

  const merchant = program.command('merchant').description('merchant accounts');
  merchant
    .command('create')
    .requiredOption('--name <name>', 'merchant name')
    .option('--json', 'print one JSON object')
    .description('a merchant with one terminal and one API key with every capability')
    .action(async (opts: { name: string; json?: boolean }) => {
      const m = await withDb((db) => createMerchant(db, opts.name));
      emit(!!opts.json, { ...m }, [`merchantId          ${m.merchantId}`, `terminalIdentifier  ${m.terminalIdentifier}`, `apiKey              ${m.apiKey}  (shown only now)`]);
    });
  merchant
    .command('origins')
    .requiredOption('--merchant <id>', 'merchant id')
    .argument('[origins...]', 'allowed browser origins for create calls (none: any origin)')
    .option('--json', 'print one JSON object')
    .description('set the browser origins allowed to call create (D1)')
    .action(async (origins: string[], opts: { merchant: string; json?: boolean }) => {
      await withDb((db) => setOrigins(db, opts.merchant, origins));
      emit(!!opts.json, { merchantId: opts.merchant, allowedOrigins: origins }, [`allowed origins of ${opts.merchant}: ${origins.join(' ') || '(any)'}`]);
    });

  program
    .command('terminal')
    .description('terminals')
    .command('add')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { merchant: string; json?: boolean }) => {
      const t = await withDb((db) => addTerminal(db, opts.merchant));
      emit(!!opts.json, t, [`terminalIdentifier  ${t.terminalIdentifier}`]);
    });

  program
    .command('key')
    .description('API keys')
    .command('create')
    .option('--merchant <id>', 'merchant id')
    .option('--partner <id>', 'partner id')
    .requiredOption('--capabilities <list>', 'comma-separated: PaymentLinks,TokenizeLinks,HostedCheckout,Webhooks', parseCapabilities)
    .option('--json', 'print one JSON object')
    .action(async (opts: { merchant?: string; partner?: string; capabilities: Capability[]; json?: boolean }) => {
      if ((opts.merchant === undefined) === (opts.partner === undefined)) throw new AccountError('give exactly one of --merchant and --partner');
      const owner = opts.merchant !== undefined ? { merchantId: opts.merchant } : { partnerId: opts.partner as string };
      const k = await withDb((db) => createKey(db, owner, opts.capabilities));
      emit(!!opts.json, { ...owner, ...k }, [`keyId         ${k.keyId}`, `apiKey        ${k.apiKey}  (shown only now)`, `capabilities  ${k.capabilities.join(',')}`]);
    });

  const partner = program.command('partner').description('partners and their linked merchants (D13)');
  partner
    .command('create')
    .requiredOption('--name <name>', 'partner name')
    .option('--json', 'print one JSON object')
    .action(async (opts: { name: string; json?: boolean }) => {
      const p = await withDb((db) => createPartner(db, opts.name));
      emit(!!opts.json, p, [`partnerId  ${p.partnerId}`, `apiKey     ${p.apiKey}  (shown only now)`]);
    });
  partner
    .command('link')
    .requiredOption('--partner <id>', 'partner id')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { partner: string; merchant: string; json?: boolean }) => {
      const r = await withDb((db) => linkPartner(db, opts.partner, opts.merchant));
      emit(!!opts.json, { partnerId: opts.partner, merchantId: opts.merchant, ...r }, [
        r.linked ? `linked ${opts.partner} to ${opts.merchant}` : `${opts.partner} was already linked to ${opts.merchant}`,
      ]);
    });

  registerOperations(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (err) {
    if (err instanceof AccountError) {
      process.stderr.write(`paylinks: ${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`paylinks: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
