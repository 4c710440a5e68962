import { auditPage } from '../../audit/service.js';
import { sendPage, viewFor, type PortalArea } from '../http.js';
import { renderAudit } from './views.js';

// The audit log (§The portal's audit log), for owners: newest first, fifty at a time, the next page
// continuing before the last entry shown (entries written meanwhile never shift a page).

export const auditArea: PortalArea = {
  styles: `
.details { list-style: none; margin: 0; padding: 0; font-size: .85rem; }
td.nowrap { white-space: nowrap; }
.audit-pager { display: flex; justify-content: space-between; align-items: center; gap: 1rem; flex-wrap: wrap; }
.audit-pager .pager { margin-left: auto; }
`,
  routes(portal, deps) {
    portal.get<{ Querystring: { before?: string } }>(
      '/audit',
      { config: { portal: { permission: 'audit.read' } }, schema: { hide: true } },
      async (request, reply) => {
        const view = await viewFor(request, reply, deps);
        const before = typeof request.query.before === 'string' ? request.query.before : null;
        const { entries, next } = await auditPage(deps.db, view.merchant.merchantId, before);
        return sendPage(reply, 200, renderAudit(view, { entries, next, paged: before !== null }));
      },
    );
  },
};
