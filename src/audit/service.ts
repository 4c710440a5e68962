import type { Actor } from '../actor.js';
import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import { keysetPage, parseCursor, type Direction, type PageCursors, type PageQuery } from '../db/keyset.js';
import * as sql from './sql.js';

// The audit log (§The portal: audit log): who did what to a merchant's links, payments, keys, webhooks,
// themes and users, in the portal, through the API with a key, or at the operator's command line. An
// entry is written by the operation it records, in that operation's transaction (recordAudit with its
// client): an operation that rolls back leaves no entry, and one that commits always has its entry,
// with the same details whichever face called it. Owners read it in the portal.

export const AUDIT_ACTIONS = [
  'link.create',
  'link.update',
  'link.disable',
  'payment.capture',
  'payment.refund',
  'payment.reverse',
  'payment.adjust',
  'key.create',
  'key.revoke',
  'terminal.add',
  'origins.update',
  'webhook.create',
  'webhook.update',
  'webhook.enable',
  'webhook.disable',
  'webhook.rotate',
  'webhook.delete',
  'webhook.recover',
  'delivery.redeliver',
  'webhook.test',
  'theme.create',
  'theme.update',
  'theme.delete',
  'user.invite',
  'user.reinvite',
  'user.remove',
  'user.role',
  'user.signIn',
  'user.password',
  'user.signOutEverywhere',
  'membership.accept',
  'membership.decline',
  'checkout.create',
  'payment.charge',
  'token.disable',
  'sandbox.event',
  'sandbox.advance',
  'sandbox.settle',
  'fee.update',
  'promotion.create',
  'promotion.update',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted, as an entry names them: a portal user, an API key by its id and first and last characters, or (all null) the operator. */
export interface EntryActor {
  userId: string | null;
  email: string | null;
  key?: { keyId: string; display: string | null };
}

export interface AuditEntry {
  id: string;
  actor: EntryActor;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  at: Date;
}

/** What an operation records of itself: the merchant whose log it goes to, what it did, to which object, and what changed (never a secret). */
export interface Audited {
  merchantId: string;
  action: AuditAction;
  target: string | null;
  details?: Record<string, unknown>;
}

/**
 * The names of the fields whose values differ between `before` and `after`, compared as values (the
 * database hands back JSON objects with their keys in its own order): what an update records of what
 * it changed, without the values.
 */
export function changedFields<K extends string>(fields: readonly K[], before: Readonly<Record<K, unknown>>, after: Readonly<Record<K, unknown>>): K[] {
  return fields.filter((f) => stableJson(before[f]) !== stableJson(after[f]));
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Whether what this actor does is recorded in a merchant's log (a partner's key acts in none). */
export function recordsAudit(actor: Actor): boolean {
  return actor.kind !== 'partner';
}

function newEntry(op: { clock: Clock; actor: Actor }, entry: Audited): sql.NewEntry {
  const { actor } = op;
  return {
    merchantId: entry.merchantId,
    actorUserId: actor.kind === 'user' ? actor.userId : null,
    actorEmail: actor.kind === 'user' ? actor.email : null,
    actorKeyId: actor.kind === 'key' ? actor.keyId : null,
    actorKeyDisplay: actor.kind === 'key' ? actor.display : null,
    action: entry.action,
    target: entry.target,
    details: entry.details ?? {},
    at: op.clock.now(),
  };
}

/** Records what an operation did, with the client of the operation's own transaction. */
export async function recordAudit(tx: Queryable, op: { clock: Clock; actor: Actor }, entry: Audited): Promise<void> {
  if (!recordsAudit(op.actor)) return;
  await sql.insertEntry(tx, newEntry(op, entry));
}

/**
 * The audit entries of rows that a statement of another module writes, written by that same
 * statement (a batch of link creates: one INSERT for the links and their entries). `sql` is a
 * data-modifying CTE that writes the entries whose target is among `rows`.`column`, so a row the
 * statement did not write has no entry; `value` is its parameter.
 */
export interface AuditOfRows {
  sql(param: string, rows: string, column: string): string;
  value: string;
}

export function auditOfRows(entries: readonly { op: { clock: Clock; actor: Actor }; entry: Audited }[]): AuditOfRows {
  const rows = entries.filter((e) => recordsAudit(e.op.actor)).map((e) => newEntry(e.op, e.entry));
  return { sql: sql.entriesOfRowsSql, value: JSON.stringify(rows) };
}

/** An entry's id from a list cursor (src/db/keyset.ts), or from a bare id (the older pager's links). */
function entryOf(direction: Direction, raw: unknown): { direction: Direction; id: string } | null {
  if (typeof raw === 'string' && /^\d{1,18}$/.test(raw)) return { direction, id: raw };
  const keyset = parseCursor(direction, raw);
  return keyset && /^\d{1,18}$/.test(keyset.reference) ? { direction, id: keyset.reference } : null;
}

/**
 * A page of a merchant's entries, newest first, by keyset: `after` and `before` are the cursors of the
 * pages beside it (`older`, `newer`; null where there is none). Entries written meanwhile never shift
 * a page.
 */
export async function auditPage(db: Database, merchantId: string, cursor: PageQuery, limit = 50): Promise<PageCursors & { entries: AuditEntry[] }> {
  const from = entryOf('newer', cursor.after) ?? entryOf('older', cursor.before);
  const rows = await sql.listEntries(db.pool, merchantId, from, limit + 1);
  const page = keysetPage(
    rows.map((r) => ({ ...r, reference: r.id })),
    limit,
    // The page's cursors are those of its first and last rows; of the cursor read, only its direction counts.
    from && { direction: from.direction, at: '', reference: from.id },
  );
  const entries = page.rows.map((r) => ({
    id: r.id,
    actor: { userId: r.actorUserId, email: r.actorEmail, ...(r.actorKeyId === null ? {} : { key: { keyId: r.actorKeyId, display: r.actorKeyDisplay } }) },
    action: r.action,
    target: r.target,
    details: r.details,
    at: r.createdAt,
  }));
  return { entries, older: page.older, newer: page.newer };
}
