import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { App, AppDeps } from '../deps.js';
import type { FieldError } from '../errors.js';
import { merchantOf } from '../http/auth.js';
import { ProblemSchema, envelope } from '../http/envelope.js';
import { toFieldErrors, type JsonSchema } from '../http/validation.js';
import { earlierResponse, readIdempotencyKey } from '../idempotency/service.js';
import { checkOrigin } from '../paymentLinks/service.js';
import { CreateCheckoutBody, CreateCheckoutResponse, StatusParams, StatusResponse } from './schemas.js';
import { CREATE_SESSION_OPERATION, createSession, sessionStatus, validateCreateSession } from './service.js';

// Hosted checkout API (interface.md 4.6, D10, D16, D18), under /api/v1.

const tags = ['Hosted checkout'];
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema };

/** Schema errors collected (attachValidation) so that the D10 rules are reported with them (D2). */
function schemaErrorsOf(request: FastifyRequest): FieldError[] {
  const v = request.validationError as { validation?: unknown } | undefined;
  if (!v || !Array.isArray(v.validation)) return [];
  return toFieldErrors(v.validation, request.routeOptions.schema?.body as JsonSchema | undefined);
}

export async function hostedCheckoutRoutes(app: App, deps: AppDeps): Promise<void> {
  const { db, clock, config } = deps;
  const ok = <T extends object>(request: FastifyRequest, body: T) => ({ ...body, ...envelope(request.id, clock) });

  app.post(
    '/hostedcheckout',
    {
      config: { auth: { anyOf: ['HostedCheckout'] }, normalize: 'create' },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Create a hosted checkout session (Basic Checkout Request)',
        description:
          'Required: amount, currency, returnUrl, reference, terminalIdentifier; eleven optional parameters. Every failing field is ' +
          'reported at once in `errors`. An Idempotency-Key header makes a retry return the first response.',
        headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', description: '1–255 visible ASCII characters; a retry with the same key and body answers the first response again' } } },
        body: CreateCheckoutBody,
        response: { 200: CreateCheckoutResponse, ...errors },
      },
    },
    async (request) => {
      const merchantId = merchantOf(request);
      await checkOrigin(db, merchantId, request.headers.origin);
      const key = readIdempotencyKey(request.headers['idempotency-key']);
      const replay = await earlierResponse(db, clock, { ownerId: merchantId, key, operation: CREATE_SESSION_OPERATION, body: request.body });
      if (replay) return ok(request, replay as Static<typeof CreateCheckoutResponse>);
      const valid = await validateCreateSession(db, merchantId, request.body, schemaErrorsOf(request), clock.now());
      return ok(request, await createSession({ db, clock, publicBaseUrl: config.publicBaseUrl }, merchantId, valid, key));
    },
  );

  const statusRoute = {
    config: { auth: { anyOf: ['HostedCheckout' as const] } },
    schema: {
      tags,
      summary: 'Read the status of a checkout session',
      description: 'New, Completed or Expired (the moment expiresAt passes); payfacReference is null until Completed. POST answers the same, for older clients.',
      params: StatusParams,
      response: { 200: StatusResponse, ...errors },
    },
  };
  app.get('/hostedcheckout/status/:checkoutReference', statusRoute, async (request) =>
    ok(request, await sessionStatus({ db, clock }, merchantOf(request), request.params.checkoutReference)),
  );
  app.post('/hostedcheckout/status/:checkoutReference', statusRoute, async (request) =>
    ok(request, await sessionStatus({ db, clock }, merchantOf(request), request.params.checkoutReference)),
  );
}
