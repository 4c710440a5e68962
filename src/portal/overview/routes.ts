import { NOTHING, readTogether } from '../../db/together.js';
import { merchantWaitingRead } from '../../payments/authorisations/service.js';
import { dailySalesRead, newestPaymentsRead } from '../../payments/service.js';
import { webhookHealthRead } from '../../webhooks/deliveries/service.js';
import { hasPendingInvitationRead } from '../../users/memberships/service.js';
import { can } from '../access.js';
import type { PortalArea } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { merchantPrincipal } from '../webhooks/routes.js';
import { OVERVIEW_STYLES, renderOverview, type Period } from './views.js';

// The portal's first page after sign-in: sales of the last 7 or 30 days, the newest payments and the
// failing webhooks (for those who may read webhooks), read together: each module's read in one
// statement (src/db/together.ts; a statement apiece cost the page more than its rows,
// docs/performance.md, "The overview").

const RECENT = 5;

export const overviewArea: PortalArea = {
  styles: OVERVIEW_STYLES,
  routes(portal, deps) {
    const route = portalRouter(portal, deps);
    route
      .get('/', { permission: 'portal.use', view: renderOverview })
      .handle(async ({ request, session, merchantId }: Ctx<{ Querystring: { days?: string } }>) => {
        const period: Period = request.query.days === '30' ? 30 : 7;
        const [sales, recent, waiting, invitationsWaiting, webhooks] = await readTogether(deps.db.pool, [
          dailySalesRead(deps, merchantId, period),
          newestPaymentsRead(deps, merchantId, RECENT),
          merchantWaitingRead(deps, merchantId),
          hasPendingInvitationRead(deps.clock, session.userId),
          can(session.role, 'webhooks.read') ? webhookHealthRead(deps, merchantPrincipal(session), 7) : NOTHING,
        ] as const);
        return {
          data: {
            period,
            since: sales.since,
            waiting,
            sales: sales.rows,
            recent,
            failing: webhooks?.failing ?? null,
            invitationsWaiting,
            hasWebhook: webhooks?.hasWebhook ?? false,
          },
        };
      });
  },
};
