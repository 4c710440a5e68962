import type { Operation } from '../actor.js';
import { recordAudit } from '../audit/service.js';
import { BatchLoader, perDatabase } from '../db/batch.js';
import type { Database } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { hashSecret, newApiKey, newTerminalIdentifier, prefixedId } from '../ids.js';
import * as sql from './sql.js';
import { ApiError, notFound, validationError, type FieldError } from '../errors.js';

import { AccountError, CAPABILITIES, isCapability, type Capability } from './capabilities.js';

export { AccountError, CAPABILITIES, isCapability, type Capability } from './capabilities.js';

/** Who is calling: a merchant, or a partner acting for its linked merchants (§Authentication, §Webhooks). */
export type Principal = (
  | { kind: 'merchant'; keyId: string; merchantId: string; capabilities: ReadonlySet<Capability> }
  | { kind: 'partner'; keyId: string; partnerId: string; capabilities: ReadonlySet<Capability> }
) & {
  /** The key's first and last characters ({@link displayFormOf}), as the audit log names it; null for an older key. */
  display?: string | null;
};

export interface CreatedMerchant {
  merchantId: string;
  terminalIdentifier: string;
  apiKey: string;
}

export async function createMerchant(db: Database, name: string): Promise<CreatedMerchant> {
  return withTransaction(db, async (tx) => {
    const merchantId = prefixedId('mch');
    const terminalIdentifier = newTerminalIdentifier();
    const apiKey = newApiKey();
    await sql.insertMerchant(tx, merchantId, name);
    await sql.insertTerminal(tx, terminalIdentifier, merchantId);
    await sql.insertApiKey(tx, {
      id: prefixedId('key'),
      keyHash: hashSecret(apiKey),
      displayPrefix: displayFormOf(apiKey),
      merchantId,
      partnerId: null,
      capabilities: CAPABILITIES,
    });
    return { merchantId, terminalIdentifier, apiKey };
  });
}

/** Whether the terminal exists and is the merchant's (an unknown terminal and another's look the same). */
export async function isTerminalOf(db: Database, terminalIdentifier: string, merchantId: string): Promise<boolean> {
  const terminal = await sql.findTerminal(db.pool, terminalIdentifier);
  return terminal !== undefined && terminal.merchantId === merchantId;
}

export async function addTerminal(op: Operation, merchantId: string): Promise<{ merchantId: string; terminalIdentifier: string }> {
  if (!(await sql.merchantExists(op.db.pool, merchantId))) throw new AccountError(`merchant ${merchantId} not found`);
  const terminalIdentifier = newTerminalIdentifier();
  await withTransaction(op.db, async (tx) => {
    await sql.insertTerminal(tx, terminalIdentifier, merchantId);
    await recordAudit(tx, op, { merchantId, action: 'terminal.add', target: terminalIdentifier });
  });
  return { merchantId, terminalIdentifier };
}

/**
 * A new API key with the capabilities asked for, for every caller (the portal's developers page, the
 * operator's command): they are checked here (keyCapabilities), so a refusal is §Errors's field errors
 * on `capabilities` whoever asked. `allowed`, when given, is what the one asking may give a key (a
 * portal user: what their role may do, src/portal/access.ts); any other capability is refused.
 */
export async function createKey(
  op: Operation,
  owner: { merchantId: string } | { partnerId: string },
  capabilities: readonly string[],
  allowed?: readonly Capability[],
): Promise<{ keyId: string; apiKey: string; capabilities: Capability[] }> {
  const { db } = op;
  const caps = keyCapabilities(capabilities, allowed);
  if ('merchantId' in owner && !(await sql.merchantExists(db.pool, owner.merchantId))) {
    throw new AccountError(`merchant ${owner.merchantId} not found`);
  }
  if ('partnerId' in owner && !(await sql.partnerExists(db.pool, owner.partnerId))) {
    throw new AccountError(`partner ${owner.partnerId} not found`);
  }
  const apiKey = newApiKey();
  const keyId = prefixedId('key');
  await withTransaction(db, async (tx) => {
    await sql.insertApiKey(tx, {
      id: keyId,
      keyHash: hashSecret(apiKey),
      displayPrefix: displayFormOf(apiKey),
      merchantId: 'merchantId' in owner ? owner.merchantId : null,
      partnerId: 'partnerId' in owner ? owner.partnerId : null,
      capabilities: caps,
    });
    // The key itself goes nowhere but the answer. A partner's keys are in no merchant's log.
    if ('merchantId' in owner)
      await recordAudit(tx, op, { merchantId: owner.merchantId, action: 'key.create', target: keyId, details: { capabilities: caps } });
  });
  return { keyId, apiKey, capabilities: caps };
}

/**
 * How a key is shown once it has been handed out: its first and last characters (`pk_Ab12…Yz89`).
 * Eight of its 43 random characters, so 208 random bits stay secret.
 */
function displayFormOf(apiKey: string): string {
  return `${apiKey.slice(0, 7)}…${apiKey.slice(-4)}`;
}

export interface KeySummary {
  keyId: string;
  /** The key's first and last characters, or null for a key made before they were kept. */
  display: string | null;
  capabilities: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

function keySummary(r: sql.KeyListRow): KeySummary {
  return {
    keyId: r.id,
    display: r.displayPrefix,
    capabilities: r.capabilities,
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    revokedAt: r.revokedAt?.toISOString() ?? null,
  };
}

export async function listKeys(db: Database, owner: { merchantId: string } | { partnerId: string }): Promise<KeySummary[]> {
  if ('merchantId' in owner && !(await sql.merchantExists(db.pool, owner.merchantId))) throw new AccountError(`merchant ${owner.merchantId} not found`);
  if ('partnerId' in owner && !(await sql.partnerExists(db.pool, owner.partnerId))) throw new AccountError(`partner ${owner.partnerId} not found`);
  return (await sql.listApiKeys(db.pool, owner)).map(keySummary);
}

/**
 * The capabilities of a new key as a form names them: at least one, each known (§Authentication).
 * Throws §Errors field errors on `capabilities`.
 */
function keyCapabilities(values: readonly string[], allowed?: readonly Capability[]): Capability[] {
  const errors: FieldError[] = [];
  if (values.length === 0) errors.push({ field: 'capabilities', code: 'REQUIRED', message: 'choose at least one capability' });
  values.forEach((v, i) => {
    if (!isCapability(v)) errors.push({ field: `capabilities[${i}]`, code: 'ENUM', message: `must be one of ${CAPABILITIES.join(', ')}` });
    else if (allowed && !allowed.includes(v)) {
      errors.push({
        field: `capabilities[${i}]`,
        code: 'NOT_PERMITTED',
        message: allowed.length === 0 ? `your role may not give a key ${v}` : `your role may not give a key ${v}; it may give ${allowed.join(', ')}`,
      });
    }
  });
  if (errors.length > 0) throw validationError(errors);
  return [...new Set(values as Capability[])];
}

/** One of the merchant's own keys; another merchant's or a partner's is not found (§Authentication). */
export async function merchantKey(db: Database, merchantId: string, keyId: string): Promise<KeySummary> {
  const row = await sql.findApiKey(db.pool, keyId);
  if (!row || row.merchantId !== merchantId) throw notFound('key');
  return keySummary(row);
}

/**
 * Revokes a key at once (the next request with it is refused); revoking it again changes nothing.
 * With `scope`, only that merchant's own key: any other id is not found and nothing is revoked.
 */
export async function revokeKey(op: Operation, keyId: string, scope?: { merchantId: string }): Promise<{ key: KeySummary; revokedNow: boolean }> {
  const { db } = op;
  // The owner of a key never changes, so checking before the update is enough.
  if (scope) await merchantKey(db, scope.merchantId, keyId);
  return withTransaction(db, async (tx) => {
    const revokedNow = await sql.revokeApiKey(tx, keyId);
    const row = await sql.findApiKey(tx, keyId);
    if (!row) throw new AccountError(`key ${keyId} not found`);
    const key = keySummary(row);
    // A key revoked before is not revoked again: nothing to record.
    if (revokedNow && row.merchantId !== null) {
      await recordAudit(tx, op, {
        merchantId: row.merchantId,
        action: 'key.revoke',
        target: keyId,
        details: { display: key.display, capabilities: key.capabilities },
      });
    }
    return { key, revokedNow };
  });
}

export interface MerchantSummary {
  merchantId: string;
  name: string;
  createdAt: string;
  terminals: string[];
  liveKeys: number;
}

export async function listMerchants(db: Database): Promise<MerchantSummary[]> {
  return (await sql.listMerchants(db.pool)).map((m) => ({
    merchantId: m.id,
    name: m.name,
    createdAt: m.createdAt.toISOString(),
    terminals: m.terminals,
    liveKeys: m.liveKeys,
  }));
}

/**
 * When each key was last used, without a write per request: the keys used since the last flush are
 * remembered here and written in one UPDATE at most every `intervalMs`, and once more when the
 * process stops. "Last used" is therefore accurate to about a minute, which is what an operator
 * deciding whether a key can be revoked needs.
 */
export class KeyUsageRecorder {
  private used = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly now: () => Date,
    private readonly intervalMs = 60_000,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  note(keyId: string): void {
    this.used.add(keyId);
  }

  /** Writes what was noted; a failed write keeps the ids for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.used.size === 0) return;
      const ids = [...this.used];
      this.used = new Set();
      try {
        await sql.touchApiKeys(this.db.pool, ids, this.now());
      } catch {
        for (const id of ids) this.used.add(id);
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

export async function createPartner(db: Database, name: string): Promise<{ partnerId: string; apiKey: string }> {
  return withTransaction(db, async (tx) => {
    const partnerId = prefixedId('ptn');
    const apiKey = newApiKey();
    await sql.insertPartner(tx, partnerId, name);
    // A partner acts on webhooks only (§Webhooks); its merchants' links stay theirs.
    await sql.insertApiKey(tx, {
      id: prefixedId('key'),
      keyHash: hashSecret(apiKey),
      displayPrefix: displayFormOf(apiKey),
      merchantId: null,
      partnerId,
      capabilities: ['Webhooks'],
    });
    return { partnerId, apiKey };
  });
}

export async function linkPartner(db: Database, partnerId: string, merchantId: string): Promise<{ linked: boolean }> {
  if (!(await sql.partnerExists(db.pool, partnerId))) throw new AccountError(`partner ${partnerId} not found`);
  if (!(await sql.merchantExists(db.pool, merchantId))) throw new AccountError(`merchant ${merchantId} not found`);
  return { linked: await sql.insertPartnerLink(db.pool, partnerId, merchantId) };
}

/** At most this many allowed origins per merchant (each is compared on every create from a browser). */
const MAX_ORIGINS = 50;

/**
 * A browser origin as the Origin header carries it: http or https, a host and an optional port, no
 * path, query or fragment (a trailing slash is dropped). Returns its canonical form (lower case, no
 * default port), or null when it is not one.
 */
function canonicalOrigin(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.hostname === '' || u.username !== '' || u.password !== '') return null;
  if (u.pathname !== '/' || u.search !== '' || u.hash !== '' || /[?#]/.test(raw) || !/^[a-z]+:\/\/[^/]+\/?$/i.test(raw)) return null;
  return u.origin;
}

/**
 * Replaces the merchant's allowed origins (§Authentication) with these, each checked and kept in its
 * canonical form, duplicates once. Throws §Errors field errors on `allowedOrigins[i]`, and on
 * `allowedOrigins` for anything that is not a list of texts: such a value is refused, never read as
 * an empty list (which would allow every origin).
 */
export async function updateAllowedOrigins(op: Operation, merchantId: string, origins: unknown): Promise<string[]> {
  if (!Array.isArray(origins) || !origins.every((o): o is string => typeof o === 'string')) {
    throw validationError([{ field: 'allowedOrigins', code: 'TYPE', message: 'must be a list of origins, each a text' }]);
  }
  const errors: FieldError[] = [];
  const canonical: string[] = [];
  origins.forEach((o, i) => {
    const c = canonicalOrigin(o);
    if (c === null)
      errors.push({
        field: `allowedOrigins[${i}]`,
        code: 'FORMAT',
        message: 'must be an http or https origin: scheme, host and optional port, without a path',
      });
    else if (!canonical.includes(c)) canonical.push(c);
  });
  if (origins.length > MAX_ORIGINS) errors.push({ field: 'allowedOrigins', code: 'COUNT', message: `must list at most ${MAX_ORIGINS} origins` });
  if (errors.length > 0) throw validationError(errors);
  if (!(await sql.merchantExists(op.db.pool, merchantId))) throw new AccountError(`merchant ${merchantId} not found`);
  await withTransaction(op.db, async (tx) => {
    await sql.setAllowedOrigins(tx, merchantId, canonical);
    await recordAudit(tx, op, { merchantId, action: 'origins.update', target: merchantId, details: { allowedOrigins: canonical } });
  });
  return canonical;
}

/** A key's presented length is checked before hashing: anything else cannot be a key of ours. */
const plausibleKey = (k: string): boolean => k.length >= 16 && k.length <= 256;

function principalOf(row: sql.KeyRow & { displayPrefix: string | null }): Principal | undefined {
  const caps = new Set(row.capabilities.filter(isCapability));
  const display = row.displayPrefix;
  if (row.merchantId !== null) return { kind: 'merchant', keyId: row.id, merchantId: row.merchantId, capabilities: caps, display };
  if (row.partnerId !== null) return { kind: 'partner', keyId: row.id, partnerId: row.partnerId, capabilities: caps, display };
  return undefined;
}

/**
 * Authentication of concurrent requests in one query per event-loop turn (see BatchLoader). The
 * lookup is by SHA-256 of the presented key through a unique index: what is compared is a hash of a
 * 256-bit random secret, so a timing difference in the comparison tells an attacker nothing about
 * any stored key (§Authentication).
 */
const keyLoader = perDatabase(
  (db: Database) =>
    new BatchLoader<string, Principal>(async (hexHashes) => {
      const rows = await sql.findKeysByHashes(
        db.pool,
        hexHashes.map((h) => Buffer.from(h, 'hex')),
      );
      const found = new Map<string, Principal>();
      for (const row of rows) {
        const p = principalOf(row);
        if (p) found.set(row.keyHash.toString('hex'), p);
      }
      return found;
    }),
);

/** Resolves one API key to its principal, as a request's would be (CLI and tests). */
export async function authenticate(db: Database, presentedKey: string): Promise<Principal | undefined> {
  return new PrincipalCache().resolve(db, presentedKey);
}

/**
 * Resolves the keys of API requests. Lookups of requests that arrive together share one query
 * (docs/performance.md), each still read after its request arrived, so a revoked key is refused at once (§Authentication).
 *
 * Optionally it also remembers resolved keys for a few seconds (PAYLINKS_KEY_CACHE_MS), so that a
 * busy integration costs one key lookup per key every few seconds instead of one per request. The
 * price is that a revoked key keeps working in a running process for at most `ttlMs`, which is why
 * the default is 0. Only keys that resolved are kept, and the map is bounded, so random keys cannot
 * grow it.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(
    private readonly ttlMs = 0,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async resolve(db: Database, presentedKey: string): Promise<Principal | undefined> {
    if (!plausibleKey(presentedKey)) return undefined;
    if (this.ttlMs > 0) {
      const hit = this.entries.get(presentedKey);
      if (hit && hit.expiresAt > this.now()) return hit.principal;
      if (hit) this.entries.delete(presentedKey);
    }
    const principal = await keyLoader(db).get(hashSecret(presentedKey).toString('hex'));
    if (principal && this.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(presentedKey, { principal, expiresAt: this.now() + this.ttlMs });
    }
    return principal;
  }
}

export async function isEmpty(db: Database): Promise<boolean> {
  return (await sql.countMerchants(db.pool)) === 0;
}

/** Whether the terminal is one of this merchant's (§Authentication: any other is TERMINAL_NOT_FOUND to the caller). */
export async function merchantHasTerminal(db: Database, merchantId: string, terminalIdentifier: string): Promise<boolean> {
  return (await terminalOwners(db).get(terminalIdentifier)) === merchantId;
}

/** Terminal owners looked up by the creates of one turn together (docs/performance.md; see BatchLoader). */
const terminalOwners = perDatabase(
  (db: Database) =>
    new BatchLoader<string, string>(async (ids) => new Map((await sql.findTerminals(db.pool, ids)).map((t) => [t.terminalIdentifier, t.merchantId]))),
);

/** The browser origins a merchant allows to call create (§Authentication); empty means any. */
export async function allowedOrigins(db: Database, merchantId: string): Promise<string[]> {
  return sql.merchantAllowedOrigins(db.pool, merchantId);
}

/** A create from a browser: its Origin must be among the merchant's allowed origins, when it lists any. */
export async function checkOrigin(db: Database, merchantId: string, origin: string | undefined): Promise<void> {
  if (origin === undefined) return;
  const allowed = await allowedOrigins(db, merchantId);
  if (allowed.length === 0) return;
  const canonical = (o: string) => o.trim().replace(/\/+$/, '').toLowerCase();
  if (!allowed.some((a) => canonical(a) === canonical(origin))) {
    throw new ApiError('ORIGIN_NOT_ALLOWED', 'this Origin is not among the origins allowed for the merchant');
  }
}

/** A merchant's name, or undefined for no such merchant. */
export async function merchantNameOf(db: Database, merchantId: string): Promise<string | undefined> {
  return sql.merchantName(db.pool, merchantId);
}

/** Names of merchants read together by the requests of one turn (the portal's header on every page). */
export const merchantNames = perDatabase(
  (db: Database) => new BatchLoader<string, string>(async (ids) => new Map((await sql.merchantNames(db.pool, ids)).map((m) => [m.id, m.name]))),
);

export async function merchantExists(db: Database, merchantId: string): Promise<boolean> {
  return sql.merchantExists(db.pool, merchantId);
}

export async function partnerExists(db: Database, partnerId: string): Promise<boolean> {
  return sql.partnerExists(db.pool, partnerId);
}

/** The merchants a partner's people may work on: those linked to the partner. */
export async function merchantsOfPartner(db: Database, partnerId: string): Promise<{ merchantId: string; name: string }[]> {
  return (await sql.merchantsOfPartner(db.pool, partnerId)).map((m) => ({ merchantId: m.id, name: m.name }));
}

export async function isPartnerLinked(db: Database, partnerId: string, merchantId: string): Promise<boolean> {
  return sql.isPartnerLinked(db.pool, partnerId, merchantId);
}

export async function listTerminals(db: Database, merchantId: string): Promise<{ terminalIdentifier: string; createdAt: Date }[]> {
  return (await sql.listTerminals(db.pool, merchantId)).map((t) => ({ terminalIdentifier: t.terminalIdentifier, createdAt: t.createdAt }));
}
