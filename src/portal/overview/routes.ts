import { dailySales, searchPayments } from '../../payments/service.js';
import { failingWebhooks } from '../../webhooks/deliveries/service.js';
import { pendingInvitations } from '../../users/memberships/service.js';
import { listWebhooks } from '../../webhooks/service.js';
import { can } from '../access.js';
import type { PortalArea } from '../http.js';
import { sendPage, sessionOfRequest, viewFor } from '../http.js';
import { merchantPrincipal } from '../webhooks/routes.js';
import { OVERVIEW_STYLES, renderOverview, type Period } from './views.js';

// The portal's first page after sign-in: sales of the last 7 or 30 days, the newest payments and the
// failing webhooks (for those who may read webhooks), read together.

const RECENT = 5;
const NO_FILTER = { state: null, from: null, until: null, reference: null };

export const overviewArea: PortalArea = {
  styles: OVERVIEW_STYLES,
  routes(portal, deps) {
    portal.get<{ Querystring: { days?: string } }>(
      '/',
      { config: { portal: { permission: 'portal.use' } }, schema: { hide: true } },
      async (request, reply) => {
        const session = sessionOfRequest(request);
        const period: Period = request.query.days === '30' ? 30 : 7;
        const [view, sales, recent, failing, invitations, webhooks] = await Promise.all([
          viewFor(request, reply, deps),
          dailySales(deps, session.merchantId, period),
          searchPayments(deps, session.merchantId, NO_FILTER, null, RECENT),
          can(session.role, 'webhooks.read') ? failingWebhooks(deps, merchantPrincipal(session), 7) : null,
          pendingInvitations(deps.db, deps.clock, session.userId),
          // Whether there is any webhook at all: with none, nothing fails, and "every webhook is delivering" would mislead.
          can(session.role, 'webhooks.read') ? listWebhooks(deps, merchantPrincipal(session), 0, 1) : null,
        ]);
        return sendPage(
          reply,
          200,
          renderOverview(view, {
            period,
            since: sales.since,
            sales: sales.rows,
            recent: recent.payments,
            failing,
            invitations: invitations.length,
            webhookCount: webhooks?.totalCount ?? 0,
          }),
        );
      },
    );
  },
};
