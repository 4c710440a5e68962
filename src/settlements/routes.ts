import { appPart } from '../http/app.js';
import type { Capability } from '../accounts/service.js';
import { merchantOf, operationOf } from '../http/auth.js';
import { ProblemSchema, answerWith } from '../http/envelope.js';
import { listRoute } from '../http/paging.js';
import { settlementCsv, settlementCsvName } from './csv.js';
import { DetailsParams, DetailsResponse, ListQuery, ListResponse, SandboxRunResponse } from './schemas.js';
import { getSettlement, listSettlements, runSandboxSettlement } from './service.js';

// Settlements (docs/api.md, Settlements), under /api/v1: the merchant's batches, a batch with its lines or
// as CSV, and the sandbox's run. Any key that takes payments reads them.

const tags = ['Settlements'];
const auth = { anyOf: ['PaymentLinks', 'TokenizeLinks', 'HostedCheckout'] as Capability[] };
const errors = { 404: ProblemSchema };

export const settlementRoutes = appPart('settlements', ['config', 'db', 'clock'], async (app) => {
  const { config, db, clock } = app;
  const deps = { config, db, clock };
  const ok = answerWith(deps.clock);

  listRoute(
    app,
    deps.clock,
    '/settlements',
    {
      config: { auth },
      schema: {
        summary: 'Get Settlements',
        description:
          'The merchant’s settlement batches (one per currency and cut-off), newest first. Page (from 0) and PageSize are optional (0 and 20 by default), as for the link list.',
        tags,
        querystring: ListQuery,
        response: { 200: ListResponse, ...errors },
      },
    },
    (request, _query, { page, pageSize }) => listSettlements(deps, merchantOf(request), page, pageSize),
  );

  app.get(
    '/settlements/:settlementId',
    {
      config: { auth },
      schema: {
        summary: 'Get Settlement Details',
        description: 'A batch with every line: each capture and refund, its signed amount and its fee.',
        tags,
        params: DetailsParams,
        response: { 200: DetailsResponse, ...errors },
      },
    },
    async (request) => ok(request, { settlement: await getSettlement(deps, merchantOf(request), request.params.settlementId) }),
  );

  app.get(
    '/settlements/:settlementId/csv',
    {
      config: { auth },
      schema: {
        summary: 'Download a settlement as CSV',
        description: 'One row per line, then a Total row with the batch’s grossAmount, feeAmount and netAmount; amounts in minor units.',
        tags,
        params: DetailsParams,
        produces: ['text/csv'],
        response: { 200: { type: 'string', description: 'text/csv' }, ...errors },
      },
    },
    async (request, reply) => {
      const s = await getSettlement(deps, merchantOf(request), request.params.settlementId);
      return reply
        .header('Content-Disposition', `attachment; filename="${settlementCsvName(s)}"`)
        .header('Cache-Control', 'no-store')
        .type('text/csv; charset=utf-8')
        .send(settlementCsv(s));
    },
  );

  // Sandbox only: otherwise the path is unknown (404), like the other sandbox operations.
  if (!deps.config.sandbox) return;

  app.post(
    '/sandbox/settlements/run',
    {
      config: { auth },
      schema: {
        tags: ['Sandbox'],
        summary: 'Settle now',
        description:
          'Sandbox only. Everything the merchant captured or refunded until now and not settled yet goes into batches cut off now (one per currency), ' +
          'so a developer sees a payout at once instead of at the daily cut-off. Answers the batches made.',
        response: { 200: SandboxRunResponse },
      },
    },
    async (request) => ok(request, { data: await runSandboxSettlement(operationOf(deps, request), merchantOf(request)) }),
  );
});
