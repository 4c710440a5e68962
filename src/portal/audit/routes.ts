import { auditPage } from '../../audit/service.js';
import type { PortalArea } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { renderAudit } from './views.js';

// The audit log (§The portal's audit log), for owners: newest first, fifty at a time, paged by keyset
// (entries written meanwhile never shift a page).

export const auditArea: PortalArea = {
  styles: `
.details { list-style: none; margin: 0; padding: 0; font-size: .85rem; }
td.nowrap { white-space: nowrap; }
`,
  routes(portal, deps) {
    const route = portalRouter(portal, deps);
    route
      .get('/audit', { permission: 'audit.read', view: renderAudit })
      .handle(async ({ request, merchantId }: Ctx<{ Querystring: { before?: string; after?: string } }>) => ({
        data: await auditPage(deps.db, merchantId, request.query),
      }));
  },
};
