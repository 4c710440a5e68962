import { formatTimestamp } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { withTransaction } from '../../db/database.js';
import { keysetPage, type Keyset } from '../../db/keyset.js';
import type { Read } from '../../db/together.js';
import type { Principal } from '../../accounts/service.js';
import { ApiError, notFound, validationError } from '../../errors.js';
import { newPayfacReference, prefixedId } from '../../ids.js';
import { checkInput } from '../../validation.js';
import { AdvanceAllBody, RecoverBody, SandboxEventBody } from '../schemas.js';
import { buildBody, enqueueEvent, type EventType, type WebhookMessage } from '../events.js';
import { dueBacklog, notifyDeliveries } from '../delivery/sql.js';
import * as webhookSql from '../sql.js';
import * as sql from './sql.js';
import { auditWebhookChange, ownerOf, type WebhookServiceDeps, type WebhookWriteDeps } from '../service.js';
import { recordAudit } from '../../audit/service.js';

// The deliveries of the webhooks (§Deliveries): their trace (a list and one delivery with every
// attempt), replay and recovery, the sandbox's events and its moving of deliveries forward, the
// kept counts, the webhooks failing lately, and the backlog the metrics read. Registration and the
// webhooks' own state are in ../service.ts, whose note on checking a body holds here too.

/** Due deliveries not being sent, and the oldest due time (read by the metrics at scrape time). */
export async function deliveryBacklog(db: Database, now: Date): Promise<{ due: number; oldestDueAt: Date | null }> {
  return dueBacklog(db.pool, now);
}

// Kept counts

/** Folds the delivery counts' change rows (see sql.foldDeliveryCounts); the worker calls it now and then. */
export async function foldDeliveryCounts(deps: Pick<WebhookServiceDeps, 'db'>): Promise<number> {
  let folded = 0;
  for (;;) {
    const n = await sql.foldDeliveryCounts(deps.db.pool, 8, 100);
    folded += n;
    if (n < 100) return folded;
  }
}

// Trace and replay (§Deliveries)

/** A delivery as the trace shows it: as read, under the name deliveryId, with its times written out. */
export interface DeliveryView extends Omit<sql.DeliveryRow, 'id' | 'nextAttemptAt' | 'claimed' | 'createdAt'> {
  deliveryId: string;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** An attempt as the trace shows it: as recorded, with its time written out. */
export interface AttemptView extends Omit<sql.AttemptRow, 'sentAt'> {
  sentAt: string;
}

function deliveryView(d: sql.DeliveryRow): DeliveryView {
  // The rest of the row is shown as it is read.
  const { id, nextAttemptAt, claimed: _claimed, createdAt, ...asRead } = d;
  return {
    deliveryId: id,
    ...asRead,
    // While an attempt is in flight the row holds the lease's end; that is when it would be retried
    // if the worker sending it died.
    nextAttemptAt: d.state === 'Pending' && nextAttemptAt ? formatTimestamp(nextAttemptAt) : null,
    createdAt: formatTimestamp(createdAt),
  };
}

export async function listDeliveries(
  deps: WebhookServiceDeps,
  principal: Principal,
  filter: sql.DeliveryFilter,
  page: number,
  pageSize: number,
): Promise<{ data: DeliveryView[]; totalCount: number }> {
  // A correlation id that is not a UUID matches nothing (and must not reach a uuid cast).
  if (filter.correlationId !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(filter.correlationId)) {
    return { data: [], totalCount: 0 };
  }
  const r = await sql.listDeliveries(deps.db.pool, ownerOf(principal), filter, page, pageSize);
  return { data: r.rows.map(deliveryView), totalCount: r.total };
}

/**
 * A page of one webhook's deliveries (in one state, or any), newest first, by keyset (newer and older
 * from a cursor, src/db/keyset.ts): the portal's list of them.
 */
export async function deliveryPage(
  deps: WebhookServiceDeps,
  principal: Principal,
  filter: { webhookId: string; state: DeliveryView['state'] | null },
  keyset: Keyset | null,
  pageSize: number,
): Promise<{ deliveries: DeliveryView[]; older: string | null; newer: string | null }> {
  const rows = await sql.listWebhookDeliveries(deps.db.pool, ownerOf(principal), filter, keyset, pageSize + 1);
  const page = keysetPage(
    rows.map((d) => ({ ...d, reference: d.id })),
    pageSize,
    keyset,
  );
  return { deliveries: page.rows.map(deliveryView), older: page.older, newer: page.newer };
}

export async function getDelivery(
  deps: WebhookServiceDeps,
  principal: Principal,
  deliveryId: string,
): Promise<DeliveryView & { body: string; attempts: AttemptView[] }> {
  const d = await sql.findDelivery(deps.db.pool, ownerOf(principal), deliveryId);
  if (!d) throw notFound('delivery');
  const attempts = await sql.attemptsOf(deps.db.pool, d.id);
  return {
    ...deliveryView(d),
    body: d.body,
    attempts: attempts.map((a) => ({ ...a, sentAt: formatTimestamp(a.sentAt) })),
  };
}

/**
 * §Deliveries redeliver: a new delivery of the same event to the same webhook, with its own five attempts.
 * Its body is built now, signed with the webhook's current key (a receiver that rotated its keys can
 * verify it); the original delivery keeps its bytes.
 */
export async function redeliver(deps: WebhookWriteDeps, principal: Principal, deliveryId: string): Promise<{ deliveryId: string }> {
  return withTransaction(deps.db, async (tx) => {
    const d = await sql.findDelivery(tx, ownerOf(principal), deliveryId);
    if (!d) throw notFound('delivery');
    const w = await webhookSql.webhookSecrets(tx, d.webhookId);
    if (!w || w.deleted || !w.enabled) throw new ApiError('INVALID_STATE', 'the webhook of this delivery is disabled or deleted');
    const event = await webhookSql.findEvent(tx, d.eventId);
    if (!event) throw notFound('delivery');
    const id = prefixedId('dlv');
    const body = buildBody(event.message as WebhookMessage, deps.sealer.open(w.hmacKeySealed));
    // A fifo webhook's redelivery takes the last place in its order, like a new event's delivery.
    await webhookSql.lockOrders(tx, [d.webhookId]);
    await webhookSql.insertDeliveries(tx, {
      eventId: event.id,
      eventType: event.eventType,
      payfacReference: event.payfacReference,
      now: deps.clock.now(),
      deliveries: [{ id, webhookId: d.webhookId, body, viaListener: w.kind === 'listener' }],
    });
    await notifyDeliveries(tx);
    await auditWebhookChange(tx, deps, principal, { action: 'delivery.redeliver', target: d.id, details: { webhookId: d.webhookId, newDeliveryId: id } });
    return { deliveryId: id };
  });
}

/**
 * Re-queues every Failed delivery of the webhook made in [since, until) as a new delivery with attempts
 * of its own (signed with the webhook's current key, as a redelivery is). Asking again for the same
 * window re-queues nothing and answers the same count.
 */
export async function recoverFailed(
  deps: WebhookWriteDeps,
  principal: Principal,
  webhookId: string,
  body: unknown,
): Promise<{ requeued: number; repeated: boolean }> {
  const b = checkInput(RecoverBody, body, { nullMeansAbsent: true });
  const window = { since: new Date(b.since), until: b.until !== undefined ? new Date(b.until) : null };
  if (window.until !== null && window.until.getTime() <= window.since.getTime()) {
    throw validationError([{ field: 'until', code: 'RANGE', message: 'must be after since' }]);
  }
  return withTransaction(deps.db, async (tx) => {
    // The webhook row is locked: two recoveries of one window do not both re-queue.
    const w = await webhookSql.findWebhook(tx, ownerOf(principal), webhookId, { forUpdate: true });
    if (!w) throw notFound('webhook');
    const earlier = await sql.findRecovery(tx, webhookId, window.since, window.until);
    if (earlier !== undefined) return { requeued: earlier, repeated: true };
    const secrets = await webhookSql.webhookSecrets(tx, webhookId);
    if (!secrets || secrets.deleted || !secrets.enabled) throw new ApiError('INVALID_STATE', 'the webhook is disabled or deleted; enable it first');
    const hmacKey = deps.sealer.open(secrets.hmacKeySealed);
    const failed = await sql.failedDeliveriesIn(tx, webhookId, window.since, window.until);
    const now = deps.clock.now();
    await webhookSql.lockOrders(tx, [webhookId]);
    await webhookSql.insertDeliveryRows(
      tx,
      now,
      failed.map((f) => ({
        id: prefixedId('dlv'),
        eventId: f.eventId,
        eventType: f.eventType,
        payfacReference: f.payfacReference,
        webhookId,
        body: buildBody(f.message as WebhookMessage, hmacKey),
        viaListener: secrets.kind === 'listener',
      })),
    );
    await sql.insertRecovery(tx, { webhookId, since: window.since, until: window.until, requeued: failed.length, now });
    if (failed.length > 0) await notifyDeliveries(tx);
    await auditWebhookChange(tx, deps, principal, {
      action: 'webhook.recover',
      target: webhookId,
      details: { since: formatTimestamp(window.since), until: window.until === null ? null : formatTimestamp(window.until), requeued: failed.length },
    });
    return { requeued: failed.length, repeated: false };
  });
}

// Sandbox (§Deliveries)

/** Sandbox: an event made as if the acquirer had produced it; the body (SandboxEventBody) is checked here. */
export async function recordSandboxEvent(deps: WebhookWriteDeps, merchantId: string, body: unknown): Promise<{ eventId: string; payfacReference: string }> {
  const input = checkInput(SandboxEventBody, body, { nullMeansAbsent: true });
  const payfacReference = newPayfacReference();
  const { eventId } = await withTransaction(deps.db, async (tx) => {
    const made = await enqueueEvent(tx, deps, {
      merchantId,
      eventType: input.eventType as EventType,
      checkoutReference: input.checkoutReference ?? null,
      payfacReference,
      merchantReference: input.merchantReference ?? null,
      amount: input.amount,
      currency: input.currency,
      reason: input.reason ?? null,
      success: input.success ?? true,
      ...(input.additionalData ? { additionalData: input.additionalData } : {}),
    });
    await recordAudit(tx, deps, {
      merchantId,
      action: 'sandbox.event',
      target: payfacReference,
      details: { eventType: input.eventType, amount: input.amount, currency: input.currency, eventId: made.eventId },
    });
    return made;
  });
  return { eventId, payfacReference };
}

/** Sandbox: every pending delivery of the caller's webhooks (or of one of them) is due now. */
export async function advanceAllDeliveries(deps: WebhookWriteDeps, principal: Principal, body: unknown): Promise<{ advanced: number }> {
  const { webhookId } = checkInput(AdvanceAllBody, body, { nullMeansAbsent: true });
  return withTransaction(deps.db, async (tx) => {
    const owner = ownerOf(principal);
    if (webhookId !== undefined && !(await webhookSql.findWebhook(tx, owner, webhookId))) throw notFound('webhook');
    const advanced = await sql.makeAllDueNow(tx, owner, webhookId ?? null, deps.clock.now());
    // Nothing waiting, nothing moved: nothing to record.
    if (advanced > 0) {
      await notifyDeliveries(tx);
      await auditWebhookChange(tx, deps, principal, { action: 'sandbox.advance', target: webhookId ?? null, details: { advanced } });
    }
    return { advanced };
  });
}

export async function advanceDelivery(deps: WebhookWriteDeps, principal: Principal, deliveryId: string): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const d = await sql.findDelivery(tx, ownerOf(principal), deliveryId, { forUpdate: true });
    if (!d) throw notFound('delivery');
    if (d.state !== 'Pending') throw new ApiError('INVALID_STATE', `the delivery is ${d.state}; only a Pending delivery can be advanced`);
    // An attempt in flight already is the next attempt; leave its claim alone.
    if (!d.claimed) {
      await sql.makeDueNow(tx, d.id, deps.clock.now());
      await notifyDeliveries(tx);
      await auditWebhookChange(tx, deps, principal, { action: 'sandbox.advance', target: d.id });
    }
  });
}

export type FailingWebhook = sql.FailingRow;

/**
 * The webhooks whose deliveries of the last `days` days failed or are being retried, and whether
 * there is any webhook at all (the portal's overview: with none, nothing fails, and "every webhook
 * is delivering" would mislead).
 */
export function webhookHealthRead(
  deps: Pick<WebhookServiceDeps, 'clock'>,
  principal: Principal,
  days: number,
  limit = 10,
): Read<{ failing: FailingWebhook[]; hasWebhook: boolean }> {
  const since = new Date(deps.clock.now().getTime() - days * 86_400_000);
  return sql.webhookHealth(ownerOf(principal), since, limit);
}
