import { ApiError, notFound, type FieldError } from '../../errors.js';
import { USER_FIELD_CODES, UserError, isRole, type Role } from '../../users/service.js';
import { changeRole, inviteUser, listUsers, reinvite, removeUser, type UserSummary } from '../../users/memberships/service.js';
import type { PortalArea, PortalDeps } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { FieldErrors, type View } from '../view.js';
import { PORTAL } from '../views/layout.js';
import { refusalText, renderInvitation, renderRemove, renderUsers, type Refusal, type RowProblem, type UsersPage } from './views.js';

// An owner's users (§The portal: people and access): the merchant's members and invitees. Invite
// someone (it runs out in 7 days, and hands the owner no link: every answer is the same whether or
// not the address has an account elsewhere), send a new invitation, change a role, remove a member. The rules (at least
// one owner who can sign in, nobody changes or removes themselves) are the users module's; these
// routes show its refusals beside the field or in the user's row.

type UserParams = { Params: { userId: string } };

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
    const { db, clock } = deps;
    const route = portalRouter(portal, deps);

    /** One of this merchant's users; another merchant's (or a partner's) is not found. */
    const userOf = async (merchantId: string, userId: string): Promise<UserSummary> => {
      const user = (await listUsers(db, clock, merchantId)).find((u) => u.userId === userId);
      if (!user) throw notFound('user');
      return user;
    };

    const listData = async (merchantId: string, page: Omit<UsersPage, 'users'>): Promise<UsersPage> => ({
      users: await listUsers(db, clock, merchantId),
      ...page,
    });

    /** The answer to an invitation, the same whether or not the address has an account. */
    const invitation = (sent: { email: string; expiresAt: Date }, role: Role) => (view: View) =>
      renderInvitation(view, { email: sent.email, role, expiresAt: sent.expiresAt });

    route.get('/users', { permission: 'users.manage', view: renderUsers }).handle(async ({ request, merchantId }: Ctx<{ Querystring: { done?: string } }>) => {
      const done = request.query.done;
      const notice = done === 'role' ? 'roleChanged' : done === 'removed' ? 'removed' : null;
      return { data: await listData(merchantId, { invite: EMPTY_INVITE, notice, problem: null }) };
    });

    route.post('/users', { permission: 'users.manage', view: renderUsers }).handle(async ({ merchantId, session, form, view, actor }) => {
      const email = form.text('email').slice(0, 300);
      const role = form.text('role');
      let link: Awaited<ReturnType<typeof inviteUser>>;
      try {
        link = await inviteUser({ db, clock, actor }, merchantId, { email, role, invitedBy: session.userId });
      } catch (err) {
        const v = await view();
        let errors: FieldError[];
        if (err instanceof ApiError && err.errors) {
          // Each refusal beside the field the users module named, in the portal's words where it has
          // them; their code is then the portal's own, so that the sentence is shown as written here.
          errors = err.errors.map((e) => {
            const reason = INVITE_WORDS[`${e.field}|${e.code}`];
            return reason ? { ...e, code: reason, message: refusalText(v, reason) } : e;
          });
        } else {
          const reason = refusalOf(err);
          errors = [{ field: 'email', code: reason, message: refusalText(v, reason) }];
        }
        return { status: 400, data: await listData(merchantId, { invite: { email, role, errors: new FieldErrors(errors) }, notice: null, problem: null }) };
      }
      // The users module took the role, so it is one.
      const invited = isRole(role) ? role : 'staff';
      return { page: invitation(link, invited) };
    });

    route.post('/users/:userId/reinvite', { permission: 'users.manage', view: renderUsers }).handle(async ({ request, merchantId, actor }: Ctx<UserParams>) => {
      const user = await userOf(merchantId, request.params.userId);
      if (user.status === 'active') {
        return {
          status: 409,
          data: await listData(merchantId, { invite: EMPTY_INVITE, notice: null, problem: { userId: user.userId, reason: 'alreadyActive' } }),
        };
      }
      const link = await reinvite({ db, clock, actor }, merchantId, user.userId).catch((err: unknown) => {
        throw err instanceof UserError ? notFound('user') : err;
      });
      return { page: invitation(link, user.role) };
    });

    route
      .post('/users/:userId/role', { permission: 'users.manage', view: renderUsers })
      .handle(async ({ request, merchantId, session, form, actor }: Ctx<UserParams>) => {
        const userId = request.params.userId;
        try {
          await changeRole({ db, clock, actor }, merchantId, userId, form.text('role'), { userId: session.userId });
        } catch (err) {
          const reason = refusalOf(err);
          const problem: RowProblem = { userId, reason };
          return { status: reason === 'roleInvalid' ? 400 : 409, data: await listData(merchantId, { invite: EMPTY_INVITE, notice: null, problem }) };
        }
        return { seeOther: `${PORTAL}/users?done=role` };
      });

    route
      .get('/users/:userId/remove', { permission: 'users.manage', view: removePage })
      .handle(async ({ request, merchantId }: Ctx<UserParams>) => ({ data: { user: await userOf(merchantId, request.params.userId), problem: null } }));

    route
      .post('/users/:userId/remove', { permission: 'users.manage', view: removePage })
      .handle(async ({ request, merchantId, session, actor }: Ctx<UserParams>) => {
        const user = await userOf(merchantId, request.params.userId);
        try {
          await removeUser({ db, clock, actor }, merchantId, user.userId, { userId: session.userId });
        } catch (err) {
          return { status: 409, data: { user, problem: refusalOf(err) } };
        }
        return { seeOther: `${PORTAL}/users?done=removed` };
      });
  },
};

/** The page that asks before a user is removed, or says why they were not. */
function removePage(view: View, s: { user: UserSummary; problem: Refusal | null }): string {
  return renderRemove(view, s.user, s.problem);
}
