import type { Html } from '../../html/jsx-runtime.js';
import type { Invitation } from '../../users/memberships/service.js';
import { ROLE_KEY, messages, translator } from '../i18n.js';
import type { View } from '../view.js';
import { PostButton, Time } from '../views/components.js';
import { PORTAL } from '../views/layout.js';
import { listPage } from '../views/listPage.js';
import { Td } from '../views/table.js';

// The invitations waiting for the signed-in person's answer: each merchant with the role offered,
// to accept (the merchant joins the switcher) or decline.

export const M = messages(
  {
    title: 'Invitations',
    lead: 'Merchants that have invited you, with the role each offers. Accept to work on it with the same sign-in; decline to refuse.',
    none: 'No invitation is waiting for your answer.',
    merchant: 'Merchant',
    role: 'Role',
    until: 'Answer by',
    accept: 'Accept',
    acceptOf: 'Accept the invitation of {merchant}',
    decline: 'Decline',
    declineOf: 'Decline the invitation of {merchant}',
    declined: 'The invitation is declined.',
  },
  {
    title: 'Boð',
    lead: 'Söluaðilar sem hafa boðið þér, með hlutverkinu sem hver býður. Þiggðu boð til að vinna fyrir söluaðilann með sömu innskráningu, eða hafnaðu því.',
    none: 'Ekkert boð bíður svars þíns.',
    merchant: 'Söluaðili',
    role: 'Hlutverk',
    until: 'Svara fyrir',
    accept: 'Þiggja',
    acceptOf: 'Þiggja boð {merchant}',
    decline: 'Hafna',
    declineOf: 'Hafna boði {merchant}',
    declined: 'Boðinu er hafnað.',
  },
);

export function renderInvitations(view: View, data: { invitations: readonly Invitation[]; notice: 'declined' | null }): string {
  const t = translator(M, view.lang);
  return listPage(view, t, {
    section: 'account',
    notice: data.notice === 'declined' ? t('declined') : null,
    table: {
      columns: [t('merchant'), t('role'), t('until'), view.t('actions')],
      rows: data.invitations,
      empty: t('none'),
      row: (i) => <InvitationRow view={view} invitation={i} />,
    },
  });
}

function InvitationRow({ view, invitation }: { view: View; invitation: Invitation }): Html {
  const t = translator(M, view.lang);
  const base = `${PORTAL}/invitations/${encodeURIComponent(invitation.merchantId)}`;
  return (
    <tr>
      <Td class="wrap">{invitation.name}</Td>
      <Td>{view.t(ROLE_KEY[invitation.role])}</Td>
      <Td>
        <Time view={view} at={invitation.expiresAt} />
      </Td>
      <Td>
        <span class="row-actions">
          <PostButton view={view} action={`${base}/accept`} label={t('accept')} ariaLabel={t('acceptOf', { merchant: invitation.name })} kind="primary" />
          <PostButton view={view} action={`${base}/decline`} label={t('decline')} ariaLabel={t('declineOf', { merchant: invitation.name })} kind="link" />
        </span>
      </Td>
    </tr>
  );
}
