import { CAPABILITIES, type Principal } from '../../accounts/service.js';
import type { Actor } from '../../actor.js';
import { keysetOf } from '../../db/keyset.js';
import { ApiError, notFound, type FieldError } from '../../errors.js';
import type { PortalSession } from '../../users/service.js';
import * as webhooks from '../../webhooks/service.js';
import * as deliveries from '../../webhooks/deliveries/service.js';
import { PAGE_SIZE, wholeNumberOf, refusable, type Form, type PortalArea, type PortalDeps } from '../http.js';
import { portalRouter, type PageData, type Ctx } from '../route.js';
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

const RECENT = 5;
/** The sandbox's test event: €10.00, recognisable by its merchantReference. */
const TEST_EVENT = { amount: 1000, currency: 'EUR', merchantReference: 'portal-test' } as const;

/** `before`/`after`: the keyset cursors of the list's pages (src/db/keyset.ts); an old `page` is ignored. */
type DeliveriesQuery = { state?: string; before?: string; after?: string; done?: string; n?: string };

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

type WebhookParams = { Params: { webhookId: string } };
type DeliveryParams = { Params: { webhookId: string; deliveryId: string } };

export const webhooksArea: PortalArea = {
  styles: WEBHOOK_STYLES,
  routes(portal, deps: PortalDeps) {
    const svc = webhooks.webhookServiceDeps(deps);
    const devUrls = deps.config.env === 'development';
    const route = portalRouter(portal, deps);

    const principalOf = (ctx: Ctx<WebhookParams>): Principal => merchantPrincipal(ctx.session);
    /** What a change is given: the service's dependencies and the signed-in person. */
    const op = (ctx: { actor: Actor }): webhooks.WebhookWriteDeps => ({ ...svc, actor: ctx.actor });
    const webhookOf = (ctx: Ctx<WebhookParams>): Promise<webhooks.WebhookView> => webhooks.getWebhook(svc, principalOf(ctx), ctx.request.params.webhookId);
    /** The delivery, within the webhook of the path (a delivery of another webhook is not found here). */
    const deliveryOf = async (
      ctx: Ctx<DeliveryParams>,
    ): Promise<{ webhook: webhooks.WebhookView; delivery: Awaited<ReturnType<typeof deliveries.getDelivery>> }> => {
      const webhook = await webhookOf(ctx);
      const delivery = await deliveries.getDelivery(svc, principalOf(ctx), ctx.request.params.deliveryId);
      if (delivery.webhookId !== webhook.webhookId) throw notFound('delivery');
      return { webhook, delivery };
    };

    /** A webhook's page: its settings, its secrets' overlap and its newest deliveries. */
    const webhookData = async (
      ctx: Ctx<WebhookParams>,
      notice: WebhookNotice | null,
      testErrors = new FieldErrors(),
    ): Promise<PageData<typeof renderWebhook>> => {
      const principal = principalOf(ctx);
      const webhook = await webhookOf(ctx);
      const [previousUntil, recent] = await Promise.all([
        webhooks.previousSecretValidUntil(svc, principal, webhook.webhookId),
        deliveries.listDeliveries(svc, principal, { webhookId: webhook.webhookId }, 0, RECENT),
      ]);
      return { webhook, previousUntil, recent: recent.data, notice, sandbox: deps.config.sandbox, testErrors };
    };

    const deliveriesData = async (ctx: Ctx<WebhookParams>, q: DeliveriesQuery, recover: RecoverForm): Promise<PageData<typeof renderDeliveries>> => {
      const webhook = await webhookOf(ctx);
      const state = q.state === 'Pending' || q.state === 'Delivered' || q.state === 'Failed' ? q.state : null;
      const list = await deliveries.deliveryPage(svc, principalOf(ctx), { webhookId: webhook.webhookId, state }, keysetOf(q), PAGE_SIZE);
      return { webhook, ...list, state, recover, notice: q.done === 'tested' ? 'tested' : null, sandbox: deps.config.sandbox };
    };

    route
      .get('/webhooks', { permission: 'webhooks.read', view: renderWebhookList })
      .handle(async ({ request, session }: Ctx<{ Querystring: { before?: string; after?: string; done?: string } }>) => {
        const list = await webhooks.webhookPage(svc, merchantPrincipal(session), keysetOf(request.query), PAGE_SIZE);
        return { data: { ...list, notice: request.query.done === 'deleted' ? 'deleted' : null } };
      });

    route.get('/webhooks/new', { permission: 'webhooks.write', view: renderWebhookForm }).handle(async () => ({
      data: {
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
      },
    }));

    route.post('/webhooks', { permission: 'webhooks.write', view: renderWebhookForm }).handle(async ({ session, form, actor }) => {
      const values = webhookFormOf(form);
      // A blank URL is left out, so the answer is the API's "is required".
      const body = { ...(values.url !== '' ? { url: values.url } : {}), eventTypes: values.eventTypes, description: values.description, ...limitsOf(values) };
      const outcome = await refusable(() => webhooks.registerWebhook(op({ actor }), merchantPrincipal(session), body, undefined));
      if ('errors' in outcome) return { status: 400, data: { webhook: null, values, errors: outcome.errors, devUrls } };
      const created = outcome.ok;
      // The secrets are shown once, on this answer (no redirect: they are never read back).
      return { page: (view) => renderWebhookCreated(view, created) };
    });

    route
      .get('/webhooks/:webhookId', { permission: 'webhooks.read', view: renderWebhook })
      .handle(async (ctx: Ctx<WebhookParams & { Querystring: { done?: string } }>) => {
        const done = ctx.request.query.done;
        return { data: await webhookData(ctx, NOTICES.find((n) => n === done) ?? null) };
      });

    route.get('/webhooks/:webhookId/edit', { permission: 'webhooks.write', view: renderWebhookForm }).handle(async (ctx: Ctx<WebhookParams>) => {
      const webhook = await webhookOf(ctx);
      return { data: { webhook, values: formValuesOf(webhook), errors: new FieldErrors(), devUrls } };
    });

    route.post('/webhooks/:webhookId/edit', { permission: 'webhooks.write', view: renderWebhookForm }).handle(async (ctx: Ctx<WebhookParams>) => {
      const webhook = await webhookOf(ctx);
      const values = webhookFormOf(ctx.form);
      // A listener has no URL to change; every other field is sent as the form shows it.
      const body = {
        ...(webhook.kind === 'url' ? { url: values.url, ...limitsOf(values) } : {}),
        eventTypes: values.eventTypes,
        description: values.description,
      };
      const outcome = await refusable(() => webhooks.updateWebhook(op(ctx), principalOf(ctx), webhook.webhookId, body));
      if ('errors' in outcome) return { status: 400, data: { webhook, values, errors: outcome.errors, devUrls } };
      return { seeOther: `${hrefOf(webhook.webhookId)}?done=saved` };
    });

    for (const [path, enabled] of [
      ['enable', true],
      ['disable', false],
    ] as const) {
      route.post(`/webhooks/:webhookId/${path}`, { permission: 'webhooks.write' }).handle(async (ctx: Ctx<WebhookParams>) => {
        const webhook = await webhookOf(ctx);
        await webhooks.updateWebhook(op(ctx), principalOf(ctx), webhook.webhookId, { enabled });
        return { seeOther: `${hrefOf(webhook.webhookId)}?done=${enabled ? 'enabled' : 'disabled'}` };
      });
    }

    route.get('/webhooks/:webhookId/rotate', { permission: 'webhooks.write', view: renderRotate }).handle(async (ctx: Ctx<WebhookParams>) => {
      return { data: { webhook: await webhookOf(ctx), overlapHours: String(webhooks.DEFAULT_OVERLAP_HOURS), errors: new FieldErrors() } };
    });

    route.post('/webhooks/:webhookId/rotate', { permission: 'webhooks.write', view: renderRotate }).handle(async (ctx: Ctx<WebhookParams>) => {
      const webhook = await webhookOf(ctx);
      const raw = ctx.form.text('overlapHours').trim();
      // As the API's query string carries it: text, read by the operation; blank is the default.
      const outcome = await refusable(() => webhooks.rotateSecrets(op(ctx), principalOf(ctx), webhook.webhookId, raw === '' ? {} : { overlapHours: raw }));
      if ('errors' in outcome) return { status: 400, data: { webhook, overlapHours: raw, errors: outcome.errors } };
      const rotated = outcome.ok;
      return { page: (view) => renderRotated(view, { webhook, secrets: rotated }) };
    });

    route
      .get('/webhooks/:webhookId/delete', { permission: 'webhooks.write', view: renderDelete })
      .handle(async (ctx: Ctx<WebhookParams>) => ({ data: { webhook: await webhookOf(ctx) } }));

    route.post('/webhooks/:webhookId/delete', { permission: 'webhooks.write' }).handle(async (ctx: Ctx<WebhookParams>) => {
      const webhook = await webhookOf(ctx);
      await webhooks.deleteWebhook(op(ctx), principalOf(ctx), webhook.webhookId);
      return { seeOther: '/portal/webhooks?done=deleted' };
    });

    route
      .get('/webhooks/:webhookId/deliveries', { permission: 'webhooks.read', view: renderDeliveries })
      .handle(async (ctx: Ctx<WebhookParams & { Querystring: DeliveriesQuery }>) => {
        const q = ctx.request.query;
        const n = /^\d{1,9}$/.test(q.n ?? '') ? Number(q.n) : 0;
        const outcome = q.done === 'recovered' || q.done === 'recoveredBefore' ? { requeued: n, repeated: q.done === 'recoveredBefore' } : null;
        return { data: await deliveriesData(ctx, q, { since: '', until: '', errors: new FieldErrors(), outcome, problem: null }) };
      });

    route.post('/webhooks/:webhookId/recover', { permission: 'webhooks.write', view: renderDeliveries }).handle(async (ctx: Ctx<WebhookParams>) => {
      const webhook = await webhookOf(ctx);
      const since = ctx.form.text('since').trim();
      const until = ctx.form.text('until').trim();
      const body = { ...(since !== '' ? { since: instantOf(since) } : {}), ...(until !== '' ? { until: instantOf(until) } : {}) };
      const again = async (status: number, errors: FieldErrors, problem: RecoverForm['problem']) => ({
        status,
        data: await deliveriesData(ctx, {}, { since, until, errors, outcome: null, problem }),
      });
      let outcome;
      try {
        outcome = await refusable(() => deliveries.recoverFailed(op(ctx), principalOf(ctx), webhook.webhookId, body));
      } catch (err) {
        if (isNotReceiving(err)) return again(409, new FieldErrors(), 'notReceiving');
        throw err;
      }
      if ('errors' in outcome) return again(400, outcome.errors, null);
      const { requeued, repeated } = outcome.ok;
      return { seeOther: `${hrefOf(webhook.webhookId)}/deliveries?done=${repeated ? 'recoveredBefore' : 'recovered'}&n=${requeued}` };
    });

    route
      .get('/webhooks/:webhookId/deliveries/:deliveryId', { permission: 'webhooks.read', view: renderDelivery })
      .handle(async (ctx: Ctx<DeliveryParams & { Querystring: { done?: string } }>) => {
        const { webhook, delivery } = await deliveryOf(ctx);
        return { data: { webhook, delivery, notice: ctx.request.query.done === 'redelivered' ? 'redelivered' : null } };
      });

    route
      .post('/webhooks/:webhookId/deliveries/:deliveryId/redeliver', { permission: 'webhooks.write', view: renderDelivery })
      .handle(async (ctx: Ctx<DeliveryParams>) => {
        const { webhook, delivery } = await deliveryOf(ctx);
        let again: { deliveryId: string };
        try {
          again = await deliveries.redeliver(op(ctx), principalOf(ctx), delivery.deliveryId);
        } catch (err) {
          if (!isNotReceiving(err)) throw err;
          return { status: 409, data: { webhook, delivery, notice: 'notReceiving' } };
        }
        return { seeOther: `${hrefOf(webhook.webhookId)}/deliveries/${encodeURIComponent(again.deliveryId)}?done=redelivered` };
      });

    route.post('/webhooks/:webhookId/test', { permission: 'webhooks.write', view: renderWebhook }).handle(async (ctx: Ctx<WebhookParams>) => {
      // Like the API's sandbox operations, this exists only while the sandbox is on.
      if (!deps.config.sandbox) throw notFound('sandbox');
      const webhook = await webhookOf(ctx);
      const eventType = ctx.form.text('eventType');
      // The event goes to every webhook that takes its type: one this webhook does not take would not
      // test it. That is this page's own question; the event itself is checked by the operation.
      if (webhook.eventTypes.length > 0 && !webhook.eventTypes.includes(eventType)) {
        const error: FieldError = { field: 'eventType', code: 'ENUM', message: `must be one of ${webhook.eventTypes.join(', ')}` };
        return { status: 400, data: await webhookData(ctx, null, new FieldErrors([error])) };
      }
      const outcome = await refusable(() => deliveries.recordSandboxEvent(op(ctx), ctx.merchantId, { eventType, ...TEST_EVENT }));
      if ('errors' in outcome) return { status: 400, data: await webhookData(ctx, null, outcome.errors) };
      return { seeOther: `${hrefOf(webhook.webhookId)}/deliveries?done=tested` };
    });
  },
};
