import type { PortalArea } from '../http.js';
import { sendPage, viewFor } from '../http.js';
import { renderOverview } from './views.js';

// The portal's first page after sign-in.

export const overviewArea: PortalArea = {
  routes(portal, deps) {
    portal.get('/', { config: { portal: { permission: 'portal.use' } }, schema: { hide: true } }, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, 200, renderOverview(view));
    });
  },
};
