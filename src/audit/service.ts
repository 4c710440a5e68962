import type { Clock } from '../clock.js';
import { BatchWriter, perDatabase } from '../db/batch.js';
import type { Database, Queryable } from '../db/database.js';
import { keysetPage, parseCursor, type Direction, type PageCursors, type PageQuery } from '../db/keyset.js';
import * as sql from './sql.js';

// The audit log (§The portal: audit log): who did what to a merchant's links, payments, keys, webhooks,
// themes and users, in the portal or through the API with a key. It is written after the action
// succeeded; owners read it in the portal.

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
  // Made through the API only (src/http/apiAudit.ts).
  'checkout.create',
  'payment.charge',
  'token.disable',
  'sandbox.event',
  'sandbox.advance',
  'sandbox.settle',
  'promotion.create',
  'promotion.update',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: a portal user (both null: the operator), or an API key by its id and first and last characters. */
export interface Actor {
  userId: string | null;
  email: string | null;
  key?: { keyId: string; display: string | null };
}

export interface AuditEntry {
  id: string;
  actor: Actor;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  at: Date;
}

/** Records one action; `tx` may be the transaction of the action itself. */
export async function recordAudit(
  db: Database | Queryable,
  clock: Clock,
  entry: { merchantId: string; actor: Actor; action: AuditAction; target?: string | null; details?: Record<string, unknown> },
): Promise<void> {
  const q: Queryable = 'pool' in db ? db.pool : db;
  await sql.insertEntry(q, newEntry(clock, entry));
}

type EntryInput = { merchantId: string; actor: Actor; action: AuditAction; target?: string | null; details?: Record<string, unknown> };

function newEntry(clock: Clock, entry: EntryInput): sql.NewEntry {
  return {
    merchantId: entry.merchantId,
    actorUserId: entry.actor.userId,
    actorEmail: entry.actor.email,
    actorKeyId: entry.actor.key?.keyId ?? null,
    actorKeyDisplay: entry.actor.key?.display ?? null,
    action: entry.action,
    target: entry.target ?? null,
    details: entry.details ?? {},
    at: clock.now(),
  };
}

/** The API's entries of one turn written in one statement (docs/performance.md), as link creates are. */
const apiEntries = perDatabase(
  (db: Database) =>
    new BatchWriter<sql.NewEntry>(
      (entries) => sql.insertEntries(db.pool, entries),
      (entry) => sql.insertEntry(db.pool, entry),
    ),
);

/**
 * Records what an API call made with a key changed; settles once the entry is written. Calls that
 * arrive together share one INSERT, so the API's busiest operations pay one statement per turn.
 */
export async function recordApiAudit(
  db: Database,
  clock: Clock,
  entry: EntryInput & { actor: Actor & { key: { keyId: string; display: string | null } } },
): Promise<void> {
  await apiEntries(db).write(newEntry(clock, entry));
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
