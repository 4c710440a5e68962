import { auditPage } from '../../audit/service.js';
import type { PortalArea } from '../http.js';
import { portalRouter, type PageData } from '../route.js';
import { renderAudit } from './views.js';

// The audit log (§The portal's audit log), for owners: newest first, fifty at a time, paged by keyset
// (entries written meanwhile never shift a page).

export const auditArea: PortalArea = {
  styles: `
.details { list-style: none; margin: 0; padding: 0; font-size: .85rem; }
td.nowrap { white-space: nowrap; }
`,
  routes(portal, deps) {
    portalRouter(
      portal,
      deps,
    )<{ Querystring: { before?: string; after?: string } }, PageData<typeof renderAudit>>({
      method: 'GET',
      url: '/audit',
      permission: 'audit.read',
      view: renderAudit,
      handler: async ({ request, merchantId }) => ({ data: await auditPage(deps.db, merchantId, request.query) }),
    });
  },
};
