import { appPart } from '../http/app.js';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../accounts/service.js';
import { ApiError } from '../errors.js';
import { merchantOf, operationOf } from '../http/auth.js';
import { checkInput } from '../validation.js';
import { EnvelopeOnly, answerWith } from '../http/envelope.js';
import { listRoute } from '../http/paging.js';
import { bodyCheckedByService, checkedByService, queryCheckedByService } from '../http/validation.js';
import type { Sink } from './listen/hub.js';
import * as s from './schemas.js';
import * as service from './service.js';
import * as deliveries from './deliveries/service.js';

// Webhook registration (§Webhooks), delivery trace and replay, sandbox (§Deliveries). Partner keys are admitted on
// every webhook route (they own webhooks too); the sandbox event is the merchant's own. A body (or the
// options of rotate-secrets) is passed as it came to the service's operation, which checks it (the
// portal's webhook pages call the same operations); the schemas on the routes are for the OpenAPI document.

const webhooksAuth = { auth: { anyOf: ['Webhooks'] as const, partners: true } };

function principalOf(request: FastifyRequest): Principal {
  const p = request.principal;
  if (!p) throw new ApiError('UNAUTHENTICATED');
  return p;
}

export const webhookRoutes = appPart('webhooks', ['config', 'db', 'clock', 'sealer', 'webhookResolver', 'listeners'], async (app) => {
  const { config, db, clock, sealer, webhookResolver, listeners } = app;
  const deps = { config, clock };
  const svc = service.webhookServiceDeps({ config, db, clock, sealer, webhookResolver });
  const tags = ['Webhooks'];
  const ok = answerWith(deps.clock);

  app.post(
    '/webhooks',
    {
      config: {
        ...webhooksAuth,
        create: { operation: service.REGISTER_OPERATION, kept: (answer) => service.keptRegistration(svc, answer) },
      },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags,
        summary: 'Register a webhook',
        description:
          'Deliveries of the chosen event types (all when eventTypes is empty or left out) go to url as a signed POST. The answer carries the ' +
          "webhook's secrets, shown only now: apiKey (sent as the Authorization header of each delivery), hmacKey (signs hmacSignature) and signingSecret " +
          '(the same key as a Standard Webhooks secret, for the webhook-id/webhook-timestamp/webhook-signature headers). A partner key ' +
          'registers a webhook for all its merchants. maxInFlight (1 to 100, default 10) bounds the attempts sent to it at once and rateLimit ' +
          '(1 to 1000 deliveries per second) how fast they start. ordering fifo sends its deliveries one at a time, in the order their events were ' +
          'recorded, a failing one holding back the later ones until it succeeds or has used its five attempts (so a slow receiver gets one request ' +
          'at a time); unordered, the default, keeps no order. An Idempotency-Key header makes a retry return the first answer.',
        body: checkedByService(s.RegisterBody),
        response: { 200: s.RegisterResponse },
      },
    },
    async (request) => ok(request, await service.registerWebhook(operationOf(svc, request), principalOf(request), request.body, request.idempotencyKey)),
  );

  listRoute(
    app,
    deps.clock,
    '/webhooks',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: 'List webhooks',
        description: "The caller's webhooks, newest first, without their secrets. Page (from 0) and PageSize are optional (0 and 20 by default).",
        querystring: s.PageQuery,
        response: { 200: s.WebhookListResponse },
      },
    },
    (request, _query, { page, pageSize }) => service.listWebhooks(svc, principalOf(request), page, pageSize),
  );

  listRoute(
    app,
    deps.clock,
    '/webhooks/deliveries',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: 'Trace deliveries, newest first',
        description:
          'Each delivery is one event sent to one webhook: its state (Pending, Delivered, Failed), attempts so far and next attempt. Filter by ' +
          'payfacReference, correlationId, webhookId or state; Page and PageSize are optional.',
        querystring: s.DeliveryQuery,
        response: { 200: s.DeliveryListResponse },
      },
    },
    (request, q, { page, pageSize }) => {
      const filter = {
        ...(q.payfacReference !== undefined ? { payfacReference: q.payfacReference } : {}),
        ...(q.correlationId !== undefined ? { correlationId: q.correlationId } : {}),
        ...(q.webhookId !== undefined ? { webhookId: q.webhookId } : {}),
        ...(q.state !== undefined ? { state: q.state } : {}),
      };
      return deliveries.listDeliveries(svc, principalOf(request), filter, page, pageSize);
    },
  );

  app.get(
    '/webhooks/deliveries/:deliveryId',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: 'A delivery with its body and attempts',
        description:
          "The exact body that was signed and sent, and every attempt: when, the receiver's status and the start of its answer, how long it " +
          'took, and for a failure its kind and detail (for example a TLS certificate error).',
        params: s.DeliveryParams,
        response: { 200: s.DeliveryResponse },
      },
    },
    async (request) => ok(request, { delivery: await deliveries.getDelivery(svc, principalOf(request), request.params.deliveryId) }),
  );

  app.post(
    '/webhooks/deliveries/:deliveryId/redeliver',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: 'Deliver an event again',
        description:
          'A new delivery of the same event, with the same body and a new correlation id, to the same webhook, attempted at once and then on ' +
          'the retry schedule. For a delivery that ended Failed after the receiver was fixed.',
        params: s.DeliveryParams,
        response: { 200: s.RedeliverResponse },
      },
    },
    async (request) => ok(request, await deliveries.redeliver(operationOf(svc, request), principalOf(request), request.params.deliveryId)),
  );

  app.post(
    '/webhooks/listeners',
    {
      config: { ...webhooksAuth },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags,
        summary: 'Register a listener webhook for paylinks listen',
        description:
          'A webhook without a URL: its deliveries go to the `paylinks listen` command over the stream it opens (GET /webhooks/{webhookId}/listen), ' +
          'so a developer receives them on their own machine with no inbound port. A listener of the same owner and event types that no stream has ' +
          'had open for a minute is reused, with its secrets (reused: true). Delete it when done.',
        body: checkedByService(s.ListenerBody),
        response: { 200: s.ListenerResponse },
      },
    },
    async (request) => ok(request, await service.registerListener(operationOf(svc, request), principalOf(request), request.body)),
  );

  app.get(
    '/webhooks/:webhookId/listen',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: "A listener webhook's deliveries, as a stream of Server-Sent Events",
        description:
          'Send `Accept: text/event-stream`. Events: `ready`, then one `attempt` per delivery attempt: {deliveryId, eventType, payfacReference, ' +
          'attemptNumber, correlationId, attemptToken, headers, body}. Forward body and headers as they are to the local receiver and report its ' +
          'answer with POST /webhooks/{webhookId}/listen/attempts within 20 seconds, or the attempt is recorded as a timeout and retried on the ' +
          'schedule. A comment line (`: keep-alive`) comes every 15 seconds, so a client that hears nothing for much longer knows its connection ' +
          'died. One stream per listener: a second is answered 409, unless it gives the same `session` as the stream held, which it then replaces.',
        params: s.WebhookParams,
        querystring: s.ListenQuery,
        response: { 200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { webhookId } = request.params;
      await service.requireListener(svc, principal, webhookId);
      if (!/text\/event-stream/i.test(request.headers.accept ?? '')) {
        throw new ApiError('VALIDATION_FAILED', 'this stream needs the header Accept: text/event-stream', [
          { field: 'Accept', code: 'FORMAT', message: 'must accept text/event-stream' },
        ]);
      }
      const { session } = request.query;
      if (listeners.isHeld(webhookId, session)) throw new ApiError('INVALID_STATE', 'another paylinks listen already has this listener open');
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      const sink: Sink = {
        send: (event, data) => {
          if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        },
        comment: (text) => {
          if (!res.writableEnded) res.write(`: ${text}\n\n`);
        },
        end: () => {
          if (!res.writableEnded) res.end();
        },
      };
      const opened = listeners.open(webhookId, sink, session);
      if (!opened) {
        res.end(`event: error\ndata: ${JSON.stringify({ code: 'INVALID_STATE', message: 'another paylinks listen already has this listener open' })}\n\n`);
        return;
      }
      res.on('close', () => listeners.detach(webhookId, sink));
    },
  );

  app.post(
    '/webhooks/:webhookId/listen/attempts',
    {
      config: { ...webhooksAuth },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags,
        summary: "Report the local receiver's answer to a streamed attempt",
        description:
          'The attempt is recorded with this answer, exactly like an attempt sent to a URL: only status 200 delivers; anything else is retried on the ' +
          'schedule. 409 when the attempt is no longer awaited (reported already, timed out, or its stream closed).',
        params: s.WebhookParams,
        body: checkedByService(s.AttemptReportBody),
        response: { 200: s.AttemptReportResponse },
      },
    },
    async (request) => {
      const { webhookId } = request.params;
      // §Clients in the field: names in any case; null kept (an attempt with no error says so).
      const report = checkInput(s.AttemptReportBody, request.body, { nullMeansAbsent: false });
      await service.requireListener(svc, principalOf(request), webhookId);
      const recorded = await listeners.report(webhookId, report);
      if (!recorded) throw new ApiError('INVALID_STATE', 'this attempt is no longer awaited: it was reported already, timed out, or its stream closed');
      return ok(request, { recorded: true as const });
    },
  );

  app.get(
    '/webhooks/:webhookId',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: 'Read a webhook',
        description:
          "The webhook's URL, event types, description, limits, whether it is enabled, and its health: lastSuccessAt, failingSince and " +
          'failedDeliveries; disabledReason failing when the service disabled it after days of failures. Its secrets are never shown again; rotate them if lost.',
        params: s.WebhookParams,
        response: { 200: s.WebhookResponse },
      },
    },
    async (request) => ok(request, { webhook: await service.getWebhook(svc, principalOf(request), request.params.webhookId) }),
  );

  app.post(
    '/webhooks/:webhookId/update',
    {
      config: { ...webhooksAuth },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags,
        summary: 'Update a webhook',
        description:
          'Change url, eventTypes, description, enabled, maxInFlight, rateLimit or ordering; a field left out keeps its value (rateLimit null removes the ' +
          'limit). A new ordering applies to the deliveries already waiting too. A disabled webhook gets no new deliveries. The secrets do not change ' +
          '(rotate-secrets does that).',
        params: s.WebhookParams,
        body: checkedByService(s.UpdateBody),
        response: { 200: s.WebhookResponse },
      },
    },
    async (request) =>
      ok(request, { webhook: await service.updateWebhook(operationOf(svc, request), principalOf(request), request.params.webhookId, request.body) }),
  );

  app.post(
    '/webhooks/:webhookId/delete',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: 'Delete a webhook',
        description: 'The webhook gets no more deliveries; those still pending end as Failed. Its delivery history stays readable.',
        params: s.WebhookParams,
        response: { 200: EnvelopeOnly },
      },
    },
    async (request) => {
      await service.deleteWebhook(operationOf(svc, request), principalOf(request), request.params.webhookId);
      return ok(request, {});
    },
  );

  app.post(
    '/webhooks/:webhookId/recover',
    {
      config: { ...webhooksAuth },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags,
        summary: "Queue a webhook's failed deliveries again",
        description:
          'Every Failed delivery of the webhook made in [since, until) becomes a new delivery with five attempts of its own, signed with the ' +
          "webhook's current key: after a receiver was down, one call instead of a redeliver per delivery. Answers at once with the count. " +
          'The same window again queues nothing and answers the same count (repeated: true).',
        params: s.WebhookParams,
        body: checkedByService(s.RecoverBody),
        response: { 200: s.RecoverResponse },
      },
    },
    async (request) => ok(request, await deliveries.recoverFailed(operationOf(svc, request), principalOf(request), request.params.webhookId, request.body)),
  );

  app.post(
    '/webhooks/:webhookId/rotate-secrets',
    {
      config: webhooksAuth,
      validatorCompiler: queryCheckedByService,
      schema: {
        tags,
        summary: "Rotate a webhook's secrets",
        description:
          'New apiKey, hmacKey and signingSecret, shown only now. Attempts from now on send the new apiKey and hmacSignature under the ' +
          'new hmacKey. For overlapHours (default 24, at most 168, 0 for none) the webhook-signature header also carries a signature ' +
          'under the previous key, so a receiver still holding the old signingSecret keeps accepting deliveries while it is updated; ' +
          'the SDK verifiers take a list of keys for the same purpose.',
        params: s.WebhookParams,
        querystring: s.RotateQuery,
        response: { 200: s.RotateResponse },
      },
    },
    async (request) => ok(request, await service.rotateSecrets(operationOf(svc, request), principalOf(request), request.params.webhookId, request.query)),
  );

  // The sandbox exists only while it is on (§Deliveries); otherwise these paths are unknown: 404.
  if (!deps.config.sandbox) return;

  app.post(
    '/sandbox/events',
    {
      config: { auth: { anyOf: ['Webhooks'] } },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags: ['Sandbox'],
        summary: 'Record a payment event as if the acquirer had produced it',
        description:
          'Sandbox only (PAYLINKS_SANDBOX=true; otherwise this path is 404). Makes an event of any type with the given amount and outcome and ' +
          "delivers it to the merchant's webhooks like a real one, to test a receiver.",
        body: checkedByService(s.SandboxEventBody),
        response: { 200: s.SandboxEventResponse },
      },
    },
    async (request) => ok(request, await deliveries.recordSandboxEvent(operationOf(svc, request), merchantOf(request), request.body)),
  );

  app.post(
    '/sandbox/deliveries/advance',
    {
      config: { ...webhooksAuth },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags: ['Sandbox'],
        summary: 'Make every pending delivery due now',
        description:
          "Sandbox only. Every pending delivery of the caller's webhooks (or, with webhookId, of that one) whose next attempt is not due " +
          'yet is due now, so a test sees the retries at once. Deliveries whose attempt is in flight are left alone. Answers how many.',
        body: checkedByService(s.AdvanceAllBody),
        response: { 200: s.AdvanceAllResponse },
      },
    },
    async (request) => ok(request, await deliveries.advanceAllDeliveries(operationOf(svc, request), principalOf(request), request.body)),
  );

  app.post(
    '/sandbox/deliveries/:deliveryId/advance',
    {
      config: webhooksAuth,
      schema: {
        tags: ['Sandbox'],
        summary: "Make a pending delivery's next attempt due now",
        description: 'Sandbox only. Skips the wait of the retry schedule (1 minute, 10 minutes, 1 hour, 6 hours) so a test sees the next attempt at once.',
        params: s.DeliveryParams,
        response: { 200: EnvelopeOnly },
      },
    },
    async (request) => {
      await deliveries.advanceDelivery(operationOf(svc, request), principalOf(request), request.params.deliveryId);
      return ok(request, {});
    },
  );
});
