import { merchantWaiting } from '../../payments/authorisations/service.js';
import { dailySales, searchPayments } from '../../payments/service.js';
import { webhookHealth } from '../../webhooks/deliveries/service.js';
import { hasPendingInvitation } from '../../users/memberships/service.js';
import { can } from '../access.js';
import type { PortalArea } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { merchantPrincipal } from '../webhooks/routes.js';
import { OVERVIEW_STYLES, renderOverview, type Period } from './views.js';

// The portal's first page after sign-in: sales of the last 7 or 30 days, the newest payments and the
// failing webhooks (for those who may read webhooks), read together.

const RECENT = 5;
const NO_FILTER = { state: null, from: null, until: null, reference: null };

export const overviewArea: PortalArea = {
  styles: OVERVIEW_STYLES,
  routes(portal, deps) {
    const route = portalRouter(portal, deps);
    route
      .get('/', { permission: 'portal.use', view: renderOverview })
      .handle(async ({ request, session, merchantId }: Ctx<{ Querystring: { days?: string } }>) => {
        const period: Period = request.query.days === '30' ? 30 : 7;
        const [sales, recent, webhooks, invitationsWaiting] = await Promise.all([
          dailySales(deps, merchantId, period),
          searchPayments(deps, merchantId, NO_FILTER, null, RECENT),
          can(session.role, 'webhooks.read') ? webhookHealth(deps, merchantPrincipal(session), 7) : null,
          hasPendingInvitation(deps.db, deps.clock, session.userId),
        ]);
        // Its own query, after the others: one index range of the merchant's uncaptured authorisations.
        const waiting = await merchantWaiting(deps, merchantId);
        return {
          data: {
            period,
            since: sales.since,
            waiting,
            sales: sales.rows,
            recent: recent.payments,
            failing: webhooks?.failing ?? null,
            invitationsWaiting,
            hasWebhook: webhooks?.hasWebhook ?? false,
          },
        };
      });
  },
};
