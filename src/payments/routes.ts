import { appPart } from '../http/app.js';
import { actorOf, merchantOf } from '../http/auth.js';
import { ProblemSchema, answerWith } from '../http/envelope.js';
import { bodyCheckedByService, checkedByService } from '../http/validation.js';
import { requestModification } from './modifications/service.js';
import {
  AdjustBody,
  CaptureBody,
  DisableTokenBody,
  DisableTokenResponse,
  ModificationResponse,
  RefundBody,
  ReverseBody,
  TokenPaymentBody,
  TokenPaymentResponse,
} from './schemas.js';
import { TOKEN_PAYMENT_OPERATION, chargeToken, disableToken } from './tokens/service.js';

// Modifications and token payments (§Modifications and saved cards), under /api/v1, with the HostedCheckout capability. Bodies
// are matched as the plugins in the field send them (§Clients in the field: any case, digit-string amounts, null as absent).
// Each body is checked by the operation the route calls (the portal calls the same ones); the schemas here are for the OpenAPI document.

const errors = { 404: ProblemSchema, 409: ProblemSchema };
const auth = { anyOf: ['HostedCheckout' as const] };

const LEDGER =
  'Accepted at once as Received; the acquirer completes it afterwards and its outcome arrives as a webhook whose payfacReference is the one ' +
  "answered here and whose additionalData.originalPayfacReference is the payment's. Over the limit: 400 with a field code on amount " +
  '(EXCEEDS_CAPTURABLE, EXCEEDS_REFUNDABLE); another currency: 400 CURRENCY_MISMATCH; a refused or reversed payment: 409 INVALID_STATE; ' +
  'a capture or adjustment after the authorisation expired (PAYLINKS_AUTHORISATION_EXPIRY_DAYS): 409 AUTHORISATION_EXPIRED; ' +
  "another merchant's payment: 404.";

export const paymentRoutes = appPart('payments', ['config', 'db', 'clock', 'sealer', 'acquirer'], async (app) => {
  const { config, sealer, db, clock, acquirer } = app;
  const deps = { config, sealer };
  const tags = ['Modifications'];
  const ok = answerWith(clock);

  // Capture, refund, reversal and adjustment are one operation of four kinds (requestModification), a route each.
  const modifications = [
    {
      path: '/modification/capture',
      kind: 'Capture',
      body: CaptureBody,
      summary: 'Capture an authorised payment, in full or in part',
      description:
        'For payments with manual capture or a pre-authorisation (authorisationType PreAuth). Partial captures add up to at most the authorised amount, ' +
        'counting captures still in progress. Outcome: a Capture webhook. ',
    },
    {
      path: '/modification/refund',
      kind: 'Refund',
      body: RefundBody,
      summary: 'Refund a captured payment, in full or in part',
      description: 'Partial refunds add up to at most the captured amount, counting refunds still in progress. Outcome: a Refund webhook. ',
    },
    {
      path: '/modification/reverse',
      kind: 'Reversal',
      body: ReverseBody,
      summary: 'Reverse a payment: cancel it if nothing was captured, else refund what is left',
      description:
        'Settled after every modification accepted before it. A payment with nothing captured is cancelled (its authorisation released, ' +
        'nothing more can be captured); a captured one is refunded what was not refunded yet. Afterwards the payment takes no more ' +
        'modifications. Outcome: a Refund webhook (amount: what was released or refunded). ',
    },
    {
      path: '/modification/adjust',
      kind: 'Adjustment',
      body: AdjustBody,
      summary: 'Adjust the authorised amount of a payment not yet captured in full',
      description:
        'For payments with manual capture or a pre-authorisation (authorisationType PreAuth) not yet captured in full; otherwise 409 INVALID_STATE. ' +
        'amount is the new authorised amount, higher or lower, at least what is captured or being captured (else 400 BELOW_CAPTURED). ' +
        'Captures afterwards are bounded by the adjusted amount. Outcome: an Adjustment webhook (amount: the new authorised amount; ' +
        'success "false" with a reason when the acquirer refuses it: the sandbox refuses an increase above twice the amount first authorised). ',
    },
  ] as const;
  for (const m of modifications) {
    app.post(
      m.path,
      {
        config: { auth },
        validatorCompiler: bodyCheckedByService,
        schema: {
          tags,
          summary: m.summary,
          description: m.description + LEDGER,
          body: checkedByService(m.body),
          response: { 200: ModificationResponse, ...errors },
        },
      },
      async (request) =>
        ok(request, await requestModification({ db, clock, config: deps.config, actor: actorOf(request) }, merchantOf(request), m.kind, request.body)),
    );
  }

  app.post(
    '/payment',
    {
      config: { auth, create: { operation: TOKEN_PAYMENT_OPERATION } },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags: ['Token payments'],
        summary: 'Charge a saved card',
        description:
          'Charges a token saved by a TokenizeByLink or a checkout session with recurringProcessingModel. tokenDetails.recurringProcessingModel ' +
          'decides who is present: CardOnFile (shopper present) may charge any saved card; Subscription and UnscheduledCardOnFile ' +
          '(merchant-initiated) only a card saved for that same model, else 400 MODEL_MISMATCH. channel is recorded as given. ' +
          'A CardOnFile charge on channel Web whose card asks for 3-D Secure answers RedirectShopper: send the shopper to redirect.url; ' +
          'after the step the shopper returns to returnUrl with checkoutReference added, and the outcome arrives as webhooks. ' +
          'Merchant-initiated charges never redirect. Authorised payments are captured at once. Webhooks: Authorization (success "true" or "false"), then Capture. A disabled token: ' +
          "409 INVALID_STATE; another merchant's token: 404. An Idempotency-Key header makes a retry return the first answer.",
        body: checkedByService(TokenPaymentBody),
        response: { 200: TokenPaymentResponse, ...errors },
      },
    },
    async (request) => {
      const tokenDeps = { db, clock, acquirer, sealer: deps.sealer, publicBaseUrl: deps.config.publicBaseUrl, actor: actorOf(request) };
      return ok(request, await chargeToken(tokenDeps, merchantOf(request), request.body, request.idempotencyKey));
    },
  );

  app.post(
    '/payment/disable-token',
    {
      config: { auth },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags: ['Token payments'],
        summary: 'Disable a saved card',
        description:
          'The token can no longer be charged. Raises a TokenDisabled webhook (additionalData.token). Disabling it again succeeds again, without a second webhook.',
        body: checkedByService(DisableTokenBody),
        response: { 200: DisableTokenResponse, ...errors },
      },
    },
    async (request) => ok(request, await disableToken({ db, clock, sealer: deps.sealer, actor: actorOf(request) }, merchantOf(request), request.body)),
  );
});
