import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, notFound, type FieldError } from '../../errors.js';
import { portalLinkUrl } from '../../urls.js';
import { USER_FIELD_CODES, UserError, isRole } from '../../users/service.js';
import { changeRole, inviteUser, listUsers, reinvite, removeUser, type UserSummary } from '../../users/memberships/service.js';
import { auditFor, formOf, seeOther, sendPage, sessionOfRequest, viewFor, type PortalArea, type PortalDeps } from '../http.js';
import { FieldErrors } from '../view.js';
import { PORTAL } from '../views/layout.js';
import { refusalText, renderInvitation, renderRemove, renderUsers, type Refusal, type RowProblem, type UsersPage } from './views.js';

// An owner's users (§The portal: people and access): the merchant's members and invitees. Invite
// someone (the link is shown once and expires; the answer is the same whether or not the address has
// an account elsewhere), send a new invitation, change a role, remove a member. The rules (at least
// one owner who can sign in, nobody changes or removes themselves) are the users module's; these
// routes show its refusals beside the field or in the user's row.

type UserParams = { Params: { userId: string } };

const manage = { config: { portal: { permission: 'users.manage' as const } }, schema: { hide: true } };

/** The refusals a page shows; a user that is not this merchant's is the 404 page. */
function refusalOf(err: unknown): Refusal {
  if (!(err instanceof UserError)) throw err;
  if (err.reason === 'notFound' || err.reason === 'ownerMissing') throw notFound('user');
  return err.reason;
}

/** The invitation's refusals (field and code, as the users module answers them) that this page words itself. */
const INVITE_WORDS: Readonly<Record<string, Refusal>> = {
  [`email|${USER_FIELD_CODES.emailInvalid}`]: 'emailInvalid',
  [`email|${USER_FIELD_CODES.emailLookalike}`]: 'emailLookalike',
  [`email|${USER_FIELD_CODES.emailTaken}`]: 'emailTaken',
  [`role|${USER_FIELD_CODES.roleInvalid}`]: 'roleInvalid',
};

const EMPTY_INVITE: UsersPage['invite'] = { email: '', role: 'staff', errors: new FieldErrors() };

export const usersArea: PortalArea = {
  styles: `
.user-actions { display: flex; flex-direction: column; gap: .4rem; align-items: flex-start; }
.role-form { display: flex; flex-wrap: wrap; gap: .35rem .5rem; align-items: center; }
.role-form label { font-weight: 400; margin: 0; font-size: .85rem; white-space: nowrap; }
.role-form select { width: auto; padding: .2rem .4rem; }
.role-form .error { flex-basis: 100%; }
.role-hints { margin: 0 0 .5rem; padding-left: 1.1rem; }
`,
  routes(portal, deps: PortalDeps) {
    const { db, clock, config } = deps;

    const audit = auditFor(deps);
    const who = (request: FastifyRequest) => {
      const s = sessionOfRequest(request);
      return { merchantId: s.merchantId, me: s.userId };
    };

    /** One of this merchant's users; another merchant's (or a partner's) is not found. */
    const userOf = async (merchantId: string, userId: string): Promise<UserSummary> => {
      const user = (await listUsers(db, clock, merchantId)).find((u) => u.userId === userId);
      if (!user) throw notFound('user');
      return user;
    };

    const listPage = async (request: FastifyRequest, reply: FastifyReply, status: number, page: Omit<UsersPage, 'users'>): Promise<FastifyReply> => {
      const view = await viewFor(request, reply, deps);
      const users = await listUsers(db, clock, view.merchant.merchantId);
      return sendPage(reply, status, renderUsers(view, { users, ...page }));
    };

    portal.get<{ Querystring: { done?: string } }>('/users', manage, async (request, reply) => {
      const done = request.query.done;
      return listPage(request, reply, 200, {
        invite: EMPTY_INVITE,
        notice: done === 'role' ? 'roleChanged' : done === 'removed' ? 'removed' : null,
        problem: null,
      });
    });

    portal.post('/users', manage, async (request, reply) => {
      const { merchantId, me } = who(request);
      const form = formOf(request);
      const email = form.text('email').slice(0, 300);
      const role = form.text('role');
      let link: Awaited<ReturnType<typeof inviteUser>>;
      try {
        link = await inviteUser(db, clock, merchantId, { email, role, invitedBy: me });
      } catch (err) {
        const view = await viewFor(request, reply, deps);
        let errors: FieldError[];
        if (err instanceof ApiError && err.errors) {
          // Each refusal beside the field the users module named, in the portal's words where it has
          // them; their code is then the portal's own, so that the sentence is shown as written here.
          errors = err.errors.map((e) => {
            const reason = INVITE_WORDS[`${e.field}|${e.code}`];
            return reason ? { ...e, code: reason, message: refusalText(view, reason) } : e;
          });
        } else {
          const reason = refusalOf(err);
          errors = [{ field: 'email', code: reason, message: refusalText(view, reason) }];
        }
        return listPage(request, reply, 400, { invite: { email, role, errors: new FieldErrors(errors) }, notice: null, problem: null });
      }
      // The users module took the role, so it is one.
      const invited = isRole(role) ? role : 'staff';
      await audit(request, 'user.invite', link.email, { role: invited });
      const view = await viewFor(request, reply, deps);
      return sendPage(
        reply,
        200,
        renderInvitation(view, { email: link.email, role: invited, url: portalLinkUrl(config.publicBaseUrl, link.token), expiresAt: link.expiresAt }),
      );
    });

    portal.post<UserParams>('/users/:userId/reinvite', manage, async (request, reply) => {
      const { merchantId } = who(request);
      const user = await userOf(merchantId, request.params.userId);
      if (user.status === 'active') {
        return listPage(request, reply, 409, { invite: EMPTY_INVITE, notice: null, problem: { userId: user.userId, reason: 'alreadyActive' } });
      }
      const link = await reinvite(db, clock, merchantId, user.userId).catch((err: unknown) => {
        throw err instanceof UserError ? notFound('user') : err;
      });
      await audit(request, 'user.reinvite', link.email, { role: user.role });
      const view = await viewFor(request, reply, deps);
      return sendPage(
        reply,
        200,
        renderInvitation(view, { email: link.email, role: user.role, url: portalLinkUrl(config.publicBaseUrl, link.token), expiresAt: link.expiresAt }),
      );
    });

    portal.post<UserParams>('/users/:userId/role', manage, async (request, reply) => {
      const { merchantId, me } = who(request);
      const userId = request.params.userId;
      let changed: Awaited<ReturnType<typeof changeRole>>;
      try {
        changed = await changeRole(db, merchantId, userId, formOf(request).text('role'), { userId: me });
      } catch (err) {
        const reason = refusalOf(err);
        const problem: RowProblem = { userId, reason };
        return listPage(request, reply, reason === 'roleInvalid' ? 400 : 409, { invite: EMPTY_INVITE, notice: null, problem });
      }
      if (changed.from !== changed.to) {
        await audit(request, 'user.role', changed.email, { from: changed.from, to: changed.to });
      }
      return seeOther(reply, `${PORTAL}/users?done=role`);
    });

    portal.get<UserParams>('/users/:userId/remove', manage, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      const user = await userOf(view.merchant.merchantId, request.params.userId);
      return sendPage(reply, 200, renderRemove(view, user, null));
    });

    portal.post<UserParams>('/users/:userId/remove', manage, async (request, reply) => {
      const { merchantId, me } = who(request);
      const user = await userOf(merchantId, request.params.userId);
      try {
        await removeUser(db, clock, merchantId, user.userId, { userId: me });
      } catch (err) {
        const reason = refusalOf(err);
        return sendPage(reply, 409, renderRemove(await viewFor(request, reply, deps), user, reason));
      }
      await audit(request, 'user.remove', user.email, { role: user.role });
      return seeOther(reply, `${PORTAL}/users?done=removed`);
    });
  },
};
