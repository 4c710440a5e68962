import type { FastifyReply, FastifyRequest } from 'fastify';
import { CAPABILITIES, type Principal } from '../../accounts/service.js';
import { parseCursor, type Keyset } from '../../db/keyset.js';
import { ApiError, notFound, type FieldError } from '../../errors.js';
import type { PortalSession } from '../../users/service.js';
import * as webhooks from '../../webhooks/service.js';
import * as deliveries from '../../webhooks/deliveries/service.js';
import {
  auditFor,
  formOf,
  wholeNumberOf,
  refusable,
  seeOther,
  sendPage,
  sessionOfRequest,
  viewFor,
  type Form,
  type PortalArea,
  type PortalDeps,
} from '../http.js';
import { FieldErrors } from '../view.js';
import { WEBHOOK_STYLES, hrefOf } from './common.js';
import { renderDelete } from './deletePage.js';
import { renderDeliveries, type RecoverForm } from './deliveriesPage.js';
import { renderDelivery } from './deliveryPage.js';
import { formValuesOf, renderWebhookCreated, renderWebhookForm, type WebhookFormValues } from './formPage.js';
import { renderWebhookList } from './listPage.js';
import { renderRotate, renderRotated } from './rotatePage.js';
import { renderWebhook, type WebhookNotice } from './webhookPage.js';

// The webhook pages (§Webhooks, §Deliveries) on the same operations as /api/v1/webhooks. Each form
// builds the body the API takes and passes it to the operation, which checks it, and a refusal comes
// back as the API's field errors beside the fields they name (the inputs carry the API's names).

const PAGE_SIZE = 20;
const RECENT = 5;
/** The sandbox's test event: €10.00, recognisable by its merchantReference. */
const TEST_EVENT = { amount: 1000, currency: 'EUR', merchantReference: 'portal-test' } as const;

const read = { config: { portal: { permission: 'webhooks.read' as const } }, schema: { hide: true } };
const write = { config: { portal: { permission: 'webhooks.write' as const } }, schema: { hide: true } };

type WebhookRequest = FastifyRequest<{ Params: { webhookId: string } }>;
type DeliveryRequest = FastifyRequest<{ Params: { webhookId: string; deliveryId: string } }>;
/** `before`/`after`: the keyset cursors of the list's pages (src/db/keyset.ts); an old `page` is ignored. */
type DeliveriesQuery = { state?: string; before?: string; after?: string; done?: string; n?: string };

const keysetOf = (q: { before?: string; after?: string }): Keyset | null => parseCursor('newer', q.after) ?? parseCursor('older', q.before);

/**
 * Whom the portal acts as: the session's merchant with every capability. A portal user acts with the
 * merchant's full authority within what the role allows (each route's permission is that check), on
 * the merchant's own webhooks only: a partner's webhooks are not shown in a merchant's portal, even
 * to a partner's user working on the merchant.
 */
export function merchantPrincipal(session: PortalSession): Principal {
  return { kind: 'merchant', keyId: `portal:${session.userId}`, merchantId: session.merchantId, capabilities: new Set(CAPABILITIES) };
}

/** A refusal because the webhook does not take deliveries now (disabled): the API's 409. */
function isNotReceiving(err: unknown): boolean {
  return err instanceof ApiError && err.code === 'INVALID_STATE';
}

/** The form's fields as the API's register and update bodies name them. */
function webhookFormOf(form: Form): WebhookFormValues {
  return {
    url: form.text('url').trim(),
    description: form.text('description').trim(),
    eventTypes: form.texts('eventTypes'),
    maxInFlight: form.text('maxInFlight').trim(),
    rateLimit: form.text('rateLimit').trim(),
    ordering: form.text('ordering').trim(),
  };
}

/**
 * The limits and the ordering as the API's body names them: a blank max in flight is left out
 * (register: the default; edit: unchanged), a blank rate limit is no limit (null), a blank ordering is
 * left out; other text as typed, for the API's error.
 */
function limitsOf(values: WebhookFormValues): { maxInFlight?: number; rateLimit: number | null; ordering?: string } {
  const maxInFlight = wholeNumberOf(values.maxInFlight) as number | undefined;
  return {
    ...(maxInFlight !== undefined ? { maxInFlight } : {}),
    rateLimit: (wholeNumberOf(values.rateLimit) as number | undefined) ?? null,
    ...(values.ordering !== '' ? { ordering: values.ordering } : {}),
  };
}

/** A datetime-local value (minutes, UTC as the portal shows times) as the API's ISO 8601 instant; anything else as typed. */
function instantOf(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?$/.exec(value);
  return m ? `${m[1]}${m[2] ?? ':00'}Z` : value;
}

const NOTICES: readonly WebhookNotice[] = ['saved', 'enabled', 'disabled', 'tested'];

export const webhooksArea: PortalArea = {
  styles: WEBHOOK_STYLES,
  routes(portal, deps: PortalDeps) {
    const svc = webhooks.webhookServiceDeps(deps);
    const devUrls = deps.config.env === 'development';

    const principalOf = (request: FastifyRequest): Principal => merchantPrincipal(sessionOfRequest(request));
    const webhookOf = (request: WebhookRequest): Promise<webhooks.WebhookView> => webhooks.getWebhook(svc, principalOf(request), request.params.webhookId);
    /** The delivery, within the webhook of the path (a delivery of another webhook is not found here). */
    const deliveryOf = async (
      request: DeliveryRequest,
    ): Promise<{ webhook: webhooks.WebhookView; delivery: Awaited<ReturnType<typeof deliveries.getDelivery>> }> => {
      const webhook = await webhookOf(request);
      const delivery = await deliveries.getDelivery(svc, principalOf(request), request.params.deliveryId);
      if (delivery.webhookId !== webhook.webhookId) throw notFound('delivery');
      return { webhook, delivery };
    };
    const audit = auditFor(deps);

    const webhookPage = async (
      request: WebhookRequest,
      reply: FastifyReply,
      status: number,
      notice: WebhookNotice | null,
      testErrors = new FieldErrors(),
    ): Promise<FastifyReply> => {
      const principal = principalOf(request);
      const webhook = await webhookOf(request);
      const [previousUntil, recent] = await Promise.all([
        webhooks.previousSecretValidUntil(svc, principal, webhook.webhookId),
        deliveries.listDeliveries(svc, principal, { webhookId: webhook.webhookId }, 0, RECENT),
      ]);
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, status, renderWebhook(view, { webhook, previousUntil, recent: recent.data, notice, sandbox: deps.config.sandbox, testErrors }));
    };

    const deliveriesPage = async (
      request: WebhookRequest,
      reply: FastifyReply,
      status: number,
      q: DeliveriesQuery,
      recover: RecoverForm,
    ): Promise<FastifyReply> => {
      const webhook = await webhookOf(request);
      const state = q.state === 'Pending' || q.state === 'Delivered' || q.state === 'Failed' ? q.state : null;
      const list = await deliveries.deliveryPage(svc, principalOf(request), { webhookId: webhook.webhookId, state }, keysetOf(q), PAGE_SIZE);
      const view = await viewFor(request, reply, deps);
      return sendPage(
        reply,
        status,
        renderDeliveries(view, {
          webhook,
          ...list,
          state,
          recover,
          notice: q.done === 'tested' ? 'tested' : null,
          sandbox: deps.config.sandbox,
        }),
      );
    };

    portal.get<{ Querystring: { before?: string; after?: string; done?: string } }>('/webhooks', read, async (request, reply) => {
      const list = await webhooks.webhookPage(svc, principalOf(request), keysetOf(request.query), PAGE_SIZE);
      const view = await viewFor(request, reply, deps);
      return sendPage(
        reply,
        200,
        renderWebhookList(view, {
          ...list,
          notice: request.query.done === 'deleted' ? 'deleted' : null,
        }),
      );
    });

    portal.get('/webhooks/new', write, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      return sendPage(
        reply,
        200,
        renderWebhookForm(view, {
          webhook: null,
          values: {
            url: '',
            description: '',
            eventTypes: [],
            maxInFlight: String(deps.config.webhookMaxInFlightPerEndpoint),
            rateLimit: '',
            ordering: 'unordered',
          },
          errors: new FieldErrors(),
          devUrls,
        }),
      );
    });

    portal.post('/webhooks', write, async (request, reply) => {
      const values = webhookFormOf(formOf(request));
      // A blank URL is left out, so the answer is the API's "is required".
      const body = { ...(values.url !== '' ? { url: values.url } : {}), eventTypes: values.eventTypes, description: values.description, ...limitsOf(values) };
      const outcome = await refusable(() => webhooks.registerWebhook(svc, principalOf(request), body, undefined));
      const view = await viewFor(request, reply, deps);
      if ('errors' in outcome) return sendPage(reply, 400, renderWebhookForm(view, { webhook: null, values, errors: outcome.errors, devUrls }));
      const created = outcome.ok;
      await audit(request, 'webhook.create', created.webhookId, { url: created.url, eventTypes: created.eventTypes, description: created.description });
      // The secrets are shown once, on this answer (no redirect: they are never read back).
      return sendPage(reply, 200, renderWebhookCreated(view, created));
    });

    portal.get<{ Params: { webhookId: string }; Querystring: { done?: string } }>('/webhooks/:webhookId', read, async (request, reply) => {
      const done = request.query.done;
      return webhookPage(request, reply, 200, NOTICES.find((n) => n === done) ?? null);
    });

    portal.get<{ Params: { webhookId: string } }>('/webhooks/:webhookId/edit', write, async (request, reply) => {
      const webhook = await webhookOf(request);
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, 200, renderWebhookForm(view, { webhook, values: formValuesOf(webhook), errors: new FieldErrors(), devUrls }));
    });

    portal.post<{ Params: { webhookId: string } }>('/webhooks/:webhookId/edit', write, async (request, reply) => {
      const webhook = await webhookOf(request);
      const values = webhookFormOf(formOf(request));
      // A listener has no URL to change; every other field is sent as the form shows it.
      const body = {
        ...(webhook.kind === 'url' ? { url: values.url, ...limitsOf(values) } : {}),
        eventTypes: values.eventTypes,
        description: values.description,
      };
      const outcome = await refusable(() => webhooks.updateWebhook(svc, principalOf(request), webhook.webhookId, body));
      if ('errors' in outcome) {
        const view = await viewFor(request, reply, deps);
        return sendPage(reply, 400, renderWebhookForm(view, { webhook, values, errors: outcome.errors, devUrls }));
      }
      await audit(request, 'webhook.update', webhook.webhookId, body);
      return seeOther(reply, `${hrefOf(webhook.webhookId)}?done=saved`);
    });

    for (const [path, enabled] of [
      ['enable', true],
      ['disable', false],
    ] as const) {
      portal.post<{ Params: { webhookId: string } }>(`/webhooks/:webhookId/${path}`, write, async (request, reply) => {
        const webhook = await webhookOf(request);
        await webhooks.updateWebhook(svc, principalOf(request), webhook.webhookId, { enabled });
        await audit(request, enabled ? 'webhook.enable' : 'webhook.disable', webhook.webhookId, {});
        return seeOther(reply, `${hrefOf(webhook.webhookId)}?done=${enabled ? 'enabled' : 'disabled'}`);
      });
    }

    portal.get<{ Params: { webhookId: string } }>('/webhooks/:webhookId/rotate', write, async (request, reply) => {
      const webhook = await webhookOf(request);
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, 200, renderRotate(view, { webhook, overlapHours: String(webhooks.DEFAULT_OVERLAP_HOURS), errors: new FieldErrors() }));
    });

    portal.post<{ Params: { webhookId: string } }>('/webhooks/:webhookId/rotate', write, async (request, reply) => {
      const webhook = await webhookOf(request);
      const raw = formOf(request).text('overlapHours').trim();
      // As the API's query string carries it: text, read by the operation; blank is the default.
      const outcome = await refusable(() => webhooks.rotateSecrets(svc, principalOf(request), webhook.webhookId, raw === '' ? {} : { overlapHours: raw }));
      const view = await viewFor(request, reply, deps);
      if ('errors' in outcome) return sendPage(reply, 400, renderRotate(view, { webhook, overlapHours: raw, errors: outcome.errors }));
      const rotated = outcome.ok;
      await audit(request, 'webhook.rotate', webhook.webhookId, {
        overlapHours: raw === '' ? webhooks.DEFAULT_OVERLAP_HOURS : Number(raw),
        previousSecretValidUntil: rotated.previousSecretValidUntil,
      });
      return sendPage(reply, 200, renderRotated(view, { webhook, secrets: rotated }));
    });

    portal.get<{ Params: { webhookId: string } }>('/webhooks/:webhookId/delete', write, async (request, reply) => {
      const webhook = await webhookOf(request);
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, 200, renderDelete(view, { webhook }));
    });

    portal.post<{ Params: { webhookId: string } }>('/webhooks/:webhookId/delete', write, async (request, reply) => {
      const webhook = await webhookOf(request);
      await webhooks.deleteWebhook(svc, principalOf(request), webhook.webhookId);
      await audit(request, 'webhook.delete', webhook.webhookId, { url: webhook.url });
      return seeOther(reply, '/portal/webhooks?done=deleted');
    });

    portal.get<{ Params: { webhookId: string }; Querystring: DeliveriesQuery }>('/webhooks/:webhookId/deliveries', read, async (request, reply) => {
      const q = request.query;
      const n = /^\d{1,9}$/.test(q.n ?? '') ? Number(q.n) : 0;
      const outcome = q.done === 'recovered' || q.done === 'recoveredBefore' ? { requeued: n, repeated: q.done === 'recoveredBefore' } : null;
      return deliveriesPage(request, reply, 200, q, { since: '', until: '', errors: new FieldErrors(), outcome, problem: null });
    });

    portal.post<{ Params: { webhookId: string } }>('/webhooks/:webhookId/recover', write, async (request, reply) => {
      const webhook = await webhookOf(request);
      const form = formOf(request);
      const since = form.text('since').trim();
      const until = form.text('until').trim();
      const body = { ...(since !== '' ? { since: instantOf(since) } : {}), ...(until !== '' ? { until: instantOf(until) } : {}) };
      const again = (status: number, errors: FieldErrors, problem: RecoverForm['problem']): Promise<FastifyReply> =>
        deliveriesPage(request, reply, status, {}, { since, until, errors, outcome: null, problem });
      const principal = principalOf(request);
      let outcome;
      try {
        outcome = await refusable(() => deliveries.recoverFailed(svc, principal, webhook.webhookId, body));
      } catch (err) {
        if (isNotReceiving(err)) return again(409, new FieldErrors(), 'notReceiving');
        throw err;
      }
      if ('errors' in outcome) return again(400, outcome.errors, null);
      const { requeued, repeated } = outcome.ok;
      await audit(request, 'webhook.recover', webhook.webhookId, { since: body.since, until: body.until ?? null, requeued, repeated });
      return seeOther(reply, `${hrefOf(webhook.webhookId)}/deliveries?done=${repeated ? 'recoveredBefore' : 'recovered'}&n=${requeued}`);
    });

    portal.get<{ Params: { webhookId: string; deliveryId: string }; Querystring: { done?: string } }>(
      '/webhooks/:webhookId/deliveries/:deliveryId',
      read,
      async (request, reply) => {
        const { webhook, delivery } = await deliveryOf(request);
        const view = await viewFor(request, reply, deps);
        return sendPage(reply, 200, renderDelivery(view, { webhook, delivery, notice: request.query.done === 'redelivered' ? 'redelivered' : null }));
      },
    );

    portal.post<{ Params: { webhookId: string; deliveryId: string } }>(
      '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
      write,
      async (request, reply) => {
        const { webhook, delivery } = await deliveryOf(request);
        let again: { deliveryId: string };
        try {
          again = await deliveries.redeliver(svc, principalOf(request), delivery.deliveryId);
        } catch (err) {
          if (!isNotReceiving(err)) throw err;
          const view = await viewFor(request, reply, deps);
          return sendPage(reply, 409, renderDelivery(view, { webhook, delivery, notice: 'notReceiving' }));
        }
        await audit(request, 'delivery.redeliver', delivery.deliveryId, { webhookId: webhook.webhookId, newDeliveryId: again.deliveryId });
        return seeOther(reply, `${hrefOf(webhook.webhookId)}/deliveries/${encodeURIComponent(again.deliveryId)}?done=redelivered`);
      },
    );

    portal.post<{ Params: { webhookId: string } }>('/webhooks/:webhookId/test', write, async (request, reply) => {
      // Like the API's sandbox operations, this exists only while the sandbox is on.
      if (!deps.config.sandbox) throw notFound('sandbox');
      const webhook = await webhookOf(request);
      const eventType = formOf(request).text('eventType');
      // The event goes to every webhook that takes its type: one this webhook does not take would not
      // test it. That is this page's own question; the event itself is checked by the operation.
      if (webhook.eventTypes.length > 0 && !webhook.eventTypes.includes(eventType)) {
        const error: FieldError = { field: 'eventType', code: 'ENUM', message: `must be one of ${webhook.eventTypes.join(', ')}` };
        return webhookPage(request, reply, 400, null, new FieldErrors([error]));
      }
      const outcome = await refusable(() => deliveries.recordSandboxEvent(svc, sessionOfRequest(request).merchantId, { eventType, ...TEST_EVENT }));
      if ('errors' in outcome) return webhookPage(request, reply, 400, null, outcome.errors);
      const event = outcome.ok;
      await audit(request, 'webhook.test', webhook.webhookId, { eventType, eventId: event.eventId, payfacReference: event.payfacReference });
      return seeOther(reply, `${hrefOf(webhook.webhookId)}/deliveries?done=tested`);
    });
  },
};
