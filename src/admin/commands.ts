import { OPERATOR, type Operation } from '../actor.js';
import type { Clock } from '../clock.js';
import { BackupError, type Database } from '../db/database.js';
import { ApiError } from '../errors.js';
import { vacuumEveryTable, type EmbeddedUpkeep } from '../db/upkeep.js';
import { reconcile } from '../settlements/reconcile.js';
import { feeSettingsOf, setFee } from '../settlements/service.js';
import { portalLinkUrl } from '../urls.js';
import { UserError, createUser, newSignInLink, type OneTimeLink } from '../users/service.js';
import { usersOf } from '../users/memberships/service.js';
import {
  AccountError,
  addTerminal,
  createKey,
  createMerchant,
  createPartner,
  linkPartner,
  listKeys,
  listMerchants,
  revokeKey,
  updateAllowedOrigins,
} from '../accounts/service.js';

// The operator's account commands (`paylinks merchant create`, `key revoke`, ...), as one table that
// two callers share: the CLI runs an entry against the database itself when it may open it, and a
// running embedded server runs the same entry for the CLI over its admin socket (the embedded
// database belongs to one process at a time). Arguments and results are JSON, so both paths print
// exactly the same thing.

type Args = Record<string, unknown>;

/** What a command runs against: the database, and for links into the portal, the public base URL and the clock. */
export interface AdminContext {
  db: Database;
  clock: Clock;
  publicBaseUrl: string;
  /** The embedded database's upkeep of the server that holds it: `vacuum` runs as one of its passes. */
  upkeep?: EmbeddedUpkeep | undefined;
}

/** The operator is who acts in every command here: what it changes is recorded as theirs. */
const operator = (c: AdminContext): Operation => ({ db: c.db, clock: c.clock, actor: OPERATOR });

function text(args: Args, name: string): string {
  const v = args[name];
  if (typeof v !== 'string' || v === '') throw new AccountError(`${name} is required`);
  return v;
}

function texts(args: Args, name: string): string[] {
  const v = args[name];
  if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string')) throw new AccountError(`${name} must be a list of strings`);
  return v;
}

function owner(args: Args): { merchantId: string } | { partnerId: string } {
  const merchantId = typeof args.merchantId === 'string' ? args.merchantId : undefined;
  const partnerId = typeof args.partnerId === 'string' ? args.partnerId : undefined;
  if ((merchantId === undefined) === (partnerId === undefined)) throw new AccountError('give exactly one of --merchant and --partner');
  return merchantId !== undefined ? { merchantId } : { partnerId: partnerId as string };
}

/** A refusal in §Errors's form (a key's capabilities) as an account command's refusal: its fields, in one line. */
async function checked<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiError && err.errors) throw new AccountError(err.errors.map((e) => `${e.field} ${e.message}`).join('; '));
    if (err instanceof ApiError && err.code === 'NOT_FOUND') throw new AccountError(err.message);
    throw err;
  }
}

function linkResult(c: AdminContext, link: OneTimeLink, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { userId: link.userId, email: link.email, ...extra, signInUrl: portalLinkUrl(c.publicBaseUrl, link.token), expiresAt: link.expiresAt.toISOString() };
}

/** A refused user operation is an account command's refusal (printed, exit 1), not a crash. */
async function users<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await checked(run);
  } catch (err) {
    if (err instanceof UserError) throw new AccountError(err.message);
    throw err;
  }
}

/** A refused backup (a file in the way, a folder that is not there) is an account command's refusal too. */
async function backup<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof BackupError) throw new AccountError(err.message);
    throw err;
  }
}

export const adminCommands = {
  // The path is absolute (the CLI resolves it in its own folder): the server writes the file.
  backup: async ({ db }: AdminContext, a: Args) => ({ ...(await backup(() => db.backupTo(text(a, 'path'), { force: a.force === true }))) }),
  // Through a running embedded server, as a pass of its own upkeep (recorded in its metrics, failures
  // in its log); on a database no server holds, on its own.
  vacuum: async ({ db, upkeep }: AdminContext) => {
    const r = await (upkeep ? upkeep.everyTable() : vacuumEveryTable(db));
    // A server that is stopping ends its pass after the table it is at, and runs no new one.
    if (r.stopped)
      throw new AccountError(
        `the server holding the data folder is stopping${r.done.length > 0 ? ` (it vacuumed ${r.done.length === 1 ? 'one table' : `${String(r.done.length)} tables`} first)` : ''}; once it has exited, run paylinks vacuum again and it vacuums the folder directly`,
      );
    return { done: r.done.map((t) => t.name), failed: r.failed, ms: r.ms };
  },
  'merchant.create': async ({ db }: AdminContext, a: Args) => ({ ...(await createMerchant(db, text(a, 'name'))) }),
  'merchant.list': async ({ db }: AdminContext) => ({ merchants: await listMerchants(db) }),
  'merchant.origins': async (c: AdminContext, a: Args) => {
    const merchantId = text(a, 'merchantId');
    const allowedOrigins = await checked(() => updateAllowedOrigins(operator(c), merchantId, texts(a, 'origins')));
    return { merchantId, allowedOrigins };
  },
  // Settlement fees (docs/api.md, Settlements): without a currency, what the merchant pays in each.
  'merchant.fees': async (c: AdminContext, a: Args) => {
    const merchantId = text(a, 'merchantId');
    if (a.currency !== undefined || a.percent !== undefined || a.fixedAmount !== undefined) {
      await checked(() => setFee(operator(c), merchantId, { currency: a.currency, percent: a.percent, fixedAmount: a.fixedAmount }));
    }
    return { ...(await checked(() => feeSettingsOf(c, merchantId))) };
  },
  // Reconciliation (`paylinks reconcile`): the cut-off comes from the calling command's configuration.
  reconcile: async (c: AdminContext, a: Args) => {
    const since = typeof a.since === 'string' ? new Date(a.since) : null;
    const minutes = typeof a.cutoffMinutes === 'number' ? a.cutoffMinutes : 0;
    const r = await reconcile(c, minutes, since);
    return { checkedAt: r.checkedAt.toISOString(), since: since?.toISOString() ?? null, movementsChecked: r.movementsChecked, discrepancies: r.discrepancies };
  },
  'terminal.add': async (c: AdminContext, a: Args) => ({ ...(await addTerminal(operator(c), text(a, 'merchantId'))) }),
  'key.create': async (c: AdminContext, a: Args) => {
    const o = owner(a);
    return { ...o, ...(await checked(() => createKey(operator(c), o, texts(a, 'capabilities')))) };
  },
  'key.list': async ({ db }: AdminContext, a: Args) => {
    const o = owner(a);
    return { ...o, keys: await listKeys(db, o) };
  },
  'key.revoke': async (c: AdminContext, a: Args) => ({ ...(await revokeKey(operator(c), text(a, 'keyId'))) }),
  'partner.create': async ({ db }: AdminContext, a: Args) => ({ ...(await createPartner(db, text(a, 'name'))) }),
  'partner.link': async ({ db }: AdminContext, a: Args) => {
    const partnerId = text(a, 'partnerId');
    const merchantId = text(a, 'merchantId');
    return { partnerId, merchantId, ...(await linkPartner(db, partnerId, merchantId)) };
  },
  'user.create': async (c: AdminContext, a: Args) => {
    const role = text(a, 'role');
    const link = await users(() => createUser(c.db, c.clock, { email: text(a, 'email'), owner: owner(a), role, createdBy: null }));
    return linkResult(c, link, { role });
  },
  'user.link': async (c: AdminContext, a: Args) => linkResult(c, await users(() => newSignInLink(c.db, c.clock, text(a, 'email')))),
  'user.list': async (c: AdminContext, a: Args) => {
    const o = owner(a);
    const list = await users(() => usersOf(c.db, c.clock, o));
    return {
      ...o,
      users: list.map((u) => ({
        userId: u.userId,
        email: u.email,
        role: u.role,
        status: u.status,
        lastSignInAt: u.lastSignInAt?.toISOString() ?? null,
        createdAt: u.createdAt.toISOString(),
      })),
    };
  },
} satisfies Record<string, (c: AdminContext, args: Args) => Promise<Record<string, unknown>>>;

export type AdminCommand = keyof typeof adminCommands;

export function isAdminCommand(name: string): name is AdminCommand {
  return Object.hasOwn(adminCommands, name);
}
