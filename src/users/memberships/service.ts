import type { Operation } from '../../actor.js';
import { recordAudit } from '../../audit/service.js';
import type { Clock } from '../../clock.js';
import type { Database, Queryable } from '../../db/database.js';
import { withTransaction } from '../../db/database.js';
import type { Read } from '../../db/together.js';
import { validationError, type FieldError } from '../../errors.js';
import { merchantExists, merchantNames, partnerExists } from '../../accounts/service.js';
import { checkEmail } from '../email.js';
import * as users from '../sql.js';
import * as sql from './sql.js';
import { INVITE_TTL_MS, ROLES, USER_FIELD_CODES, UserError, accountForInvitation, emailFieldError, isRole, type Role, type UserOwner } from '../service.js';

// A merchant's members (docs/portal.md, "Users"): a person signs in once and may belong to several
// merchants, each with its own role. An owner invites an address, and everything the owner can see
// of it is the same whether or not the address has an account anywhere: a pending membership that
// runs out in 7 days, and no link. A link that let its holder in would tell them: a new account's
// would set its password, an existing account's could not. So the person answers after signing in
// (Invitations), and someone with no password yet signs in the first time with a sign-in link from
// the operator, which accepts the invitations waiting for them. Only a member of this very merchant
// is named as such: the owner sees them in their own list anyway.

export interface UserSummary {
  userId: string;
  email: string;
  role: Role;
  /** active: a member who has accepted; invited: an invitation not yet answered (until inviteExpiresAt); expired: it ran out. */
  status: 'active' | 'invited' | 'expired';
  inviteExpiresAt: Date | null;
  lastSignInAt: Date | null;
  createdAt: Date;
}

/** A merchant's members and invitees, oldest first (a partner's users are not members). */
export async function listUsers(db: Database, clock: Clock, merchantId: string): Promise<UserSummary[]> {
  const rows = await sql.listMembers(db.pool, merchantId);
  const now = clock.now();
  // An invitation made before invitations had their own end ran out with the account's first link.
  const links = await users.pendingInvites(
    db.pool,
    rows.filter((r) => r.acceptedAt === null && r.inviteExpiresAt === null).map((r) => r.userId),
    now,
  );
  return rows.map((r) => {
    const until = r.acceptedAt !== null ? null : (r.inviteExpiresAt ?? links.get(r.userId) ?? null);
    const live = until !== null && until > now;
    return {
      userId: r.userId,
      email: r.email,
      role: isRole(r.role) ? r.role : 'staff',
      status: r.acceptedAt !== null ? 'active' : live ? 'invited' : 'expired',
      inviteExpiresAt: live ? until : null,
      lastSignInAt: r.acceptedAt !== null ? r.lastSignInAt : null,
      createdAt: r.createdAt,
    };
  });
}

/** An invitation as its owner sees it: the same for an address with an account and one without. */
export interface SentInvitation {
  userId: string;
  email: string;
  expiresAt: Date;
}

/**
 * An owner invites someone to their merchant until 7 days from now. The answer is the same for an
 * address nobody has and for one that has an account elsewhere (a merchant's or a partner's user):
 * only a member or invitee of this merchant is refused, as `alreadyMember`. No link is made.
 */
export async function inviteUser(op: Operation, merchantId: string, input: { email: string; role: string; invitedBy: string }): Promise<SentInvitation> {
  const { db, clock } = op;
  const checked = checkEmail(input.email);
  const errors: FieldError[] = [];
  if (!checked.ok) errors.push(emailFieldError(checked.problem));
  if (!isRole(input.role)) errors.push({ field: 'role', code: USER_FIELD_CODES.roleInvalid, message: `must be one of ${ROLES.join(', ')}` });
  if (!checked.ok || !isRole(input.role) || errors.length > 0) throw validationError(errors);
  const role = input.role;
  const email = checked.email;
  const expiresAt = new Date(clock.now().getTime() + INVITE_TTL_MS);
  // One transaction of the same statements whether or not the address has an account, so that the
  // time of the answer is the same too (docs/portal.md, "Users", names the command that measures it).
  return withTransaction(db, async (tx) => {
    const account = await accountForInvitation(tx, clock, { email, merchantId, role, createdBy: input.invitedBy });
    const inserted = await sql.insertMembership(tx, {
      userId: account.id,
      merchantId,
      role,
      at: clock.now(),
      createdBy: input.invitedBy,
      inviteExpiresAt: expiresAt,
    });
    if (!inserted) throw new UserError('alreadyMember', 'the address is a member of this merchant already');
    await recordAudit(tx, op, { merchantId, action: 'user.invite', target: account.email, details: { role } });
    return { userId: account.id, email: account.email, expiresAt };
  });
}

/**
 * The invitation of a merchant's invitee who has not yet answered runs 7 days from now again. A link
 * an invitation handed out before invitations stopped making links stops working.
 */
export async function reinvite(op: Operation, merchantId: string, userId: string): Promise<SentInvitation> {
  const { db, clock } = op;
  const [user, membership] = await Promise.all([users.findUser(db.pool, userId), sql.findMembership(db.pool, userId, merchantId)]);
  if (!user || !membership || membership.acceptedAt !== null) throw new UserError('notFound', 'no such invitation');
  const expiresAt = new Date(clock.now().getTime() + INVITE_TTL_MS);
  return withTransaction(db, async (tx) => {
    if (!(await sql.renewInvitation(tx, userId, merchantId, expiresAt))) throw new UserError('notFound', 'no such invitation');
    await users.expireInviteLinks(tx, userId, clock.now());
    await recordAudit(tx, op, { merchantId, action: 'user.reinvite', target: user.email, details: { role: membership.role } });
    return { userId, email: user.email, expiresAt };
  });
}

async function keepsAnOwner(tx: Parameters<typeof sql.countOwners>[0], merchantId: string, m: sql.MembershipRow, user: users.UserRow): Promise<boolean> {
  if (m.role !== 'owner' || m.acceptedAt === null || user.passwordHash === null) return true;
  return (await sql.countOwners(tx, merchantId)) > 1;
}

/** One of this merchant's members (or invitees) and their account, read in the caller's transaction. */
async function memberOf(tx: Parameters<typeof sql.findMembership>[0], merchantId: string, userId: string) {
  const [user, membership] = [await users.findUser(tx, userId), await sql.findMembership(tx, userId, merchantId)];
  if (!user || !membership || !isRole(membership.role)) throw new UserError('notFound', 'no such user');
  return { user, membership, role: membership.role };
}

/**
 * Ends a membership; the person's sessions on this merchant end at once, their other memberships
 * stay. An account (not a partner's) left with no accepted membership is removed, as a merchant's
 * only user was before: the columns an older process reads (sql.ts, syncLegacyColumns) must never
 * point it at a merchant the person has not accepted. An account with no password yet is kept while
 * the invitation that made it waits.
 */
async function endMembership(tx: Parameters<typeof sql.removeMembership>[0], clock: Clock, user: users.UserRow, merchantId: string): Promise<void> {
  await sql.removeMembership(tx, user.id, merchantId, clock.now());
  const left = await sql.membershipsOf(tx, user.id);
  const keep = user.partnerId !== null || left.some((m) => m.acceptedAt !== null) || (user.passwordHash === null && left.length > 0);
  if (keep) await sql.syncLegacyColumns(tx, user.id);
  else await users.removeAccount(tx, user.id, clock.now());
}

/** Removes a member from a merchant (after an owner's confirmation). */
export async function removeUser(op: Operation, merchantId: string, userId: string, by: { userId: string }): Promise<{ email: string }> {
  if (userId === by.userId) throw new UserError('self', 'you cannot remove yourself');
  return withTransaction(op.db, async (tx) => {
    const { user, membership, role } = await memberOf(tx, merchantId, userId);
    if (!(await keepsAnOwner(tx, merchantId, membership, user))) throw new UserError('lastOwner', 'a merchant keeps at least one owner');
    await endMembership(tx, op.clock, user, merchantId);
    await recordAudit(tx, op, { merchantId, action: 'user.remove', target: user.email, details: { role } });
    return { email: user.email };
  });
}

/** Gives a member another role on this merchant; their sessions here see it on their next request. */
export async function changeRole(
  op: Operation,
  merchantId: string,
  userId: string,
  role: string,
  by: { userId: string },
): Promise<{ email: string; from: Role; to: Role }> {
  if (!isRole(role)) throw new UserError('roleInvalid', `role must be one of ${ROLES.join(', ')}`);
  if (userId === by.userId) throw new UserError('self', 'you cannot change your own role');
  return withTransaction(op.db, async (tx) => {
    const { user, membership, role: from } = await memberOf(tx, merchantId, userId);
    if (role !== 'owner' && !(await keepsAnOwner(tx, merchantId, membership, user))) throw new UserError('lastOwner', 'a merchant keeps at least one owner');
    await sql.setMembershipRole(tx, userId, merchantId, role);
    await sql.syncLegacyColumns(tx, userId);
    // The same role again changes nothing: nothing to record.
    if (from !== role) await recordAudit(tx, op, { merchantId, action: 'user.role', target: user.email, details: { from, to: role } });
    return { email: user.email, from, to: role };
  });
}

export interface Invitation {
  merchantId: string;
  name: string;
  role: Role;
  expiresAt: Date;
}

/** Whether any invitation waits for this person's answer (one EXISTS; pendingInvitations also names each merchant), as a read that can share a statement. */
export function hasPendingInvitationRead(clock: Clock, userId: string): Read<boolean> {
  return sql.hasPendingInvitation(userId, clock.now());
}

/** The invitations waiting for this person's answer (to accounts that existed when invited), oldest first. */
export async function pendingInvitations(db: Database, clock: Clock, userId: string): Promise<Invitation[]> {
  const now = clock.now();
  const rows = (await sql.membershipsOf(db.pool, userId)).filter(
    (m) => m.acceptedAt === null && m.inviteExpiresAt !== null && m.inviteExpiresAt > now && isRole(m.role),
  );
  const names = merchantNames(db);
  return Promise.all(
    rows.map(async (m) => ({
      merchantId: m.merchantId,
      name: (await names.get(m.merchantId)) ?? m.merchantId,
      role: isRole(m.role) ? m.role : 'staff',
      expiresAt: m.inviteExpiresAt ?? now,
    })),
  );
}

/** The person accepts an invitation: they may switch to that merchant, with its role. Undefined when there is none to accept. */
export async function acceptInvitation(op: Operation, userId: string, merchantId: string): Promise<{ role: Role } | undefined> {
  return withTransaction(op.db, async (tx) => {
    const accepted = await sql.acceptMembership(tx, userId, merchantId, op.clock.now());
    if (!accepted || !isRole(accepted.role)) return undefined;
    await sql.syncLegacyColumns(tx, userId);
    // In the log of the merchant that invited, with the role it offered.
    const user = await users.findUser(tx, userId);
    await recordAudit(tx, op, { merchantId, action: 'membership.accept', target: user?.email ?? userId, details: { role: accepted.role } });
    return { role: accepted.role };
  });
}

/** The person declines an invitation; the owner may invite them again. Undefined when there is none. */
export async function declineInvitation(op: Operation, userId: string, merchantId: string): Promise<{ role: Role } | undefined> {
  return withTransaction(op.db, async (tx) => {
    const user = await users.findUser(tx, userId);
    const membership = await sql.findMembership(tx, userId, merchantId);
    if (!user || !membership || membership.acceptedAt !== null || !isRole(membership.role)) return undefined;
    await endMembership(tx, op.clock, user, merchantId);
    await recordAudit(tx, op, { merchantId, action: 'membership.decline', target: user.email, details: { role: membership.role } });
    return { role: membership.role };
  });
}

/** Every user of a merchant or partner, for the operator's CLI. */
export async function usersOf(db: Database, clock: Clock, owner: UserOwner): Promise<UserSummary[]> {
  if ('merchantId' in owner) {
    if (!(await merchantExists(db, owner.merchantId))) throw new UserError('ownerMissing', `merchant ${owner.merchantId} not found`);
    return listUsers(db, clock, owner.merchantId);
  }
  if (!(await partnerExists(db, owner.partnerId))) throw new UserError('ownerMissing', `partner ${owner.partnerId} not found`);
  const now = clock.now();
  const rows = await users.listPartnerUsers(db.pool, owner.partnerId);
  const invites = await users.pendingInvites(
    db.pool,
    rows.map((r) => r.id),
    now,
  );
  return rows.map((r) => {
    const invite = r.passwordHash === null ? (invites.get(r.id) ?? null) : null;
    return {
      userId: r.id,
      email: r.email,
      role: isRole(r.role) ? r.role : 'staff',
      status: r.passwordHash !== null ? 'active' : invite ? 'invited' : 'expired',
      inviteExpiresAt: invite,
      lastSignInAt: r.lastSignInAt,
      createdAt: r.createdAt,
    };
  });
}

// ---------------------------------------------------------------- the "you were paid" e-mail (docs/mail.md)

/** The owners to tell of a payment to the merchant, read in the payment's transaction (`q`). */
export async function paidNoticeRecipients(q: Queryable, merchantId: string): Promise<{ email: string; language: string }[]> {
  return sql.paidNoticeRecipients(q, merchantId);
}

/** Whether an owner asked for the "you were paid" e-mail of this merchant. */
export async function paidNoticeOf(db: Database, userId: string, merchantId: string): Promise<boolean> {
  return sql.paidNotice(db.pool, userId, merchantId);
}

/** An owner turns the "you were paid" e-mail on or off; only an owner's membership has it (false otherwise). */
export async function setPaidNotice(db: Database, userId: string, merchantId: string, on: boolean): Promise<boolean> {
  return sql.setPaidNotice(db.pool, userId, merchantId, on);
}
