import type { FastifyRequest } from 'fastify';
import type { App, AppDeps } from '../app.js';
import type { Principal } from '../accounts/service.js';
import { ApiError } from '../errors.js';
import { merchantOf } from '../http/auth.js';
import { EnvelopeOnly, envelope } from '../http/envelope.js';
import { readIdempotencyKey } from '../idempotency/service.js';
import type { EventType } from './events.js';
import * as s from './schemas.js';
import * as service from './service.js';

// Webhook registration (D13), delivery trace and replay, sandbox (D14). Partner keys are admitted on
// every webhook route (they own webhooks too); the sandbox event is the merchant's own.

const webhooksAuth = { auth: { anyOf: ['Webhooks'] as const, partners: true } };

function principalOf(request: FastifyRequest): Principal {
  const p = request.principal;
  if (!p) throw new ApiError('UNAUTHENTICATED');
  return p;
}

export async function webhookRoutes(app: App, deps: AppDeps): Promise<void> {
  const svc: service.WebhookServiceDeps = { config: deps.config, db: deps.db, clock: deps.clock, ...(deps.webhookResolver ? { resolver: deps.webhookResolver } : {}) };
  const tags = ['Webhooks'];
  // The app's preSerialization hook would add the envelope too; adding it here lets the response
  // schema's type (which lists the envelope) check the handler.
  const ok = <T extends object>(request: FastifyRequest, body: T) => ({ ...body, ...envelope(request.id, deps.clock) });

  app.post(
    '/webhooks',
    {
      config: { ...webhooksAuth, normalize: 'create' },
      schema: { tags, summary: 'Register a webhook (D13)', body: s.RegisterBody, response: { 200: s.RegisterResponse } },
    },
    async (request) => {
      const key = readIdempotencyKey(request.headers['idempotency-key']);
      const body = request.body;
      return ok(request, await service.registerWebhook(svc, principalOf(request), { url: body.url, ...(body.eventTypes ? { eventTypes: body.eventTypes as EventType[] } : {}), ...(body.description !== undefined ? { description: body.description } : {}) }, key));
    },
  );

  app.get(
    '/webhooks',
    { config: webhooksAuth, schema: { tags, summary: 'List webhooks (paged like D9)', querystring: s.PageQuery, response: { 200: s.WebhookListResponse } } },
    async (request) => ok(request, await service.listWebhooks(svc, principalOf(request), request.query.Page, request.query.PageSize)),
  );

  app.get(
    '/webhooks/deliveries',
    { config: webhooksAuth, schema: { tags, summary: 'Trace deliveries (D14), newest first', querystring: s.DeliveryQuery, response: { 200: s.DeliveryListResponse } } },
    async (request) => {
      const q = request.query;
      const filter = {
        ...(q.payfacReference !== undefined ? { payfacReference: q.payfacReference } : {}),
        ...(q.correlationId !== undefined ? { correlationId: q.correlationId } : {}),
        ...(q.webhookId !== undefined ? { webhookId: q.webhookId } : {}),
        ...(q.state !== undefined ? { state: q.state } : {}),
      };
      return ok(request, await service.listDeliveries(svc, principalOf(request), filter, q.Page, q.PageSize));
    },
  );

  app.get(
    '/webhooks/deliveries/:deliveryId',
    { config: webhooksAuth, schema: { tags, summary: 'A delivery with its body and attempts (D14)', params: s.DeliveryParams, response: { 200: s.DeliveryResponse } } },
    async (request) => ok(request, { delivery: await service.getDelivery(svc, principalOf(request), request.params.deliveryId) }),
  );

  app.post(
    '/webhooks/deliveries/:deliveryId/redeliver',
    { config: webhooksAuth, schema: { tags, summary: 'A new delivery of the same event to the same webhook (D14)', params: s.DeliveryParams, response: { 200: s.RedeliverResponse } } },
    async (request) => ok(request, await service.redeliver(svc, principalOf(request), request.params.deliveryId)),
  );

  app.get(
    '/webhooks/:webhookId',
    { config: webhooksAuth, schema: { tags, summary: 'Read a webhook (no secrets)', params: s.WebhookParams, response: { 200: s.WebhookResponse } } },
    async (request) => ok(request, { webhook: await service.getWebhook(svc, principalOf(request), request.params.webhookId) }),
  );

  app.post(
    '/webhooks/:webhookId/update',
    {
      config: { ...webhooksAuth, normalize: 'update' },
      schema: { tags, summary: 'Update a webhook', params: s.WebhookParams, body: s.UpdateBody, response: { 200: s.WebhookResponse } },
    },
    async (request) => {
      const b = request.body;
      const input: service.UpdateInput = {
        ...(b.url !== undefined ? { url: b.url } : {}),
        ...(b.eventTypes !== undefined ? { eventTypes: b.eventTypes as EventType[] } : {}),
        ...(b.description !== undefined ? { description: b.description } : {}),
        ...(b.enabled !== undefined ? { enabled: b.enabled } : {}),
      };
      return ok(request, { webhook: await service.updateWebhook(svc, principalOf(request), request.params.webhookId, input) });
    },
  );

  app.post(
    '/webhooks/:webhookId/delete',
    { config: webhooksAuth, schema: { tags, summary: 'Delete a webhook; its pending deliveries end as Failed', params: s.WebhookParams, response: { 200: EnvelopeOnly } } },
    async (request) => {
      await service.deleteWebhook(svc, principalOf(request), request.params.webhookId);
      return ok(request, {});
    },
  );

  app.post(
    '/webhooks/:webhookId/rotate-secrets',
    { config: webhooksAuth, schema: { tags, summary: 'New apiKey and hmacKey, shown only now', params: s.WebhookParams, response: { 200: s.RotateResponse } } },
    async (request) => ok(request, await service.rotateSecrets(svc, principalOf(request), request.params.webhookId)),
  );

  // The sandbox exists only while it is on (D14); otherwise these paths are unknown: 404.
  if (!deps.config.sandbox) return;

  app.post(
    '/sandbox/events',
    {
      config: { auth: { anyOf: ['Webhooks'] }, normalize: 'create' },
      schema: { tags: ['Sandbox'], summary: 'Record a payment event as if the acquirer had produced it (D14)', body: s.SandboxEventBody, response: { 200: s.SandboxEventResponse } },
    },
    async (request) => {
      const b = request.body;
      return ok(request, await service.recordSandboxEvent(svc, merchantOf(request), {
        eventType: b.eventType as EventType,
        amount: b.amount,
        currency: b.currency,
        ...(b.success !== undefined ? { success: b.success } : {}),
        ...(b.reason !== undefined ? { reason: b.reason } : {}),
        ...(b.merchantReference !== undefined ? { merchantReference: b.merchantReference } : {}),
        ...(b.checkoutReference !== undefined ? { checkoutReference: b.checkoutReference } : {}),
        ...(b.additionalData !== undefined ? { additionalData: b.additionalData } : {}),
      }));
    },
  );

  app.post(
    '/sandbox/deliveries/:deliveryId/advance',
    { config: webhooksAuth, schema: { tags: ['Sandbox'], summary: "A pending delivery's next attempt is due now (D14)", params: s.DeliveryParams, response: { 200: EnvelopeOnly } } },
    async (request) => {
      await service.advanceDelivery(svc, principalOf(request), request.params.deliveryId);
      return ok(request, {});
    },
  );
}
