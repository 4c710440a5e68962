import type { Actor } from '../actor.js';
import { changedFields, recordAudit, type Audited } from '../audit/service.js';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import { formatTimestamp } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { keysetPage, type Keyset } from '../db/keyset.js';
import type { Principal } from '../accounts/service.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { prefixedId } from '../ids.js';
import { idempotentCreate } from '../idempotency/service.js';
import { checkInput } from '../validation.js';
import { ListenerBody, RegisterBody, RotateQuery, UpdateBody } from './schemas.js';
import { checkProductionAddress, checkUrlShape, type Resolver } from './addressRules.js';

export type { Resolver } from './addressRules.js';
import { enqueueEvent, type EventType } from './events.js';
import { newHmacKey, newWebhookApiKey } from './secrets.js';
import { signingSecretOf } from './delivery/sign.js';
import type { Sealer } from '../sealing.js';
import * as sql from './sql.js';
import * as listenSql from './listen/sql.js';

// Webhook registration (§Webhooks), listener webhooks and endpoint health; the deliveries (trace, replay,
// recovery, the sandbox, §Deliveries) are in deliveries/service.ts. Only routes.ts knows HTTP.
// Each operation that takes a body takes it as unknown and checks it against its schema in
// schemas.ts (§Clients in the field, §Errors) before anything else: the API's routes and the portal's
// webhook pages pass what they were sent or built, and get the same answer.

export interface WebhookServiceDeps {
  config: Config;
  db: Database;
  clock: Clock;
  /** Seals the webhooks' secrets at rest and opens them to sign and show. */
  sealer: Sealer;
  /** DNS for the production address rule (tests inject one). */
  resolver?: Resolver;
}

/** What an operation that changes a webhook is given besides: who makes the change. */
export type WebhookWriteDeps = WebhookServiceDeps & { actor: Actor };

/**
 * Records a change of the principal's in its merchant's audit log, in the change's transaction (a
 * partner's webhooks belong to no merchant's log).
 */
export async function auditWebhookChange(tx: Queryable, deps: WebhookWriteDeps, principal: Principal, entry: Omit<Audited, 'merchantId'>): Promise<void> {
  if (principal.kind !== 'merchant') return;
  await recordAudit(tx, deps, { merchantId: principal.merchantId, ...entry });
}

/**
 * A webhook's address as the audit log keeps it: its origin (scheme, host, port). A receiver's path
 * or query may carry a secret of its own (a chat service's webhook URL), and the log outlives it.
 */
export function auditedUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** The service's dependencies taken from what the composition root passes (the API's and the portal's routes). */
export function webhookServiceDeps(deps: Omit<WebhookServiceDeps, 'resolver'> & { webhookResolver?: Resolver | null | undefined }): WebhookServiceDeps {
  return {
    config: deps.config,
    db: deps.db,
    clock: deps.clock,
    sealer: deps.sealer,
    ...(deps.webhookResolver ? { resolver: deps.webhookResolver } : {}),
  };
}

export function ownerOf(p: Principal): sql.Owner {
  return p.kind === 'merchant' ? { merchantId: p.merchantId, partnerId: null } : { merchantId: null, partnerId: p.partnerId };
}

function ownerId(o: sql.Owner): string {
  return (o.merchantId ?? o.partnerId) as string;
}

export interface WebhookView {
  webhookId: string;
  /** `url` (delivered to its URL) or `listener` (delivered to `paylinks listen`). */
  kind: sql.WebhookKind;
  url: string;
  eventTypes: string[];
  description: string;
  enabled: boolean;
  /** Attempts in flight at once (the webhook's own, else the operator's default). */
  maxInFlight: number;
  /** Deliveries per second at most; null: no limit. */
  rateLimit: number | null;
  /** `fifo`: one delivery at a time, in the order the events were recorded; `unordered`: no set order. */
  ordering: sql.WebhookOrdering;
  /** When a delivery to it last succeeded (to the minute); null: never. */
  lastSuccessAt: string | null;
  /** Since when its deliveries have failed with no success in between; null while healthy. */
  failingSince: string | null;
  /** Deliveries that ended Failed since the last success. */
  failedDeliveries: number;
  /** `failing`: disabled automatically because its deliveries kept failing; null otherwise. */
  disabledReason: 'failing' | null;
  /** When it was disabled; null while enabled. */
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const timestampOrNull = (d: Date | null): string | null => (d === null ? null : formatTimestamp(d));

function view(w: sql.WebhookRow, deps: Pick<WebhookServiceDeps, 'config'>): WebhookView {
  return {
    webhookId: w.id,
    kind: w.kind,
    url: w.url,
    eventTypes: w.eventTypes,
    description: w.description,
    enabled: w.enabled,
    maxInFlight: w.maxInFlight ?? deps.config.webhookMaxInFlightPerEndpoint,
    rateLimit: w.rateLimit,
    ordering: w.ordering,
    lastSuccessAt: timestampOrNull(w.lastSuccessAt),
    failingSince: timestampOrNull(w.failingSince),
    failedDeliveries: w.failedDeliveries,
    disabledReason: w.disabledReason,
    disabledAt: timestampOrNull(w.disabledAt),
    createdAt: formatTimestamp(w.createdAt),
    updatedAt: formatTimestamp(w.updatedAt),
  };
}

/** interface §6.5 always; in production also the address rule of §Webhooks. Throws §Errors field errors. */
async function checkUrl(deps: WebhookServiceDeps, url: string): Promise<void> {
  const shape = checkUrlShape(url, { allowLocalHttp: deps.config.env === 'development' });
  if (shape) throw validationError([{ field: 'url', ...shape }]);
  if (deps.config.env === 'production') {
    const problem = await checkProductionAddress(url, deps.resolver);
    if (problem) throw validationError([{ field: 'url', ...problem }]);
  }
}

function uniqueEventTypes(types: readonly EventType[] | undefined): EventType[] {
  return [...new Set(types ?? [])];
}

interface RegisterInput {
  url: string;
  eventTypes?: EventType[];
  description?: string;
  maxInFlight?: number;
  rateLimit?: number | null;
  ordering?: sql.WebhookOrdering;
}

/** A registration's body, checked, with only the fields it was given. */
function registerInputOf(input: unknown): RegisterInput {
  const b = checkInput(RegisterBody, input, { nullMeansAbsent: true });
  return {
    url: b.url,
    ...(b.eventTypes ? { eventTypes: b.eventTypes as EventType[] } : {}),
    ...(b.description !== undefined ? { description: b.description } : {}),
    ...(b.maxInFlight !== undefined ? { maxInFlight: b.maxInFlight } : {}),
    ...(b.rateLimit !== undefined ? { rateLimit: b.rateLimit } : {}),
    ...(b.ordering !== undefined ? { ordering: b.ordering } : {}),
  };
}

export type RegisteredWebhook = WebhookView & { apiKey: string; hmacKey: string; signingSecret: string };

/** The name under which registrations' answers are kept for their Idempotency-Keys. */
export const REGISTER_OPERATION = 'webhooks.register';

/** Register a webhook (§Webhooks): the body (RegisterBody) is checked here, then its URL against the address rules. */
export async function registerWebhook(
  deps: WebhookWriteDeps,
  principal: Principal,
  given: unknown,
  idempotencyKey: string | undefined,
): Promise<RegisteredWebhook> {
  const input = registerInputOf(given);
  const owner = ownerOf(principal);
  // A retry's first answer was already sent by the create pipeline (even if the URL's host no longer
  // passes the address rules); a concurrent twin is caught by idempotentCreate.
  const idempotency = { ownerId: ownerId(owner), key: idempotencyKey, operation: REGISTER_OPERATION, body: input };
  await checkUrl(deps, input.url);
  const { body, replayed } = await idempotentCreate(deps, idempotency, async (tx) => {
    const apiKey = newWebhookApiKey();
    const hmacKey = newHmacKey();
    const row = await sql.insertWebhook(tx, {
      id: prefixedId('wh'),
      owner,
      url: input.url,
      eventTypes: uniqueEventTypes(input.eventTypes),
      description: input.description ?? '',
      maxInFlight: input.maxInFlight ?? null,
      rateLimit: input.rateLimit ?? null,
      ordering: input.ordering ?? 'unordered',
      apiKeySealed: deps.sealer.seal(apiKey),
      hmacKeySealed: deps.sealer.seal(hmacKey),
      now: deps.clock.now(),
    });
    await auditWebhookChange(tx, deps, principal, {
      action: 'webhook.create',
      target: row.id,
      details: { url: auditedUrl(row.url), eventTypes: row.eventTypes, description: row.description },
    });
    return { ...view(row, deps), apiKey, hmacKey, signingSecret: signingSecretOf(hmacKey) };
  });
  // A concurrent twin's answer, kept under the key, may be an earlier release's.
  return replayed ? (keptRegistration(deps, body) as unknown as RegisteredWebhook) : body;
}

/**
 * A registration's answer as kept under its Idempotency-Key (24 hours), in today's shape. Releases
 * before kept fewer fields: the webhook's kind, limits, order and health, and the Standard Webhooks
 * secret, came later. What such an answer lacks is what the webhook then was: a URL webhook (listeners
 * are not registered here), the default max in flight, no rate limit, unordered, healthy.
 */
export function keptRegistration(deps: Pick<WebhookServiceDeps, 'config'>, answer: object): Record<string, unknown> {
  const kept = answer as Record<string, unknown>;
  const hmacKey = typeof kept.hmacKey === 'string' ? kept.hmacKey : '';
  return {
    kind: 'url',
    maxInFlight: deps.config.webhookMaxInFlightPerEndpoint,
    rateLimit: null,
    ordering: 'unordered',
    lastSuccessAt: null,
    failingSince: null,
    failedDeliveries: 0,
    disabledReason: null,
    disabledAt: null,
    ...(hmacKey !== '' ? { signingSecret: signingSecretOf(hmacKey) } : {}),
    ...kept,
  };
}

export async function listWebhooks(
  deps: WebhookServiceDeps,
  principal: Principal,
  page: number,
  pageSize: number,
): Promise<{ data: WebhookView[]; totalCount: number }> {
  const r = await sql.listWebhooks(deps.db.pool, ownerOf(principal), page, pageSize);
  return { data: r.rows.map((w) => view(w, deps)), totalCount: r.total };
}

/**
 * Whether an event of this type of the merchant would reach a webhook now: an enabled one of its own
 * or of a linked partner's that takes the type (the selection enqueueEvent makes). The portal says a
 * modification's webhook follows only when one will.
 */
export async function eventReachesWebhook(deps: { db: Database }, merchantId: string, eventType: EventType): Promise<boolean> {
  return (await sql.webhooksForEvent(deps.db.pool, merchantId, eventType)).length > 0;
}

/** A page of the caller's webhooks, newest first, by keyset (newer and older from a cursor, src/db/keyset.ts): the portal's list. */
export async function webhookPage(
  deps: WebhookServiceDeps,
  principal: Principal,
  keyset: Keyset | null,
  pageSize: number,
): Promise<{ webhooks: WebhookView[]; older: string | null; newer: string | null }> {
  const rows = await sql.listWebhooksByKeyset(deps.db.pool, ownerOf(principal), keyset, pageSize + 1);
  const page = keysetPage(
    rows.map((w) => ({ ...w, reference: w.id })),
    pageSize,
    keyset,
  );
  return { webhooks: page.rows.map((w) => view(w, deps)), older: page.older, newer: page.newer };
}

export async function getWebhook(deps: WebhookServiceDeps, principal: Principal, webhookId: string): Promise<WebhookView> {
  const w = await sql.findWebhook(deps.db.pool, ownerOf(principal), webhookId);
  if (!w) throw notFound('webhook');
  return view(w, deps);
}

/** Update a webhook (§Webhooks): the body (UpdateBody) is checked here; a field left out keeps its value, rateLimit null removes the limit. */
export async function updateWebhook(deps: WebhookWriteDeps, principal: Principal, webhookId: string, body: unknown): Promise<WebhookView> {
  const input = checkInput(UpdateBody, body, { nullMeansAbsent: false });
  if (input.url !== undefined) await checkUrl(deps, input.url);
  return withTransaction(deps.db, async (tx) => {
    const w = await sql.findWebhook(tx, ownerOf(principal), webhookId, { forUpdate: true });
    if (!w) throw notFound('webhook');
    if (w.kind === 'listener' && input.url !== undefined) {
      throw validationError([{ field: 'url', code: 'NOT_APPLICABLE', message: 'a listener webhook delivers to paylinks listen and has no URL' }]);
    }
    if (w.kind === 'listener' && input.ordering === 'fifo') {
      throw validationError([{ field: 'ordering', code: 'NOT_APPLICABLE', message: 'a listener webhook delivers to paylinks listen, which keeps no order' }]);
    }
    // A change of ordering waits for the transactions making this webhook's deliveries (sql.lockOrders).
    const reorder = input.ordering !== undefined && input.ordering !== w.ordering ? input.ordering : null;
    if (reorder !== null) await sql.lockOrders(tx, [w.id]);
    const now = deps.clock.now();
    const updated = await sql.updateWebhook(tx, {
      id: w.id,
      url: input.url ?? w.url,
      eventTypes: input.eventTypes !== undefined ? uniqueEventTypes(input.eventTypes as EventType[]) : w.eventTypes,
      description: input.description ?? w.description,
      enabled: input.enabled ?? w.enabled,
      maxInFlight: input.maxInFlight ?? w.maxInFlight,
      rateLimit: input.rateLimit !== undefined ? input.rateLimit : w.rateLimit,
      now,
    });
    if (w.enabled && !updated.enabled) await sql.failPendingDeliveries(tx, w.id, now);
    const after = reorder !== null ? { ...updated, ordering: reorder } : updated;
    if (reorder !== null) await sql.setOrdering(tx, w.id, reorder);
    // What changed, by name (the values stay out of the log); turning it on or off alone is said as such.
    const changed = changedFields(['url', 'eventTypes', 'description', 'enabled', 'maxInFlight', 'rateLimit', 'ordering'] as const, w, after);
    if (changed.length === 1 && changed[0] === 'enabled') {
      await auditWebhookChange(tx, deps, principal, { action: after.enabled ? 'webhook.enable' : 'webhook.disable', target: w.id });
    } else if (changed.length > 0) {
      await auditWebhookChange(tx, deps, principal, { action: 'webhook.update', target: w.id, details: { changed } });
    }
    return view(after, deps);
  });
}

export async function deleteWebhook(deps: WebhookWriteDeps, principal: Principal, webhookId: string): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const w = await sql.findWebhook(tx, ownerOf(principal), webhookId, { forUpdate: true });
    if (!w) throw notFound('webhook');
    const now = deps.clock.now();
    await sql.softDeleteWebhook(tx, w.id, now);
    await sql.failPendingDeliveries(tx, w.id, now);
    await auditWebhookChange(tx, deps, principal, { action: 'webhook.delete', target: w.id, details: { url: auditedUrl(w.url) } });
  });
}

/**
 * New secrets, shown once. Attempts from now on carry the new apiKey; bodies of deliveries already
 * created keep the signature they were built with (§Deliveries: a delivery's bytes never change).
 */
/** How long the previous HMAC key stays valid after a rotation, unless asked otherwise (at most 168 hours: RotateQuery in schemas.ts). */
export const DEFAULT_OVERLAP_HOURS = 24;

/**
 * New apiKey and hmacKey. For `overlapHours` (default 24, at most 7 days, 0 for none) the previous HMAC
 * key stays valid: each attempt's webhook-signature header carries a signature under it beside the new
 * one, so a receiver holding the old signingSecret keeps accepting deliveries while it is updated.
 */
export async function rotateSecrets(
  deps: WebhookWriteDeps,
  principal: Principal,
  webhookId: string,
  options: unknown,
): Promise<{ webhookId: string; apiKey: string; hmacKey: string; signingSecret: string; previousSecretValidUntil: string | null }> {
  // The options arrive as a query string (`overlapHours=48`), so they are checked as text is.
  const { overlapHours = DEFAULT_OVERLAP_HOURS } = checkInput(RotateQuery, options ?? {}, { nullMeansAbsent: false, text: true });
  return withTransaction(deps.db, async (tx) => {
    const w = await sql.findWebhook(tx, ownerOf(principal), webhookId, { forUpdate: true });
    if (!w) throw notFound('webhook');
    const apiKey = newWebhookApiKey();
    const hmacKey = newHmacKey();
    const now = deps.clock.now();
    const previousUntil = overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000) : null;
    await sql.setWebhookSecrets(tx, { id: w.id, apiKeySealed: deps.sealer.seal(apiKey), hmacKeySealed: deps.sealer.seal(hmacKey), previousUntil, now });
    const previousSecretValidUntil = previousUntil ? formatTimestamp(previousUntil) : null;
    await auditWebhookChange(tx, deps, principal, { action: 'webhook.rotate', target: w.id, details: { overlapHours, previousSecretValidUntil } });
    return {
      webhookId: w.id,
      apiKey,
      hmacKey,
      signingSecret: signingSecretOf(hmacKey),
      previousSecretValidUntil,
    };
  });
}

/** While a rotation's overlap lasts, until when the previous HMAC key still signs beside the new one; else null. */
export async function previousSecretValidUntil(deps: WebhookServiceDeps, principal: Principal, webhookId: string): Promise<string | null> {
  const found = await sql.previousSecretsUntil(deps.db.pool, ownerOf(principal), webhookId);
  if (!found) throw notFound('webhook');
  const { until } = found;
  return until !== null && until.getTime() > deps.clock.now().getTime() ? formatTimestamp(until) : null;
}

// Listener webhooks: delivered to `paylinks listen` over a stream it opens (see listen/hub.ts)

/** A listener whose stream has not been seen for this long is free to be reused by the next `listen`. */
const LISTENER_STALE_MS = 60_000;

type RegisteredListener = RegisteredWebhook & { reused: boolean };

/**
 * A listener webhook for `paylinks listen`. A listener of the same owner and event types that no CLI
 * has had open for a minute (one that died without removing it) is reused, secrets and all;
 * otherwise a new one is made. Its URL is a name, `listen:{webhookId}`: it is never dialled.
 */
export async function registerListener(deps: WebhookWriteDeps, principal: Principal, body: unknown): Promise<RegisteredListener> {
  const input = checkInput(ListenerBody, body, { nullMeansAbsent: true });
  const owner = ownerOf(principal);
  const eventTypes = uniqueEventTypes(input.eventTypes as EventType[] | undefined).sort();
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    const stale = await listenSql.takeStaleListener(tx, owner, eventTypes, new Date(now.getTime() - LISTENER_STALE_MS), now);
    if (stale) {
      const row = await sql.findWebhook(tx, owner, stale.id);
      if (!row) throw notFound('webhook');
      const hmacKey = deps.sealer.open(stale.hmacKeySealed);
      // Its secrets are handed to whoever asked: recorded as a listener made, and that it was one kept.
      await auditWebhookChange(tx, deps, principal, {
        action: 'webhook.create',
        target: row.id,
        details: { eventTypes: row.eventTypes, description: row.description, listener: true, reused: true },
      });
      return { ...view(row, deps), apiKey: deps.sealer.open(stale.apiKeySealed), hmacKey, signingSecret: signingSecretOf(hmacKey), reused: true };
    }
    const id = prefixedId('wh');
    const apiKey = newWebhookApiKey();
    const hmacKey = newHmacKey();
    const row = await sql.insertWebhook(tx, {
      id,
      owner,
      url: `listen:${id}`,
      eventTypes,
      description: input.description ?? 'paylinks listen',
      apiKeySealed: deps.sealer.seal(apiKey),
      hmacKeySealed: deps.sealer.seal(hmacKey),
      now,
      kind: 'listener',
    });
    await auditWebhookChange(tx, deps, principal, {
      action: 'webhook.create',
      target: id,
      details: { eventTypes: row.eventTypes, description: row.description, listener: true },
    });
    return { ...view(row, deps), apiKey, hmacKey, signingSecret: signingSecretOf(hmacKey), reused: false };
  });
}

/** The caller's listener webhook, or 404 (another owner's) / 409 (a URL webhook). */
export async function requireListener(deps: WebhookServiceDeps, principal: Principal, webhookId: string): Promise<WebhookView> {
  const w = await sql.findWebhook(deps.db.pool, ownerOf(principal), webhookId);
  if (!w) throw notFound('webhook');
  if (w.kind !== 'listener') throw new ApiError('INVALID_STATE', 'this webhook delivers to its URL; only a listener webhook (paylinks listen) has a stream');
  if (!w.enabled) throw new ApiError('INVALID_STATE', 'this listener webhook is disabled');
  return view(w, deps);
}

// Endpoint health

/**
 * Disables every enabled URL webhook whose deliveries have failed for `days` days with no success in
 * between (by the injected clock): its pending deliveries end as Failed (as when a person disables
 * it), and an EndpointDisabled event, in the same transaction, goes to the merchant's other enabled
 * webhooks and stays recorded. Each webhook in its own transaction; one that succeeded or was changed
 * meanwhile is left alone. Returns the webhooks disabled.
 */
export async function disableFailingWebhooks(deps: Pick<WebhookServiceDeps, 'db' | 'clock' | 'sealer'>, days: number): Promise<string[]> {
  if (days <= 0) return [];
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  const disabled: string[] = [];
  for (const id of await sql.webhooksFailingSince(deps.db.pool, cutoff)) {
    const done = await withTransaction(deps.db, async (tx) => {
      const w = await sql.disableFailing(tx, id, cutoff, now);
      if (!w) return false;
      await sql.failPendingDeliveries(tx, id, now);
      if (w.merchantId !== null) {
        const failingSince = formatTimestamp(w.failingSince ?? now);
        await enqueueEvent(tx, deps, {
          merchantId: w.merchantId,
          eventType: 'EndpointDisabled',
          checkoutReference: null,
          payfacReference: w.id,
          merchantReference: null,
          amount: 0,
          currency: '',
          reason: `deliveries to ${w.url} failed since ${failingSince} with no success; the webhook was disabled`,
          success: false,
          additionalData: {
            webhookId: w.id,
            url: w.url,
            failingSince,
            lastSuccessAt: w.lastSuccessAt === null ? '' : formatTimestamp(w.lastSuccessAt),
            failedDeliveries: String(w.failedDeliveries),
          },
        });
      }
      return true;
    });
    if (done) disabled.push(id);
  }
  return disabled;
}
