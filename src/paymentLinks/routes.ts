import { appPart } from '../http/app.js';
import type { FastifyRequest } from 'fastify';
import type { Capability } from '../accounts/service.js';
import { ApiError } from '../errors.js';
import { merchantOf, operationOf, requireCapability } from '../http/auth.js';
import { EnvelopeOnly, ProblemSchema, answerWith } from '../http/envelope.js';
import { listRoute } from '../http/paging.js';
import { bodyCheckedByService, checkedByService } from '../http/validation.js';
import { linkTypeOf } from './rules.js';
import { CreateBody, CreateResponse, DetailsParams, DetailsResponse, DisableBody, ListQuery, ListResponse, UpdateBody, type LinkType } from './schemas.js';
import { createPaymentLink, disablePaymentLink, getPaymentLink, listPaymentLinks, updatePaymentLink, CREATE_OPERATION } from './service.js';

// Payment Links API (interface §4.1–4.5; §Creating a link to §Lists, §Idempotent creates, §Clients in the field), under /api/v1.
// Create, update and disable pass the body to their operation in service.ts, which checks all of it
// (the portal calls the same operations); the body schemas here are for the OpenAPI document.

const tags = ['Payment links'];
const POST_ONLY = new Set(['create', 'update', 'disable']);
const errors = { 404: ProblemSchema, 409: ProblemSchema };
const anyLinkKey = { anyOf: ['PaymentLinks', 'TokenizeLinks'] as Capability[] };

/** The capability that creating or changing a link of this type needs (§Authentication). */
function capabilityFor(type: LinkType): Capability {
  return type === 'PayByLink' ? 'PaymentLinks' : 'TokenizeLinks';
}

function requireCapabilityForType(request: FastifyRequest): void {
  const type = linkTypeOf(request.body);
  if (type) requireCapability(request, capabilityFor(type));
}

export const paymentLinkRoutes = appPart('payment-links', ['config', 'db', 'clock', 'sealer'], async (app) => {
  const { config, db, clock, sealer } = app;
  const deps = { config, db, clock, sealer };
  const ok = answerWith(deps.clock);

  listRoute(
    app,
    deps.clock,
    '/paymentlinks',
    {
      config: { auth: anyLinkKey },
      schema: {
        summary: 'Get Payment Links',
        description:
          'The merchant’s links of both types, newest first. Page (from 0) and PageSize are optional (0 and 20 by default). Parameter names are matched without regard to case.',
        tags,
        querystring: ListQuery,
        response: { 200: ListResponse, ...errors },
      },
    },
    (request, _query, { page, pageSize }) => listPaymentLinks(deps, merchantOf(request), page, pageSize),
  );

  app.get(
    '/paymentlinks/:reference',
    {
      config: { auth: anyLinkKey },
      schema: {
        summary: 'Get Payment Link Details',
        description:
          'The link with its items, shopper infos and submissions; status as of now: a link past validUntil or at maxSalesCount reads Expired or Completed.',
        tags,
        params: DetailsParams,
        response: { 200: DetailsResponse, ...errors },
      },
    },
    async (request) => {
      // §Status codes: GET on the fixed POST paths is a wrong method, not a link called "create".
      if (POST_ONLY.has(request.params.reference)) {
        throw new ApiError('METHOD_NOT_ALLOWED', `GET is not allowed here; use POST`, undefined, { Allow: 'POST' });
      }
      return ok(request, { paymentLink: await getPaymentLink(deps, merchantOf(request), request.params.reference) });
    },
  );

  app.post(
    '/paymentlinks/create',
    {
      config: {
        auth: anyLinkKey,
        // The type decides the capability, and a key without it gets no earlier answer either.
        create: { operation: CREATE_OPERATION, checkOrigin: true, before: requireCapabilityForType },
      },
      validatorCompiler: bodyCheckedByService,
      schema: {
        summary: 'Create Payment Link',
        description:
          'PayByLink needs the PaymentLinks capability, TokenizeByLink the TokenizeLinks one. Every failing field is reported at once in `errors`. ' +
          'An Idempotency-Key header makes a retry return the first response.',
        tags,
        body: checkedByService(CreateBody),
        response: { 200: CreateResponse, ...errors },
      },
    },
    async (request) => {
      return ok(request, await createPaymentLink(operationOf(deps, request), merchantOf(request), request.body, request.idempotencyKey));
    },
  );

  // Update and disable change a link that exists: the capability its type needs is checked once the link is read.
  const changes = [
    {
      path: '/paymentlinks/update',
      summary: 'Update Payment Link',
      description:
        'The link representation, identified by paymentLinkReference. A field left out keeps its value; null clears a nullable one. ' +
        'amount, currency and items change only while salesCount is 0; immutable fields may be sent unchanged. A Disabled link answers 409.',
      body: UpdateBody,
      change: updatePaymentLink,
    },
    {
      path: '/paymentlinks/disable',
      summary: 'Disable Payment Link',
      description: 'Immediate and final; disabling a Disabled link succeeds again.',
      body: DisableBody,
      change: disablePaymentLink,
    },
  ];
  for (const c of changes) {
    app.post(
      c.path,
      {
        config: { auth: anyLinkKey },
        validatorCompiler: bodyCheckedByService,
        schema: {
          summary: c.summary,
          description: c.description,
          tags,
          body: checkedByService(c.body),
          response: { 200: EnvelopeOnly, ...errors },
        },
      },
      async (request) => {
        await c.change(operationOf(deps, request), merchantOf(request), request.body, (type) => requireCapability(request, capabilityFor(type)));
        return ok(request, {});
      },
    );
  }
});
