import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordApiAudit, type AuditAction } from '../audit/service.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import type { AuthRequirement } from './auth.js';

// The audit log of what API keys change (§The portal's audit log): every call that changes something,
// made with a merchant's key and answered with success, is recorded in that merchant's log, with the
// key as the actor (its id and first and last characters, never the key), what it did and on which
// object. Owners read these entries beside the portal's own.
//
// Every API route that is not a read is named in API_AUDIT, with its entry or with null and the reason
// it has none; a route missing from it stops the app from starting, so a new operation cannot go
// unrecorded by oversight. The entry is written before the answer is sent, in one INSERT with the
// other calls of the same turn (recordApiAudit), so a caller that got its answer has its entry.
//
// A partner's key is not recorded here: what it changes (webhooks of its own) belongs to no merchant's
// log. An Idempotency-Key retry answered with the first answer changed nothing and is not recorded.

/** What a successful call carried: its path parameters, its body (as normalised) and its answer. */
interface Call {
  params: Record<string, unknown>;
  body: Record<string, unknown>;
  answer: Record<string, unknown>;
}

interface ApiAuditRule {
  action: AuditAction;
  /** The object the call changed. */
  target: (c: Call) => string | null;
  /** What else the entry says (amounts, the fields changed); never a secret. */
  details?: (c: Call) => Record<string, unknown>;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const param = (name: string) => (c: Call) => text(c.params[name]);
const field = (name: string) => (c: Call) => text(c.body[name]);
const answered = (name: string) => (c: Call) => text(c.answer[name]);

/** The body's own fields of these names, as sent (amounts, currencies, types). */
const fields =
  (...names: string[]) =>
  (c: Call): Record<string, unknown> =>
    Object.fromEntries(names.filter((n) => c.body[n] !== undefined).map((n) => [n, c.body[n]]));

/** Which fields an update sent (their names only: a value may be long, or a URL with credentials). */
const changedFields = (c: Call): Record<string, unknown> => ({ changed: Object.keys(c.body).filter((k) => k !== 'paymentLinkReference') });

const modification = (action: AuditAction): ApiAuditRule => ({
  action,
  target: field('payfacReference'),
  details: (c) => ({ ...fields('amount', 'currency', 'reference')(c), modification: c.answer.payfacReference }),
});

/** Every state-changing API route, by method and pattern: its entry, or null with the reason it has none. */
export const API_AUDIT: Readonly<Record<string, ApiAuditRule | null>> = {
  'POST /api/v1/paymentlinks/create': { action: 'link.create', target: answered('paymentLinkReference'), details: fields('type', 'amount', 'currency') },
  'POST /api/v1/paymentlinks/update': { action: 'link.update', target: field('paymentLinkReference'), details: changedFields },
  'POST /api/v1/paymentlinks/disable': { action: 'link.disable', target: field('paymentLinkReference') },
  'POST /api/v1/hostedcheckout': { action: 'checkout.create', target: answered('checkoutReference'), details: fields('amount', 'currency', 'reference') },
  // A read that older clients send as a POST.
  'POST /api/v1/hostedcheckout/status/:checkoutReference': null,
  'POST /api/v1/modification/capture': modification('payment.capture'),
  'POST /api/v1/modification/refund': modification('payment.refund'),
  'POST /api/v1/modification/reverse': modification('payment.reverse'),
  'POST /api/v1/modification/adjust': modification('payment.adjust'),
  'POST /api/v1/payment': { action: 'payment.charge', target: answered('payfacReference'), details: fields('amount', 'currency', 'reference') },
  // The token names a saved card; only its last characters are kept.
  'POST /api/v1/payment/disable-token': { action: 'token.disable', target: (c) => tail(field('tokenValue')(c)) },
  'POST /api/v1/webhooks': { action: 'webhook.create', target: answered('webhookId'), details: fields('eventTypes') },
  'POST /api/v1/webhooks/listeners': {
    action: 'webhook.create',
    target: answered('webhookId'),
    details: (c) => ({ ...fields('eventTypes')(c), listener: true }),
  },
  'POST /api/v1/webhooks/deliveries/:deliveryId/redeliver': {
    action: 'delivery.redeliver',
    target: param('deliveryId'),
    details: (c) => ({ newDeliveryId: c.answer.deliveryId }),
  },
  // `paylinks listen` reporting its receiver's answer to one delivery: the delivery's own record.
  'POST /api/v1/webhooks/:webhookId/listen/attempts': null,
  'POST /api/v1/webhooks/:webhookId/update': { action: 'webhook.update', target: param('webhookId'), details: changedFields },
  'POST /api/v1/webhooks/:webhookId/delete': { action: 'webhook.delete', target: param('webhookId') },
  'POST /api/v1/webhooks/:webhookId/recover': { action: 'webhook.recover', target: param('webhookId'), details: fields('since', 'until') },
  'POST /api/v1/webhooks/:webhookId/rotate-secrets': { action: 'webhook.rotate', target: param('webhookId') },
  'POST /api/v1/sandbox/events': { action: 'sandbox.event', target: answered('payfacReference'), details: fields('eventType', 'amount', 'currency') },
  'POST /api/v1/sandbox/deliveries/advance': { action: 'sandbox.advance', target: field('webhookId') },
  'POST /api/v1/sandbox/deliveries/:deliveryId/advance': { action: 'sandbox.advance', target: param('deliveryId') },
  'POST /api/v1/promotioncodes': {
    action: 'promotion.create',
    target: (c) => text((c.answer.promotionCode as Record<string, unknown> | undefined)?.promotionCodeId),
    details: fields('code', 'percentOff', 'amountOff', 'currency'),
  },
  'POST /api/v1/promotioncodes/:promotionCodeId/update': { action: 'promotion.update', target: param('promotionCodeId'), details: changedFields },
  'POST /api/v1/sandbox/settlements/run': {
    action: 'sandbox.settle',
    target: () => null,
    details: (c) => ({ settlements: Array.isArray(c.answer.data) ? c.answer.data.map((b: { settlementId?: unknown }) => b.settlementId) : [] }),
  },
};

function tail(v: string | null): string | null {
  return v === null ? null : `…${v.slice(-4)}`;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when an Idempotency-Key retry was answered with the first answer (nothing changed). */
    replayed: boolean;
  }
}

const asRecord = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Installs the recording on the API's routes; call it before they are registered. */
export function installApiAudit(api: FastifyInstance, deps: { db: Database; clock: Clock }): void {
  api.decorateRequest('replayed', false);
  api.addHook('onRoute', (route) => {
    const config = route.config as { auth?: AuthRequirement } | undefined;
    if (!config?.auth) return;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (READS.has(method)) continue;
      const name = `${method} ${route.url}`;
      const rule = API_AUDIT[name];
      if (rule === undefined) throw new Error(`${name} changes state but is not in API_AUDIT (src/http/apiAudit.ts): name its audit entry, or null and why`);
      if (rule === null) continue;
      const own = route.preSerialization === undefined ? [] : Array.isArray(route.preSerialization) ? route.preSerialization : [route.preSerialization];
      route.preSerialization = [...own, recorder(rule)];
    }
  });

  function recorder(rule: ApiAuditRule) {
    return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
      const p = request.principal;
      if (reply.statusCode >= 300 || request.replayed || !p || p.kind !== 'merchant') return payload;
      const call: Call = { params: asRecord(request.params), body: asRecord(request.body), answer: asRecord(payload) };
      await recordApiAudit(deps.db, deps.clock, {
        merchantId: p.merchantId,
        actor: { userId: null, email: null, key: { keyId: p.keyId, display: p.display ?? null } },
        action: rule.action,
        target: rule.target(call),
        details: rule.details?.(call) ?? {},
      });
      return payload;
    };
  }
}
