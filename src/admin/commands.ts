import type { Database } from '../db/database.js';
import {
  AccountError,
  addTerminal,
  createKey,
  createMerchant,
  createPartner,
  isCapability,
  linkPartner,
  listKeys,
  listMerchants,
  revokeKey,
  setOrigins,
  type Capability,
} from '../accounts/service.js';

// The operator's account commands (`paylinks merchant create`, `key revoke`, ...), as one table that
// two callers share: the CLI runs an entry against the database itself when it may open it, and a
// running embedded server runs the same entry for the CLI over its admin socket (the embedded
// database belongs to one process at a time). Arguments and results are JSON, so both paths print
// exactly the same thing.

type Args = Record<string, unknown>;

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

function capabilities(args: Args): Capability[] {
  const caps = texts(args, 'capabilities');
  const bad = caps.filter((c) => !isCapability(c));
  if (caps.length === 0 || bad.length > 0) throw new AccountError(`unknown capability ${bad.join(', ') || '(none given)'}`);
  return caps as Capability[];
}

export const adminCommands = {
  'merchant.create': async (db: Database, a: Args) => ({ ...(await createMerchant(db, text(a, 'name'))) }),
  'merchant.list': async (db: Database) => ({ merchants: await listMerchants(db) }),
  'merchant.origins': async (db: Database, a: Args) => {
    const merchantId = text(a, 'merchantId');
    const origins = texts(a, 'origins');
    await setOrigins(db, merchantId, origins);
    return { merchantId, allowedOrigins: origins };
  },
  'terminal.add': async (db: Database, a: Args) => ({ ...(await addTerminal(db, text(a, 'merchantId'))) }),
  'key.create': async (db: Database, a: Args) => {
    const o = owner(a);
    return { ...o, ...(await createKey(db, o, capabilities(a))) };
  },
  'key.list': async (db: Database, a: Args) => {
    const o = owner(a);
    return { ...o, keys: await listKeys(db, o) };
  },
  'key.revoke': async (db: Database, a: Args) => ({ ...(await revokeKey(db, text(a, 'keyId'))) }),
  'partner.create': async (db: Database, a: Args) => ({ ...(await createPartner(db, text(a, 'name'))) }),
  'partner.link': async (db: Database, a: Args) => {
    const partnerId = text(a, 'partnerId');
    const merchantId = text(a, 'merchantId');
    return { partnerId, merchantId, ...(await linkPartner(db, partnerId, merchantId)) };
  },
} satisfies Record<string, (db: Database, args: Args) => Promise<Record<string, unknown>>>;

export type AdminCommand = keyof typeof adminCommands;
export type AdminResult<C extends AdminCommand> = Awaited<ReturnType<(typeof adminCommands)[C]>>;

export function isAdminCommand(name: string): name is AdminCommand {
  return Object.hasOwn(adminCommands, name);
}
