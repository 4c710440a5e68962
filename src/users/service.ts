import type { Operation } from '../actor.js';
import { recordAudit } from '../audit/service.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { validationError, type FieldError } from '../errors.js';
import { BatchLoader, perDatabase } from '../db/batch.js';
import { hashSecret, prefixedId, randomToken } from '../ids.js';
import { isPartnerLinked, merchantExists, merchantNameOf, merchantsOfPartner, partnerExists } from '../accounts/service.js';
import { dummyHash, hashPassword, passwordProblem, verifyPassword, type PasswordProblem } from './password.js';
import { checkEmail, signInKeyOf } from './email.js';
import { ACCOUNT_LIMITS, clearAccountFailures, countFailure, lockedFor, signedIn, takeSignInAttempt } from './throttle.js';
import * as sql from './sql.js';
import * as members from './memberships/sql.js';
import { isLang, type Lang } from '../web/lang.js';

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.js';
export { normalizeEmail } from './email.js';
export { THROTTLE } from './throttle.js';

// The portal's people (§The portal: people and access): users separate from API keys, their sessions,
// one-time links (the operator's sign-in link, an owner's invitation) and the sign-in throttle.

export const ROLES = ['owner', 'developer', 'staff'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(v: string): v is Role {
  return (ROLES as readonly string[]).includes(v);
}

/** A refused account operation; `reason` is stable (the portal translates it, the CLI prints `message`). */
export class UserError extends Error {
  constructor(
    readonly reason: 'emailInvalid' | 'emailLookalike' | 'emailTaken' | 'alreadyMember' | 'roleInvalid' | 'ownerMissing' | 'notFound' | 'lastOwner' | 'self',
    message: string,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/** How long sessions and one-time links last (configuration; see docs/portal.md). */
export interface SessionPolicy {
  /** A session unused this long is over. */
  idleMs: number;
  /** A session is over this long after sign-in, used or not. */
  absoluteMs: number;
}

export const SIGN_IN_LINK_TTL_MS = 24 * 3_600_000;
export const INVITE_TTL_MS = 7 * 24 * 3_600_000;

export type UserOwner = { merchantId: string } | { partnerId: string };

export interface OneTimeLink {
  userId: string;
  email: string;
  /** The secret part of the link: /portal/link/{token}. Shown once; only its hash is kept. */
  token: string;
  expiresAt: Date;
}

/**
 * A new one-time sign-in link of the account (its earlier links stop working). Only the operator is
 * handed one (`paylinks user create`, `paylinks user link`, the first start): an owner's invitation
 * hands over no link (memberships/service.ts, docs/portal.md "Users").
 */
async function issueLink(clock: Clock, tx: Parameters<typeof sql.insertToken>[0], userId: string): Promise<{ token: string; expiresAt: Date }> {
  const now = clock.now();
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
  await sql.expireTokensOf(tx, userId, now);
  await sql.insertToken(tx, { tokenHash: hashSecret(token), userId, purpose: 'sign-in', at: now, expiresAt });
  return { token, expiresAt };
}

/** The field codes of createUser's refusals (§Errors): a caller that words them itself switches on these. */
export const USER_FIELD_CODES = { emailInvalid: 'FORMAT', emailLookalike: 'NOT_ALLOWED', roleInvalid: 'ENUM', emailTaken: 'DUPLICATE' } as const;

export function emailFieldError(problem: 'invalid' | 'lookalike'): FieldError {
  return problem === 'lookalike'
    ? {
        field: 'email',
        code: USER_FIELD_CODES.emailLookalike,
        message:
          'has invisible characters, direction controls, or Latin letters mixed with Cyrillic or Greek ones in one part, or characters that stand for others (ligatures, fullwidth letters, a stray accent)',
      }
    : { field: 'email', code: USER_FIELD_CODES.emailInvalid, message: 'is not an e-mail address' };
}

type NewAccount = { email: string; owner: UserOwner; role: string; createdBy: string | null; language?: Lang };

/**
 * A new user with no password yet, made in a transaction that `then` continues. The address and the
 * role are checked here, both at once, and refused in §Errors's form on `email` and `role`, as is an
 * address that has a user already. A merchant's user gets a pending membership of it, accepted when
 * the account's first sign-in link is used (redeemLink); an invitation's runs out at `inviteExpiresAt`.
 */
async function insertAccount<T>(
  db: Database,
  clock: Clock,
  input: NewAccount,
  inviteExpiresAt: Date | null,
  then: (tx: Parameters<typeof sql.insertToken>[0], account: { userId: string; email: string }) => Promise<T>,
): Promise<T> {
  const checked = checkEmail(input.email);
  const email = checked.ok ? checked.email : undefined;
  const errors: FieldError[] = [];
  if (!checked.ok) errors.push(emailFieldError(checked.problem));
  if (!isRole(input.role)) errors.push({ field: 'role', code: USER_FIELD_CODES.roleInvalid, message: `must be one of ${ROLES.join(', ')}` });
  if (email === undefined || errors.length > 0) throw validationError(errors);
  if ('merchantId' in input.owner && !(await merchantExists(db, input.owner.merchantId)))
    throw new UserError('ownerMissing', `merchant ${input.owner.merchantId} not found`);
  if ('partnerId' in input.owner && !(await partnerExists(db, input.owner.partnerId)))
    throw new UserError('ownerMissing', `partner ${input.owner.partnerId} not found`);
  return withTransaction(db, async (tx) => {
    const userId = prefixedId('usr');
    const inserted = await sql.insertUser(tx, {
      id: userId,
      email,
      merchantId: 'merchantId' in input.owner ? input.owner.merchantId : null,
      partnerId: 'partnerId' in input.owner ? input.owner.partnerId : null,
      role: input.role,
      passwordHash: null,
      language: input.language ?? 'en',
      createdAt: clock.now(),
      createdBy: input.createdBy,
    });
    if (!inserted) throw validationError([{ field: 'email', code: USER_FIELD_CODES.emailTaken, message: 'has a user already' }]);
    if ('merchantId' in input.owner) {
      await members.insertMembership(tx, {
        userId,
        merchantId: input.owner.merchantId,
        role: input.role,
        at: clock.now(),
        createdBy: input.createdBy,
        inviteExpiresAt,
      });
    }
    return then(tx, { userId, email });
  });
}

/** A new user with no password yet, and the one-time sign-in link with which they choose one (the operator's). */
export async function createUser(db: Database, clock: Clock, input: NewAccount): Promise<OneTimeLink> {
  return insertAccount(db, clock, input, null, async (tx, account) => ({ ...account, ...(await issueLink(clock, tx, account.userId)) }));
}

/**
 * The account an owner's invitation goes to, in the caller's transaction: the address's account, made
 * now (no password yet, no link) when there is none. Both cases run the same one statement, which
 * writes a row either way, so that the time an invitation takes does not tell its owner which case it
 * was (docs/portal.md, "Users").
 */
export async function accountForInvitation(
  tx: Parameters<typeof sql.insertUser>[0],
  clock: Clock,
  input: { email: string; merchantId: string; role: string; createdBy: string },
): Promise<sql.UserRow> {
  return sql.upsertInvitedUser(tx, {
    id: prefixedId('usr'),
    email: input.email,
    merchantId: input.merchantId,
    partnerId: null,
    role: input.role,
    passwordHash: null,
    language: 'en',
    createdAt: clock.now(),
    createdBy: input.createdBy,
  });
}

/** A new one-time sign-in link for an existing user (a forgotten password): earlier links stop working. */
export async function newSignInLink(db: Database, clock: Clock, rawEmail: string): Promise<OneTimeLink> {
  // Looked up as a sign-in is (signInKeyOf): an account stored before the address rule it would now
  // fail (src/emailAddress.ts) can still be reached.
  const user = await sql.findUserByEmail(db.pool, signInKeyOf(rawEmail));
  if (!user) throw new UserError('notFound', `no user with the address ${JSON.stringify(rawEmail)}`);
  return withTransaction(db, async (tx) => ({ userId: user.id, email: user.email, ...(await issueLink(clock, tx, user.id)) }));
}

/**
 * A one-time sign-in link, if it can be used: unknown, used, expired, and a link an owner's invitation
 * handed out before invitations stopped handing out links (purpose 'invite') are all the same nothing.
 */
async function usableLink(db: Database, clock: Clock, token: string): Promise<{ user: sql.UserRow } | undefined> {
  if (!plausibleToken(token)) return undefined;
  const t = await sql.findToken(db.pool, hashSecret(token));
  if (!t || t.purpose !== 'sign-in' || t.usedAt !== null || t.expiresAt <= clock.now()) return undefined;
  const user = await sql.findUser(db.pool, t.userId);
  return user ? { user } : undefined;
}

/** What a one-time link's page shows before it is used; undefined when it cannot be used. */
export async function linkInfo(db: Database, clock: Clock, token: string): Promise<{ email: string; hasPassword: boolean } | undefined> {
  const found = await usableLink(db, clock, token);
  return found ? { email: found.user.email, hasPassword: found.user.passwordHash !== null } : undefined;
}

const plausibleToken = (t: string): boolean => /^[A-Za-z0-9_-]{20,100}$/.test(t);

export interface StartedSession {
  /** The cookie's value: shown to nobody, kept by the browser; the table keeps its hash. */
  token: string;
  userId: string;
  language: Lang;
}

async function startSession(
  db: Parameters<typeof sql.insertSession>[0],
  clock: Clock,
  user: sql.UserRow,
  merchantId: string,
  policy: SessionPolicy,
): Promise<StartedSession> {
  const now = clock.now();
  // A new token at every sign-in: whatever session id the browser had before is never promoted.
  const token = randomToken(32);
  await sql.insertSession(db, { tokenHash: hashSecret(token), userId: user.id, merchantId, at: now, expiresAt: new Date(now.getTime() + policy.absoluteMs) });
  await sql.markSignedIn(db, user.id, now);
  return { token, userId: user.id, language: isLang(user.language) ? user.language : 'en' };
}

/** The merchant a user starts on: their first accepted membership, or a partner's first linked merchant. */
async function homeMerchant(db: Database, user: sql.UserRow): Promise<string | undefined> {
  const accepted = (await members.membershipsOf(db.pool, user.id)).find((m) => m.acceptedAt !== null);
  if (accepted) return accepted.merchantId;
  if (user.partnerId !== null) return (await merchantsOfPartner(db, user.partnerId))[0]?.merchantId;
  return undefined;
}

export type RedeemOutcome =
  | { kind: 'ok'; session: StartedSession }
  | { kind: 'invalid' }
  | { kind: 'password'; problem: 'required' | PasswordProblem | 'mismatch' }
  | { kind: 'noMerchant' };

/**
 * Uses a one-time sign-in link: the user chooses a password (when they have none, or wants a new one)
 * and is signed in with a new session. The link works once. The first link of an account with no
 * password accepts the memberships waiting for it (the one it was made with, and invitations not yet
 * run out): whoever holds it has shown they are the person at that address, as the operator made it
 * for them.
 */
export async function redeemLink(
  db: Database,
  clock: Clock,
  token: string,
  input: { password: string; confirm: string },
  policy: SessionPolicy,
): Promise<RedeemOutcome> {
  const user = (await usableLink(db, clock, token))?.user;
  if (!user) return { kind: 'invalid' };
  // Read before the transaction (on the embedded database a transaction holds the only connection).
  const first = user.passwordHash === null;
  const now = clock.now();
  const merchantId = first
    ? ((await members.membershipsOf(db.pool, user.id)).find((m) => m.acceptedAt !== null || m.inviteExpiresAt === null || m.inviteExpiresAt > now)
        ?.merchantId ?? (await homeMerchant(db, user)))
    : await homeMerchant(db, user);
  if (merchantId === undefined) return { kind: 'noMerchant' };
  const choosing = first || input.password !== '';
  let passwordHash: string | null = null;
  if (choosing) {
    if (input.password === '') return { kind: 'password', problem: 'required' };
    const problem = await passwordProblem(input.password, { email: user.email, merchantName: await merchantNameOf(db, merchantId) });
    if (problem) return { kind: 'password', problem };
    if (input.password !== input.confirm) return { kind: 'password', problem: 'mismatch' };
    passwordHash = await hashPassword(input.password);
  }
  return withTransaction(db, async (tx): Promise<RedeemOutcome> => {
    // Used once: of two tabs sending the same link, one signs in and the other is told the link is used.
    if (!(await sql.useToken(tx, hashSecret(token), clock.now()))) return { kind: 'invalid' };
    if (first) await members.acceptWaitingMemberships(tx, user.id, clock.now());
    if (passwordHash !== null) {
      await sql.setPassword(tx, user.id, passwordHash);
      // A new password ends every other session of the account.
      await sql.deleteUserSessions(tx, user.id, null);
    }
    return { kind: 'ok', session: await startSession(tx, clock, user, merchantId, policy) };
  });
}

export type SignInOutcome = { kind: 'ok'; session: StartedSession } | { kind: 'invalid' } | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * Signs in by e-mail address and password. An unknown address and a wrong password get the same
 * answer in the same time; failures are counted per account and network address, per account and
 * per network address (./throttle.ts), and past a limit every attempt it covers is refused (right
 * password or not) until its window ends.
 */
export async function signIn(
  db: Database,
  clock: Clock,
  input: { email: string; password: string; address: string },
  policy: SessionPolicy,
): Promise<SignInOutcome> {
  const now = clock.now();
  const email = signInKeyOf(input.email);
  // Counted as a failure before the password is checked; given back when it is right.
  const retryAfterSeconds = await takeSignInAttempt(db.pool, now, email, input.address);
  if (retryAfterSeconds > 0) return { kind: 'throttled', retryAfterSeconds };
  const user = await sql.findUserByEmail(db.pool, email);
  const stored = user?.passwordHash ?? (await dummyHash());
  const matches = (await verifyPassword(stored, input.password)) && user?.passwordHash != null;
  const merchantId = matches && user ? await homeMerchant(db, user) : undefined;
  if (!user || !matches || merchantId === undefined) return { kind: 'invalid' };
  await signedIn(db.pool, email, input.address);
  await sql.deleteExpiredSessions(db.pool, now, new Date(now.getTime() - policy.idleMs));
  return { kind: 'ok', session: await startSession(db.pool, clock, user, merchantId, policy) };
}

/** A signed-in user on one merchant, as every portal request sees it. */
export interface PortalSession {
  tokenHash: Buffer;
  userId: string;
  email: string;
  role: Role;
  language: Lang;
  /** The merchant being worked on. */
  merchantId: string;
  /** Its name, read with the session (null when no merchant has that id). */
  merchantName: string | null;
  /** Set for a partner's user, who may switch between the partner's merchants. */
  partnerId: string | null;
  /** A partner's user's role on the partner's merchants (a membership's own role comes first). */
  partnerRole: Role | null;
  /** The person's accepted memberships, oldest first, each with its role and its merchant's name: read with the session. */
  memberships: readonly { merchantId: string; role: Role; name: string | null }[];
  expiresAt: Date;
}

/** Sessions of the requests of one turn read in one query (as API keys are; docs/performance.md). */
const sessionLoader = perDatabase(
  (db: Database) =>
    new BatchLoader<string, sql.SessionRow>(async (hexHashes) => {
      const rows = await sql.findSessions(
        db.pool,
        hexHashes.map((h) => Buffer.from(h, 'hex')),
      );
      return new Map(rows.map((r) => [r.tokenHash.toString('hex'), r]));
    }),
);

/** How often a session's last use is written: idle expiry is exact to this much. */
const TOUCH_EVERY_MS = 60_000;

/** The live session this cookie value names, or undefined (unknown, idle too long, past its end). */
export async function sessionOf(db: Database, clock: Clock, token: string, policy: SessionPolicy): Promise<PortalSession | undefined> {
  if (!plausibleToken(token)) return undefined;
  const tokenHash = hashSecret(token);
  const row = await sessionLoader(db).get(tokenHash.toString('hex'));
  if (!row) return undefined;
  const now = clock.now();
  if (row.expiresAt <= now || row.lastSeenAt.getTime() + policy.idleMs <= now.getTime()) return undefined;
  // The session acts for its merchant with the role of the person's accepted membership there, or as
  // a partner's user on a merchant linked to the partner; with neither (the membership removed, the
  // merchant unlinked) the session ends there.
  const partnerRole = row.partnerId !== null && isRole(row.role) ? row.role : null;
  let role: Role | null = row.memberRole !== null && isRole(row.memberRole) ? row.memberRole : null;
  if (role === null && row.partnerId !== null && partnerRole !== null && (await isPartnerLinked(db, row.partnerId, row.merchantId))) role = partnerRole;
  if (role === null) return undefined;
  if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await sql.touchSessions(db.pool, [tokenHash], now);
  return {
    tokenHash,
    userId: row.userId,
    email: row.email,
    role,
    language: isLang(row.language) ? row.language : 'en',
    merchantId: row.merchantId,
    merchantName: row.merchantName,
    partnerId: row.partnerId,
    partnerRole,
    memberships: row.memberships.flatMap((m) => (isRole(m.role) ? [{ merchantId: m.merchantId, role: m.role, name: m.name }] : [])),
    expiresAt: row.expiresAt,
  };
}

export async function signOut(db: Database, session: Pick<PortalSession, 'tokenHash'>): Promise<void> {
  await sql.deleteSession(db.pool, session.tokenHash);
}

/** Ends every session of the user, this one included; answers how many ended. Recorded in the log of the merchant the session acts for. */
export async function signOutEverywhere(op: Operation, session: Pick<PortalSession, 'userId' | 'email' | 'merchantId'>): Promise<number> {
  return withTransaction(op.db, async (tx) => {
    const ended = await sql.deleteUserSessions(tx, session.userId, null);
    await recordAudit(tx, op, { merchantId: session.merchantId, action: 'user.signOutEverywhere', target: session.email });
    return ended;
  });
}

/**
 * The merchants this session's user may switch between, each with the role they have there: their
 * accepted memberships and their names (read with the session), and a partner's user's linked
 * merchants (a membership's role comes first), which only a partner's user waits for.
 */
export async function merchantsFor(
  db: Database,
  session: Pick<PortalSession, 'memberships' | 'partnerId' | 'partnerRole'>,
): Promise<{ merchantId: string; name: string; role: Role }[]> {
  const out = session.memberships.map((m) => ({ merchantId: m.merchantId, name: m.name ?? m.merchantId, role: m.role }));
  if (session.partnerId === null || session.partnerRole === null) return out;
  const { partnerRole } = session;
  for (const m of await merchantsOfPartner(db, session.partnerId)) if (!out.some((o) => o.merchantId === m.merchantId)) out.push({ ...m, role: partnerRole });
  return out;
}

/** The session acts for another merchant: one of the person's accepted memberships, or one linked to their partner. */
export async function switchMerchant(db: Database, session: PortalSession, merchantId: string): Promise<boolean> {
  const membership = await members.findMembership(db.pool, session.userId, merchantId);
  const allowed =
    membership?.acceptedAt != null ||
    (session.partnerId !== null && session.partnerRole !== null && (await isPartnerLinked(db, session.partnerId, merchantId)));
  if (!allowed) return false;
  await sql.setSessionMerchant(db.pool, session.tokenHash, merchantId);
  return true;
}

export type PasswordChange =
  | { kind: 'ok' }
  | { kind: 'wrongCurrent' }
  | { kind: 'problem'; problem: PasswordProblem | 'mismatch' }
  /** Too many wrong current passwords: this session has ended (the sign-in's limits, ./throttle.ts). */
  | { kind: 'signedOut'; retryAfterSeconds: number };

/**
 * A new password, given the current one; every other session of the account ends. A wrong current
 * password counts as a failed sign-in of the account from this network address, and once the
 * sign-in would be refused, so is this: the session ends, so that a borrowed session cannot be used
 * to guess the password without limit.
 */
export async function changePassword(
  op: Operation,
  session: PortalSession,
  input: { current: string; next: string; confirm: string; address: string },
): Promise<PasswordChange> {
  const { db, clock } = op;
  const locked = async (): Promise<PasswordChange | undefined> => {
    // This account's own limits only: others' failures from a shared network address sign nobody out.
    const retryAfterSeconds = await lockedFor(db.pool, clock.now(), session.email, input.address, ACCOUNT_LIMITS);
    if (retryAfterSeconds === 0) return undefined;
    await sql.deleteSession(db.pool, session.tokenHash);
    return { kind: 'signedOut', retryAfterSeconds };
  };
  const before = await locked();
  if (before) return before;
  const user = await sql.findUser(db.pool, session.userId);
  if (!user?.passwordHash || !(await verifyPassword(user.passwordHash, input.current))) {
    await countFailure(db.pool, clock.now(), session.email, input.address);
    return (await locked()) ?? { kind: 'wrongCurrent' };
  }
  await clearAccountFailures(db.pool, session.email, input.address);
  const problem = await passwordProblem(input.next, { email: user.email, merchantName: session.merchantName });
  if (problem) return { kind: 'problem', problem };
  if (input.next !== input.confirm) return { kind: 'problem', problem: 'mismatch' };
  const passwordHash = await hashPassword(input.next);
  await withTransaction(db, async (tx) => {
    await sql.setPassword(tx, user.id, passwordHash);
    await sql.deleteUserSessions(tx, user.id, session.tokenHash);
    // In the log of the merchant the session acts for.
    await recordAudit(tx, op, { merchantId: session.merchantId, action: 'user.password', target: session.email });
  });
  return { kind: 'ok' };
}

export async function setLanguage(db: Database, userId: string, language: Lang): Promise<void> {
  await sql.setLanguage(db.pool, userId, language);
}
