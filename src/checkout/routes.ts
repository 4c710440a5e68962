import { appPart } from '../http/app.js';
import { actorOf, merchantOf } from '../http/auth.js';
import { ProblemSchema, answerWith } from '../http/envelope.js';
import { bodyCheckedByService, checkedByService } from '../http/validation.js';
import { CreateCheckoutBody, CreateCheckoutResponse, StatusParams, StatusResponse } from './schemas.js';
import { CREATE_SESSION_OPERATION, createSession, sessionStatus } from './service.js';

// Hosted checkout API (interface §4.6, §Hosted checkout, §Idempotent creates, §Clients in the field), under /api/v1.

const tags = ['Hosted checkout'];
const errors = { 404: ProblemSchema, 409: ProblemSchema };

export const hostedCheckoutRoutes = appPart('hosted-checkout', ['config', 'db', 'clock', 'sealer'], async (app) => {
  const { db, clock, config } = app;
  const deps = { sealer: app.sealer };
  const ok = answerWith(clock);

  app.post(
    '/hostedcheckout',
    {
      config: { auth: { anyOf: ['HostedCheckout'] }, create: { operation: CREATE_SESSION_OPERATION, checkOrigin: true } },
      // The body is checked by createSession, which names every failing field; the schema is for the OpenAPI document.
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags,
        summary: 'Create a hosted checkout session (Basic Checkout Request)',
        description:
          'Required: amount, currency, returnUrl, reference, terminalIdentifier; eleven optional parameters. Every failing field is ' +
          'reported at once in `errors`. An Idempotency-Key header makes a retry return the first response.',
        body: checkedByService(CreateCheckoutBody),
        response: { 200: CreateCheckoutResponse, ...errors },
      },
    },
    async (request) => {
      return ok(
        request,
        await createSession(
          { db, clock, sealer: deps.sealer, publicBaseUrl: config.publicBaseUrl, actor: actorOf(request) },
          merchantOf(request),
          request.body,
          request.idempotencyKey,
        ),
      );
    },
  );

  const statusRoute = {
    config: { auth: { anyOf: ['HostedCheckout' as const] } },
    schema: {
      tags,
      summary: 'Read the status of a checkout',
      description:
        "New, Completed or Expired (the moment expiresAt passes); payfacReference is null until Completed. Every checkoutReference a payment's events carry answers here: a session's, a link payment's checkout (Completed when paid, Expired when that payment was refused: the shopper's next try is a checkout of its own) and a saved-card charge's (New while its 3-D Secure step waits, Expired when that step ran out or the charge was refused). POST answers the same, for older clients.",
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
});
