import { anyOfArray, preparedRows, type Queryable } from '../db/database.js';

export interface KeyRow {
  id: string;
  merchantId: string | null;
  partnerId: string | null;
  capabilities: string[];
}

export async function insertMerchant(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('INSERT INTO merchants (id, name) VALUES ($1, $2)', [id, name]);
}

export async function insertTerminal(db: Queryable, terminalIdentifier: string, merchantId: string): Promise<void> {
  await db.query('INSERT INTO terminals (terminal_identifier, merchant_id) VALUES ($1, $2)', [terminalIdentifier, merchantId]);
}

export async function insertPartner(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('INSERT INTO partners (id, name) VALUES ($1, $2)', [id, name]);
}

export async function insertPartnerLink(db: Queryable, partnerId: string, merchantId: string): Promise<boolean> {
  const r = await db.query('INSERT INTO partner_merchants (partner_id, merchant_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [partnerId, merchantId]);
  return (r.rowCount ?? 0) > 0;
}

export async function insertApiKey(
  db: Queryable,
  args: { id: string; keyHash: Buffer; displayPrefix: string; merchantId: string | null; partnerId: string | null; capabilities: readonly string[] },
): Promise<void> {
  await db.query('INSERT INTO api_keys (id, key_hash, display_prefix, merchant_id, partner_id, capabilities) VALUES ($1, $2, $3, $4, $5, $6)', [
    args.id,
    args.keyHash,
    args.displayPrefix,
    args.merchantId,
    args.partnerId,
    args.capabilities,
  ]);
}

export interface KeyListRow {
  id: string;
  displayPrefix: string | null;
  capabilities: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A merchant's or partner's keys, oldest first (never the hash). */
export async function listApiKeys(db: Queryable, owner: { merchantId: string } | { partnerId: string }): Promise<KeyListRow[]> {
  const [column, id] = 'merchantId' in owner ? ['merchant_id', owner.merchantId] : ['partner_id', owner.partnerId];
  const { rows } = await db.query<KeyListRow>(
    `SELECT id, display_prefix AS "displayPrefix", capabilities, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt" FROM api_keys WHERE ${column} = $1 ORDER BY created_at, id`,
    [id],
  );
  return rows;
}

export async function findApiKey(db: Queryable, id: string): Promise<(KeyListRow & { merchantId: string | null; partnerId: string | null }) | undefined> {
  const { rows } = await db.query<KeyListRow & { merchantId: string | null; partnerId: string | null }>(
    'SELECT id, display_prefix AS "displayPrefix", capabilities, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt", merchant_id AS "merchantId", partner_id AS "partnerId" FROM api_keys WHERE id = $1',
    [id],
  );
  return rows[0];
}

/** Records that these keys were used at `at` (never moving last_used_at backwards). */
export async function touchApiKeys(db: Queryable, ids: readonly string[], at: Date): Promise<void> {
  await db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = ANY($1::text[]) AND (last_used_at IS NULL OR last_used_at < $2)', [ids, at]);
}

interface MerchantListRow {
  id: string;
  name: string;
  createdAt: Date;
  terminals: string[];
  liveKeys: number;
}

export async function listMerchants(db: Queryable): Promise<MerchantListRow[]> {
  const { rows } = await db.query<MerchantListRow>(
    `SELECT m.id, m.name, m.created_at AS "createdAt",
            COALESCE((SELECT array_agg(t.terminal_identifier ORDER BY t.created_at, t.terminal_identifier) FROM terminals t WHERE t.merchant_id = m.id), '{}') AS terminals,
            (SELECT count(*)::int FROM api_keys k WHERE k.merchant_id = m.id AND k.revoked_at IS NULL) AS "liveKeys"
       FROM merchants m ORDER BY m.created_at, m.id`,
  );
  return rows;
}

/** Live keys among these hashes, in one round trip (batched authentication, docs/performance.md). */
export async function findKeysByHashes(db: Queryable, keyHashes: readonly Buffer[]): Promise<(KeyRow & { keyHash: Buffer; displayPrefix: string | null })[]> {
  return preparedRows<KeyRow & { keyHash: Buffer; displayPrefix: string | null }>(
    db,
    'accounts.findKeysByHashes',
    `SELECT key_hash AS "keyHash", id, display_prefix AS "displayPrefix", merchant_id AS "merchantId", partner_id AS "partnerId", capabilities FROM api_keys WHERE key_hash = ${anyOfArray('$1::bytea[]')} AND revoked_at IS NULL`,
    [keyHashes],
  );
}

export async function revokeApiKey(db: Queryable, id: string): Promise<boolean> {
  const r = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
  return (r.rowCount ?? 0) > 0;
}

export async function merchantExists(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM merchants WHERE id = $1', [id]);
  return rows.length > 0;
}

export async function partnerExists(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM partners WHERE id = $1', [id]);
  return rows.length > 0;
}

export async function countMerchants(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM merchants');
  return rows[0]?.n ?? 0;
}

/** The owners of these terminals, in one round trip (batched create checks, docs/performance.md). */
export async function findTerminals(db: Queryable, terminalIdentifiers: readonly string[]): Promise<{ terminalIdentifier: string; merchantId: string }[]> {
  return preparedRows<{ terminalIdentifier: string; merchantId: string }>(
    db,
    'accounts.findTerminals',
    `SELECT terminal_identifier AS "terminalIdentifier", merchant_id AS "merchantId" FROM terminals WHERE terminal_identifier = ${anyOfArray('$1::text[]')}`,
    [terminalIdentifiers],
  );
}

export async function findTerminal(db: Queryable, terminalIdentifier: string): Promise<{ merchantId: string } | undefined> {
  const { rows } = await db.query<{ merchantId: string }>({
    name: 'accounts.findTerminal',
    text: 'SELECT merchant_id AS "merchantId" FROM terminals WHERE terminal_identifier = $1',
    values: [terminalIdentifier],
  });
  return rows[0];
}

export async function merchantAllowedOrigins(db: Queryable, merchantId: string): Promise<string[]> {
  const { rows } = await db.query<{ allowedOrigins: string[] }>('SELECT allowed_origins AS "allowedOrigins" FROM merchants WHERE id = $1', [merchantId]);
  return rows[0]?.allowedOrigins ?? [];
}

export async function setAllowedOrigins(db: Queryable, merchantId: string, origins: readonly string[]): Promise<void> {
  await db.query('UPDATE merchants SET allowed_origins = $2 WHERE id = $1', [merchantId, origins]);
}

export async function merchantName(db: Queryable, merchantId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM merchants WHERE id = $1', [merchantId]);
  return rows[0]?.name;
}

/** Merchants by id with their names (the portal's header and merchant switcher). */
export async function merchantNames(db: Queryable, ids: readonly string[]): Promise<{ id: string; name: string }[]> {
  return preparedRows<{ id: string; name: string }>(db, 'accounts.merchantNames', `SELECT id, name FROM merchants WHERE id = ${anyOfArray('$1::text[]')}`, [
    ids,
  ]);
}

/** The merchants linked to a partner, by name. */
export async function merchantsOfPartner(db: Queryable, partnerId: string): Promise<{ id: string; name: string }[]> {
  const { rows } = await db.query<{ id: string; name: string }>(
    'SELECT m.id, m.name FROM partner_merchants pm JOIN merchants m ON m.id = pm.merchant_id WHERE pm.partner_id = $1 ORDER BY m.name, m.id',
    [partnerId],
  );
  return rows;
}

export async function isPartnerLinked(db: Queryable, partnerId: string, merchantId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM partner_merchants WHERE partner_id = $1 AND merchant_id = $2', [partnerId, merchantId]);
  return rows.length > 0;
}

export async function listTerminals(db: Queryable, merchantId: string): Promise<{ terminalIdentifier: string; createdAt: Date }[]> {
  const { rows } = await db.query<{ terminalIdentifier: string; createdAt: Date }>(
    'SELECT terminal_identifier AS "terminalIdentifier", created_at AS "createdAt" FROM terminals WHERE merchant_id = $1 ORDER BY created_at, terminal_identifier',
    [merchantId],
  );
  return rows;
}
