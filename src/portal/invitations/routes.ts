import type { FastifyRequest } from 'fastify';
import { recordAudit, type AuditAction } from '../../audit/service.js';
import { switchMerchant } from '../../users/service.js';
import { acceptInvitation, declineInvitation, pendingInvitations } from '../../users/memberships/service.js';
import { notFound } from '../../errors.js';
import { seeOther, sendPage, sessionOfRequest, viewFor, type PortalArea } from '../http.js';
import { PORTAL } from '../views/layout.js';
import { renderInvitations } from './views.js';

// The signed-in person's invitations (docs/portal.md, "Users"): an owner's invitation of an address
// that has an account already waits here until the person accepts or declines it. Each answer is
// written to the audit log of the merchant that invited, with the person as who acted.

type MerchantParams = { Params: { merchantId: string } };

const use = { config: { portal: { permission: 'portal.use' as const } }, schema: { hide: true } };

export const invitationsArea: PortalArea = {
  routes(portal, deps) {
    const { db, clock } = deps;

    const auditAnswer = (request: FastifyRequest, merchantId: string, action: AuditAction, role: string): Promise<void> => {
      const session = sessionOfRequest(request);
      return recordAudit(db, clock, { merchantId, actor: { userId: session.userId, email: session.email }, action, target: session.email, details: { role } });
    };

    portal.get<{ Querystring: { done?: string } }>('/invitations', use, async (request, reply) => {
      const [view, invitations] = await Promise.all([viewFor(request, reply, deps), pendingInvitations(db, clock, sessionOfRequest(request).userId)]);
      const done = request.query.done;
      return sendPage(reply, 200, renderInvitations(view, { invitations, notice: done === 'declined' ? 'declined' : null }));
    });

    portal.post<MerchantParams>('/invitations/:merchantId/accept', use, async (request, reply) => {
      const session = sessionOfRequest(request);
      const merchantId = request.params.merchantId;
      const accepted = await acceptInvitation(db, clock, session.userId, merchantId);
      if (!accepted) throw notFound('invitation');
      await auditAnswer(request, merchantId, 'membership.accept', accepted.role);
      // The session goes on with the merchant just joined.
      await switchMerchant(db, session, merchantId);
      return seeOther(reply, PORTAL);
    });

    portal.post<MerchantParams>('/invitations/:merchantId/decline', use, async (request, reply) => {
      const session = sessionOfRequest(request);
      const merchantId = request.params.merchantId;
      const declined = await declineInvitation(db, clock, session.userId, merchantId);
      if (!declined) throw notFound('invitation');
      await auditAnswer(request, merchantId, 'membership.decline', declined.role);
      return seeOther(reply, `${PORTAL}/invitations?done=declined`);
    });
  },
};
