import { auditPage } from '../../audit/service.js';
import { sendPage, viewFor, type PortalArea } from '../http.js';
import { renderAudit } from './views.js';

// The audit log (§The portal's audit log), for owners: newest first, fifty at a time, paged by keyset
// (entries written meanwhile never shift a page).

export const auditArea: PortalArea = {
  styles: `
.details { list-style: none; margin: 0; padding: 0; font-size: .85rem; }
td.nowrap { white-space: nowrap; }
`,
  routes(portal, deps) {
    portal.get<{ Querystring: { before?: string; after?: string } }>(
      '/audit',
      { config: { portal: { permission: 'audit.read' } }, schema: { hide: true } },
      async (request, reply) => {
        const view = await viewFor(request, reply, deps);
        return sendPage(reply, 200, renderAudit(view, await auditPage(deps.db, view.merchant.merchantId, request.query)));
      },
    );
  },
};
