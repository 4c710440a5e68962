import { switchMerchant } from '../../users/service.js';
import { acceptInvitation, declineInvitation, pendingInvitations } from '../../users/memberships/service.js';
import { notFound } from '../../errors.js';
import type { PortalArea } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { PORTAL } from '../views/layout.js';
import { renderInvitations } from './views.js';

// The signed-in person's invitations (docs/portal.md, "Users"): an owner's invitation of an address
// that has an account already waits here until the person accepts or declines it. Each answer is
// written to the audit log of the merchant that invited, with the person as who acted.

type MerchantParams = { Params: { merchantId: string } };

export const invitationsArea: PortalArea = {
  routes(portal, deps) {
    const { db, clock } = deps;
    const route = portalRouter(portal, deps);

    route
      .get('/invitations', { permission: 'portal.use', view: renderInvitations })
      .handle(async ({ request, session }: Ctx<{ Querystring: { done?: string } }>) => ({
        data: { invitations: await pendingInvitations(db, clock, session.userId), notice: request.query.done === 'declined' ? ('declined' as const) : null },
      }));

    // Each answer is written to the log of the merchant that invited.
    route
      .post('/invitations/:merchantId/accept', { permission: 'portal.use', audit: 'membership.accept' })
      .handle(async ({ request, session }: Ctx<MerchantParams>) => {
        const merchantId = request.params.merchantId;
        const accepted = await acceptInvitation(db, clock, session.userId, merchantId);
        if (!accepted) throw notFound('invitation');
        // The session goes on with the merchant just joined.
        await switchMerchant(db, session, merchantId);
        return { seeOther: PORTAL, audit: { merchantId, target: session.email, details: { role: accepted.role } } };
      });

    route
      .post('/invitations/:merchantId/decline', { permission: 'portal.use', audit: 'membership.decline' })
      .handle(async ({ request, session }: Ctx<MerchantParams>) => {
        const merchantId = request.params.merchantId;
        const declined = await declineInvitation(db, clock, session.userId, merchantId);
        if (!declined) throw notFound('invitation');
        return { seeOther: `${PORTAL}/invitations?done=declined`, audit: { merchantId, target: session.email, details: { role: declined.role } } };
      });
  },
};
