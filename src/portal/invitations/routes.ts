import { switchMerchant, type PortalSession } from '../../users/service.js';
import { acceptInvitation, declineInvitation, pendingInvitations } from '../../users/memberships/service.js';
import { notFound } from '../../errors.js';
import type { PortalArea } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { PORTAL } from '../views/layout.js';
import { renderInvitations } from './views.js';

// The signed-in person's invitations (docs/portal.md, "Users"): an owner's invitation of an address
// that has an account already waits here until the person accepts or declines it. Each answer is
// written to the audit log of the merchant that invited, with the person as who acted (the
// memberships module's operations record it).

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

    const answer = (
      verb: 'accept' | 'decline',
      apply: typeof acceptInvitation,
      then: (session: PortalSession, merchantId: string) => Promise<string>,
    ): void => {
      route.post(`/invitations/:merchantId/${verb}`, { permission: 'portal.use' }).handle(async ({ request, session, actor }: Ctx<MerchantParams>) => {
        const merchantId = request.params.merchantId;
        const answered = await apply({ db, clock, actor }, session.userId, merchantId);
        if (!answered) throw notFound('invitation');
        return { seeOther: await then(session, merchantId) };
      });
    };
    // The session goes on with the merchant just joined.
    answer('accept', acceptInvitation, async (session, merchantId) => {
      await switchMerchant(db, session, merchantId);
      return PORTAL;
    });
    answer('decline', declineInvitation, async () => `${PORTAL}/invitations?done=declined`);
  },
};
