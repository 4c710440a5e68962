import { getSettlement, listSettlements } from '../../settlements/service.js';
import { settlementCsv, settlementCsvName } from '../../settlements/csv.js';
import { PAGE_SIZE, pageParam, type PortalArea, type PortalDeps } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { renderSettlementDetail, renderSettlementList } from './views.js';

// Settlements in the portal (docs/portal.md, Settlements): the batches of the settlements module, a batch
// with its lines, and the same CSV the API gives. Everyone who reads payments reads them.

type IdParams = { Params: { settlementId: string } };

export const settlementsArea: PortalArea = {
  routes(portal, deps: PortalDeps) {
    const route = portalRouter(portal, deps);

    route
      .get('/settlements', { permission: 'payments.read', view: renderSettlementList })
      .handle(async ({ request, merchantId }: Ctx<{ Querystring: { page?: string } }>) => {
        const page = pageParam(request.query.page);
        const { data, totalCount } = await listSettlements(deps, merchantId, page, PAGE_SIZE);
        return { data: { settlements: data, page, pageSize: PAGE_SIZE, totalCount } };
      });

    route
      .get('/settlements/:settlementId', { permission: 'payments.read', view: renderSettlementDetail })
      .handle(async ({ request, merchantId }: Ctx<IdParams>) => ({ data: await getSettlement(deps, merchantId, request.params.settlementId) }));

    route.get('/settlements/:settlementId/export.csv', { permission: 'payments.read' }).handle(async ({ request, reply, merchantId }: Ctx<IdParams>) => {
      const s = await getSettlement(deps, merchantId, request.params.settlementId);
      reply
        .header('Content-Disposition', `attachment; filename="${settlementCsvName(s)}"`)
        .header('Cache-Control', 'no-store')
        .type('text/csv; charset=utf-8');
      return { sent: reply.send(settlementCsv(s)) };
    });
  },
};
