import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import * as sql from './sql.js';

// The audit log (§The portal: audit log): who did what to a merchant's links, payments, keys, webhooks,
// themes and users. It is written after the action succeeded; owners read it in the portal.

export const AUDIT_ACTIONS = [
  'link.create',
  'link.update',
  'link.disable',
  'payment.capture',
  'payment.refund',
  'payment.reverse',
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
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface Actor {
  userId: string | null;
  email: string | null;
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
  await sql.insertEntry(q, {
    merchantId: entry.merchantId,
    actorUserId: entry.actor.userId,
    actorEmail: entry.actor.email,
    action: entry.action,
    target: entry.target ?? null,
    details: entry.details ?? {},
    at: clock.now(),
  });
}

/** A page of a merchant's entries, newest first; `next` continues after the last one. */
export async function auditPage(db: Database, merchantId: string, before: string | null, limit = 50): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const cursor = before !== null && /^\d{1,18}$/.test(before) ? before : null;
  const rows = await sql.listEntries(db.pool, merchantId, cursor, limit + 1);
  const entries = rows.slice(0, limit).map((r) => ({
    id: r.id,
    actor: { userId: r.actorUserId, email: r.actorEmail },
    action: r.action,
    target: r.target,
    details: r.details,
    at: r.createdAt,
  }));
  return { entries, next: rows.length > limit ? (entries.at(-1)?.id ?? null) : null };
}
