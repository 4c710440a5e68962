import type { Html } from '../../html/jsx-runtime.js';
import { formatDateTime } from '../../html/format.js';
import { ROLES, type Role, type UserError } from '../../users/service.js';
import type { UserSummary } from '../../users/memberships/service.js';
import { ROLE_KEY, messages, translator } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import { Badge, Csrf, ErrorSummary, Field, Notice, PostButton, Select, Time } from '../views/components.js';
import { ConfirmForm } from '../views/confirm.js';
import { DataTable, Td } from '../views/table.js';
import { PORTAL, portalPage, panelPage } from '../views/layout.js';

// The users pages: the merchant's users with their roles and invitations, the invitation form, the
// page that says who is invited and how they answer, and the confirmation before a user is removed.

export const M = messages(
  {
    title: 'Users',
    lead: 'The people who sign in to the portal for {merchant}, and what their role lets them do.',
    email: 'E-mail address',
    role: 'Role',
    status: 'Status',
    lastSignIn: 'Last sign-in',
    you: 'you',
    active: 'Active',
    invited: 'Invited',
    invitedUntil: 'until {at}',
    expired: 'Invitation expired',
    changeRoleTo: 'Change role to',
    changeRole: 'Change',
    roleOf: 'Change the role of {email}',
    reinvite: 'New invitation',
    reinviteOf: 'New invitation for {email}',
    remove: 'Remove',
    removeOf: 'Remove {email}',
    inviteTitle: 'Invite someone',
    inviteIntro:
      'They may join with the role you choose for 7 days. Someone who signs in to the portal already accepts under Invitations; someone with no password yet gets a sign-in link from the operator of the service. You are given no link: it would tell you whether the address has an account.',
    invite: 'Create invitation',
    roleOwnerHint: 'Owner: everything, users and the audit log included.',
    roleDeveloperHint: 'Developer: API keys, webhooks and themes; sees payment links and payments.',
    roleStaffHint: 'Staff: payment links, checkout sessions and payments, refunds and captures included.',
    invitationTitle: '{email} is invited',
    invitationText:
      '{email} may join as {role} until {at}. Someone who signs in to the portal already finds the invitation under Invitations and accepts it there. Someone with no password yet asks the operator of the service for a sign-in link: with it they choose a password, and the invitation is accepted. The portal sends nothing itself: let them know.',
    backToUsers: 'Back to users',
    roleChanged: 'The role is changed. It applies from their next page.',
    removed: 'The user is removed, and their sessions have ended.',
    removeTitle: 'Remove {email}?',
    removeText: 'They can no longer sign in, and every session of theirs ends at once. The address can be invited again later.',
    removeConfirm: 'Remove user',
    alreadyActive: 'This user has accepted their invitation already.',
    // the users module's refusals
    emailInvalid: 'This is not an e-mail address.',
    emailLookalike:
      'This address has invisible characters, direction controls, Latin letters mixed with Cyrillic or Greek ones, or characters that stand for others (ligatures, fullwidth letters, a stray accent), so it could pass for another. Type it again by hand.',
    emailTaken: 'There is a user with this address already.',
    alreadyMember: 'This address is a user of this merchant already, or invited: see the list above.',
    roleInvalid: 'Choose one of the roles.',
    lastOwner: 'The account must keep at least one owner who can sign in.',
    self: 'You cannot change your own role or remove yourself; another owner can.',
  },
  {
    title: 'Notendur',
    lead: 'Fólkið sem skráir sig inn á þjónustuvefinn fyrir {merchant}, og hvað hlutverk þess leyfir.',
    email: 'Netfang',
    role: 'Hlutverk',
    status: 'Staða',
    lastSignIn: 'Síðasta innskráning',
    you: 'þú',
    active: 'Virkur',
    invited: 'Boðið',
    invitedUntil: 'til {at}',
    expired: 'Boð útrunnið',
    changeRoleTo: 'Breyta hlutverki í',
    changeRole: 'Breyta',
    roleOf: 'Breyta hlutverki {email}',
    reinvite: 'Nýtt boð',
    reinviteOf: 'Nýtt boð fyrir {email}',
    remove: 'Fjarlægja',
    removeOf: 'Fjarlægja {email}',
    inviteTitle: 'Bjóða notanda',
    inviteIntro:
      'Viðkomandi getur bæst við í hlutverkinu sem þú velur í 7 daga. Sá sem skráir sig þegar inn á þjónustuvefinn þiggur boðið undir Boð; sá sem er ekki enn með lykilorð fær innskráningarhlekk hjá rekstraraðila þjónustunnar. Þú færð engan hlekk: hann myndi segja þér hvort netfangið er með aðgang.',
    invite: 'Búa til boð',
    roleOwnerHint: 'Eigandi: allt, líka notendur og aðgerðaskrá.',
    roleDeveloperHint: 'Forritari: API-lyklar, vefkrókar og útlit; sér greiðsluhlekki og greiðslur.',
    roleStaffHint: 'Starfsmaður: greiðsluhlekkir, greiðslusíður og greiðslur, líka endurgreiðslur og innheimta.',
    invitationTitle: '{email} er boðið',
    invitationText:
      '{email} getur bæst við sem {role} til {at}. Sá sem skráir sig þegar inn á þjónustuvefinn finnur boðið undir Boð og þiggur það þar. Sá sem er ekki enn með lykilorð biður rekstraraðila þjónustunnar um innskráningarhlekk: með honum velur viðkomandi lykilorð og boðið er þegið. Þjónustuvefurinn sendir ekkert sjálfur: láttu viðkomandi vita.',
    backToUsers: 'Aftur í notendur',
    roleChanged: 'Hlutverkinu er breytt. Það gildir frá næstu síðu viðkomandi.',
    removed: 'Notandinn er fjarlægður og setum hans er lokið.',
    removeTitle: 'Fjarlægja {email}?',
    removeText: 'Viðkomandi getur ekki lengur skráð sig inn og öllum setum hans lýkur strax. Bjóða má netfanginu aftur síðar.',
    removeConfirm: 'Fjarlægja notanda',
    alreadyActive: 'Þessi notandi hefur þegar þegið boðið.',
    emailInvalid: 'Þetta er ekki netfang.',
    emailLookalike:
      'Í netfanginu eru ósýnileg tákn, stefnustýritákn, latneskir stafir blandaðir kýrillískum eða grískum, eða tákn sem standa fyrir aðra stafi (samskeyttir stafir, breiðir stafir, laus broddur), svo að það gæti villt á sér heimildir. Sláðu það aftur inn.',
    emailTaken: 'Notandi með þetta netfang er þegar til.',
    alreadyMember: 'Þetta netfang er þegar notandi þessa söluaðila, eða því hefur verið boðið: sjá listann að ofan.',
    roleInvalid: 'Veldu eitt hlutverkanna.',
    lastOwner: 'Aðgangurinn verður að halda a.m.k. einum eiganda sem getur skráð sig inn.',
    self: 'Þú getur ekki breytt eigin hlutverki eða fjarlægt sjálfa(n) þig; annar eigandi getur það.',
  },
);

/** The users module's refusals that a page shows (not found is the 404 page). */
export type Refusal = Exclude<UserError['reason'], 'notFound' | 'ownerMissing'> | 'alreadyActive';

export function refusalText(view: View, reason: Refusal): string {
  return translator(M, view.lang)(reason);
}

function roleOptions(view: View): { value: Role; label: string }[] {
  return ROLES.map((r) => ({ value: r, label: view.t(ROLE_KEY[r]) }));
}

function StatusOf({ view, user }: { view: View; user: UserSummary }): Html {
  const t = translator(M, view.lang);
  if (user.status === 'active') return <Badge tone="ok">{t('active')}</Badge>;
  if (user.status === 'expired') return <Badge tone="warn">{t('expired')}</Badge>;
  return (
    <>
      <Badge tone="info">{t('invited')}</Badge>{' '}
      <span class="small muted">{user.inviteExpiresAt ? t('invitedUntil', { at: formatDateTime(user.inviteExpiresAt, view.lang) }) : null}</span>
    </>
  );
}

/** A problem with one user's row (a refused role change or invitation), said in that row. */
export interface RowProblem {
  userId: string;
  reason: Refusal;
}

function UserRow({ view, user, problem }: { view: View; user: UserSummary; problem: RowProblem | null }): Html {
  const t = translator(M, view.lang);
  const self = user.userId === view.user.userId;
  const base = `${PORTAL}/users/${encodeURIComponent(user.userId)}`;
  const selectId = `role-${user.userId}`;
  // A refused role change is said beside the role; a refused invitation only at the top of the page.
  const message = problem?.userId === user.userId && problem.reason !== 'alreadyActive' ? refusalText(view, problem.reason) : null;
  return (
    <tr>
      <Td class="wrap">
        {user.email}
        {self ? <span class="muted"> ({t('you')})</span> : null}
      </Td>
      <Td>{view.t(ROLE_KEY[user.role])}</Td>
      <Td>
        <StatusOf view={view} user={user} />
      </Td>
      <Td>{user.lastSignInAt ? <Time view={view} at={user.lastSignInAt} /> : <span class="muted">{view.t('never')}</span>}</Td>
      <Td>
        {self ? null : (
          <div class="user-actions">
            <form method="post" action={`${base}/role`} class="role-form">
              <Csrf view={view} />
              <label for={selectId}>{t('changeRoleTo')}</label>
              <select id={selectId} name="role" aria-invalid={message ? 'true' : undefined} aria-describedby={message ? `${selectId}-error` : undefined}>
                {roleOptions(view).map((o) => (
                  <option value={o.value} selected={o.value === user.role}>
                    {o.label}
                  </option>
                ))}
              </select>
              <button type="submit" class="secondary small" aria-label={t('roleOf', { email: user.email })}>
                {t('changeRole')}
              </button>
              {message ? (
                <p class="error" id={`${selectId}-error`}>
                  {message}
                </p>
              ) : null}
            </form>
            <span class="row-actions">
              {user.status !== 'active' ? (
                <PostButton view={view} action={`${base}/reinvite`} label={t('reinvite')} ariaLabel={t('reinviteOf', { email: user.email })} kind="link" />
              ) : null}
              <a href={`${base}/remove`} class="danger-link" aria-label={t('removeOf', { email: user.email })}>
                {t('remove')}
              </a>
            </span>
          </div>
        )}
      </Td>
    </tr>
  );
}

export interface UsersPage {
  users: readonly UserSummary[];
  invite: { email: string; role: string; errors: FieldErrors };
  notice: 'roleChanged' | 'removed' | null;
  problem: RowProblem | null;
}

export function renderUsers(view: View, data: UsersPage): string {
  const t = translator(M, view.lang);
  // The role the select shows: the one sent back, else the least powerful.
  const role = (ROLES as readonly string[]).includes(data.invite.role) ? data.invite.role : 'staff';
  return portalPage({
    view,
    title: t('title'),
    section: 'users',
    lead: t('lead', { merchant: view.merchant.name }),
    notice: data.notice ? t(data.notice) : null,
    children: (
      <>
        {data.problem ? <Notice kind="error">{refusalText(view, data.problem.reason)}</Notice> : null}
        <DataTable
          view={view}
          label={t('title')}
          columns={[t('email'), t('role'), t('status'), t('lastSignIn'), view.t('actions')]}
          rows={data.users}
          row={(user) => <UserRow view={view} user={user} problem={data.problem} />}
        />
        <section class="panel" aria-labelledby="invite-title">
          <h2 id="invite-title">{t('inviteTitle')}</h2>
          <p class="muted">{t('inviteIntro')}</p>
          <form method="post" action={`${PORTAL}/users`}>
            <Csrf view={view} />
            <ErrorSummary view={view} errors={data.invite.errors} shownFields={['email', 'role']} />
            <div class="two">
              <Field
                view={view}
                name="email"
                label={t('email')}
                type="email"
                value={data.invite.email}
                errors={data.invite.errors}
                required
                autocomplete="off"
                maxLength={254}
              />
              <Select view={view} name="role" label={t('role')} options={roleOptions(view)} value={role} errors={data.invite.errors} />
            </div>
            <ul class="role-hints small muted">
              <li>{t('roleOwnerHint')}</li>
              <li>{t('roleDeveloperHint')}</li>
              <li>{t('roleStaffHint')}</li>
            </ul>
            <div class="form-actions">
              <button type="submit" class="primary">
                {t('invite')}
              </button>
            </div>
          </form>
        </section>
      </>
    ),
  });
}

/** A new invitation: who may join, as what, until when, and how they answer (the same whether or not the address has an account). */
export function renderInvitation(view: View, data: { email: string; role: Role; expiresAt: Date }): string {
  const t = translator(M, view.lang);
  return panelPage(
    { view, title: t('invitationTitle', { email: data.email }), section: 'users' },
    <>
      <p>{t('invitationText', { email: data.email, at: formatDateTime(data.expiresAt, view.lang), role: view.t(ROLE_KEY[data.role]) })}</p>
      <p>
        <a href={`${PORTAL}/users`}>{t('backToUsers')}</a>
      </p>
    </>,
  );
}

export function renderRemove(view: View, user: UserSummary, problem: Refusal | null): string {
  const t = translator(M, view.lang);
  const self = user.userId === view.user.userId;
  const shown = problem ?? (self ? 'self' : null);
  return panelPage(
    { view, title: t('removeTitle', { email: user.email }), section: 'users' },
    <>
      {shown ? <Notice kind="error">{refusalText(view, shown)}</Notice> : null}
      <p>{t('removeText')}</p>
      <ConfirmForm
        view={view}
        action={`${PORTAL}/users/${encodeURIComponent(user.userId)}/remove`}
        question={t('removeTitle', { email: user.email })}
        button={self ? null : t('removeConfirm')}
        back={`${PORTAL}/users`}
      />
    </>,
  );
}
