import { appPart } from '../http/app.js';
import type { Capability } from '../accounts/service.js';
import { merchantOf, operationOf } from '../http/auth.js';
import { ProblemSchema, answerWith } from '../http/envelope.js';
import { pageOf } from '../http/paging.js';
import { bodyCheckedByService, checkedByService } from '../http/validation.js';
import { CodeParams, CodeResponse, CreateBody, ListQuery, ListResponse, UpdateBody } from './schemas.js';
import { CREATE_OPERATION, createPromotionCode, getPromotionCode, keptCreateAnswer, listPromotionCodes, updatePromotionCode } from './service.js';

// Promotion codes (docs/api.md, Promotion codes), under /api/v1. A key that makes payment links makes
// the codes its links take. The bodies go as they came to the service, which checks them (the portal's
// pages call the same operations); the schemas here are for the OpenAPI document.

const tags = ['Promotion codes'];
const auth = { anyOf: ['PaymentLinks'] as Capability[] };
const errors = { 404: ProblemSchema };

export const promotionCodeRoutes = appPart('promotion-codes', ['db', 'clock', 'sealer'], async (app) => {
  const { db, clock, sealer } = app;
  const deps = { db, clock, sealer };
  const ok = answerWith(deps.clock);

  app.post(
    '/promotioncodes',
    {
      config: { auth, create: { operation: CREATE_OPERATION, kept: keptCreateAnswer } },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags,
        summary: 'Create a promotion code',
        description:
          'A code the shopper may type on the payment page of a link with allowPromotionCodes: percentOff (1–100) or amountOff with its currency ' +
          '(the code then applies to payments in that currency only), an optional expiresAt and maxRedemptions, active by default. Codes are ' +
          'unique per merchant without regard to case. Every failing field is reported at once in `errors`.',
        body: checkedByService(CreateBody),
        response: { 200: CodeResponse },
      },
    },
    async (request) =>
      ok(request, { promotionCode: await createPromotionCode(operationOf(deps, request), merchantOf(request), request.body, request.idempotencyKey) }),
  );

  app.get(
    '/promotioncodes',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'List promotion codes',
        description: 'The merchant’s codes, newest first, with their redemptionCount. Page (from 0) and PageSize are optional (0 and 20 by default).',
        querystring: ListQuery,
        response: { 200: ListResponse },
      },
    },
    async (request) => {
      const { page, pageSize } = pageOf(request.query);
      return ok(request, await listPromotionCodes(deps, merchantOf(request), page, pageSize));
    },
  );

  app.get(
    '/promotioncodes/:promotionCodeId',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Read a promotion code',
        description: 'The code, its discount, expiry, cap, whether it is active, and how many successful payments used it. Another merchant’s code is 404.',
        params: CodeParams,
        response: { 200: CodeResponse, ...errors },
      },
    },
    async (request) => ok(request, { promotionCode: await getPromotionCode(deps, merchantOf(request), request.params.promotionCodeId) }),
  );

  app.post(
    '/promotioncodes/:promotionCodeId/update',
    {
      config: { auth },
      validatorCompiler: bodyCheckedByService,
      schema: {
        tags,
        summary: 'Update a promotion code',
        description:
          'Change active, expiresAt (null: never) or maxRedemptions (null: unlimited; not below redemptionCount); a field left out keeps its value. ' +
          'The code and its discount do not change.',
        params: CodeParams,
        body: checkedByService(UpdateBody),
        response: { 200: CodeResponse, ...errors },
      },
    },
    async (request) =>
      ok(request, { promotionCode: await updatePromotionCode(operationOf(deps, request), merchantOf(request), request.params.promotionCodeId, request.body) }),
  );
});
