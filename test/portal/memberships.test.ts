import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/actor.js';
import { createMerchant, createPartner, linkPartner, type CreatedMerchant } from '../../src/accounts/service.js';
import { loadMigrations } from '../../src/db/migrations.js';
import type { Database } from '../../src/db/database.js';
import { inviteUser } from '../../src/users/memberships/service.js';
import { INVITE_TTL_MS, newSignInLink } from '../../src/users/service.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { PortalBrowser, portalUser, rowOf, textOf } from './helpers.js';

type QueryFn = (q: unknown, ...rest: unknown[]) => unknown;

/** The database with every statement's text written down as it is sent, on the pool and in transactions. */
function recorded(db: Database): { db: Database; texts: string[] } {
  const texts: string[] = [];
  const record =
    (target: object, query: QueryFn): QueryFn =>
    (q, ...rest) => {
      texts.push((typeof q === 'string' ? q : (q as { text: string }).text).replace(/\s+/g, ' ').trim());
      return query.call(target, q, ...rest);
    };
  const wrap = <T extends object>(target: T, extra: Record<string, unknown> = {}): T =>
    new Proxy(target, {
      get(t, key) {
        if (key in extra) return extra[key as string];
        const v: unknown = Reflect.get(t, key);
        if (key === 'query') return record(t, v as QueryFn);
        return typeof v === 'function' ? (v as QueryFn).bind(t) : v;
      },
    });
  const pool = wrap(db.pool, { connect: async () => wrap(await db.pool.connect()) });
  return { db: { ...db, pool }, texts };
}

/** The options of the merchant switcher at the top of the page. */
function switcherOf(html: string): string[] {
  const select = /<select id="switch-merchant"[\s\S]*?<\/select>/.exec(html)?.[0] ?? '';
  return [...select.matchAll(/<option[^>]*>([^<]*)<\/option>/g)].map((m) => m[1] ?? '');
}

// Memberships (docs/portal.md, "Users"): one person signs in once and may belong to several merchants,
// each with its own role. An owner's invitation answers the same whatever exists elsewhere.

describe('portal memberships', () => {
  let ctx: TestContext;
  let owner: { userId: string; email: string; browser: PortalBrowser };
  let other: CreatedMerchant;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = await portalUser(ctx, 'owner', { email: 'owner@shop.example' });
    other = await createMerchant(ctx.tdb.db, 'Other merchant');
    await portalUser(ctx, 'staff', { owner: { merchantId: other.merchantId }, email: 'elsewhere@other.example' });
    const partner = await createPartner(ctx.tdb.db, 'Agency');
    await linkPartner(ctx.tdb.db, partner.partnerId, other.merchantId);
    await portalUser(ctx, 'owner', { owner: { partnerId: partner.partnerId }, email: 'agent@agency.example' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  async function invite(email: string, role: string, by = owner): Promise<void> {
    await by.browser.get('/portal/users');
    const res = await by.browser.post('/portal/users', { email, role });
    expect(res.statusCode, textOf(res.body).slice(0, 400)).toBe(200);
  }

  const passwordHashOf = async (email: string): Promise<string | null> =>
    (await ctx.tdb.db.pool.query<{ h: string | null }>('SELECT password_hash AS h FROM portal_users WHERE email = $1 AND removed_at IS NULL', [email])).rows[0]
      ?.h ?? null;

  it('an invitation answers the same for an unknown address, another merchant’s user and a partner’s user', async () => {
    const answers: { status: number; text: string }[] = [];
    for (const email of ['nobody@new.example', 'elsewhere@other.example', 'agent@agency.example']) {
      await owner.browser.get('/portal/users');
      const res = await owner.browser.post('/portal/users', { email, role: 'staff' });
      answers.push({ status: res.statusCode, text: textOf(res.body).replaceAll(email, '<address>') });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(answers[0]?.status).toBe(200);
    expect(answers[0]?.text).toContain('<address> is invited');
  });

  it('an invitation runs the same statements whether or not the address has an account, so that its time does not tell', async () => {
    await portalUser(ctx, 'staff', { owner: { merchantId: other.merchantId }, email: 'timed@other.example' });
    const statementsOf = async (email: string): Promise<string[]> => {
      const { db, texts } = recorded(ctx.tdb.db);
      await inviteUser({ db, clock: ctx.clock, actor: OPERATOR }, ctx.merchant.merchantId, { email, role: 'staff', invitedBy: owner.userId });
      return texts;
    };
    const fresh = await statementsOf('untimed@new.example');
    const existing = await statementsOf('timed@other.example');
    expect(fresh.length).toBeGreaterThan(0);
    expect(existing).toEqual(fresh);
  });

  it('an owner who invites learns nothing of whether the address has an account: every answer the owner can see, or reach from it, is the same', async () => {
    await portalUser(ctx, 'staff', { owner: { merchantId: other.merchantId }, email: 'known@other.example' });
    const TRY = 'an owner tries this passphrase 7';
    /** What the owner can see of an invitation of this address: the answers, the list, and whatever a link handed over does. */
    const observe = async (email: string): Promise<unknown[]> => {
      const seen: unknown[] = [];
      const plain = (html: string): string => textOf(html).replaceAll(email, '<address>');
      const followLinks = async (html: string): Promise<void> => {
        // Every one-time link the answer hands the owner, opened and posted a password to, as the owner could.
        for (const m of html.matchAll(/https?:\/\/[^"\s<]*(\/portal\/link\/[A-Za-z0-9_-]+)/g)) {
          const path = m[1] ?? '';
          const holder = new PortalBrowser(ctx);
          const page = await holder.get(path);
          seen.push(['link page', page.statusCode, plain(page.body)]);
          const posted = await holder.post(path, { password: TRY, confirm: TRY });
          seen.push(['link post', posted.statusCode, plain(posted.body)]);
          seen.push(['then signed in', (await holder.get('/portal/account')).statusCode]);
          seen.push(['sign-in with it', (await new PortalBrowser(ctx).signIn(email, TRY)).statusCode]);
        }
      };
      await owner.browser.get('/portal/users');
      const answer = await owner.browser.post('/portal/users', { email, role: 'staff' });
      seen.push(['answer', answer.statusCode, plain(answer.body)]);
      await followLinks(answer.body);
      const list = await owner.browser.get('/portal/users');
      const row = rowOf(list.body, email);
      seen.push(['row', plain(row)]);
      const userId = /\/portal\/users\/([^/"]+)\/reinvite/.exec(row)?.[1] ?? '';
      const again = await owner.browser.post(`/portal/users/${userId}/reinvite`, {});
      seen.push(['again', again.statusCode, plain(again.body)]);
      await followLinks(again.body);
      seen.push(['row after', plain(rowOf((await owner.browser.get('/portal/users')).body, email))]);
      return seen;
    };
    const known = await observe('known@other.example');
    const unknown = await observe('unknown@new.example');
    expect(known).toEqual(unknown);
    expect((unknown[0] as unknown[]).slice(0, 2)).toEqual(['answer', 200]);
  });

  const auditOf = async (merchantId: string, action: string) =>
    (
      await ctx.tdb.db.pool.query<{ actor: string | null; target: string | null; details: unknown }>(
        'SELECT actor_email AS actor, target, details FROM audit_log WHERE merchant_id = $1 AND action = $2 ORDER BY id DESC LIMIT 1',
        [merchantId, action],
      )
    ).rows[0];

  let carol: { userId: string; email: string; browser: PortalBrowser };

  it('an existing account’s invitation changes nothing of the account: it waits for the person’s answer', async () => {
    carol = await portalUser(ctx, 'staff', { owner: { merchantId: other.merchantId }, email: 'carol@other.example' });
    const hashBefore = await passwordHashOf(carol.email);
    await invite(carol.email, 'developer');
    expect(await passwordHashOf(carol.email)).toBe(hashBefore);
    expect(textOf(rowOf((await owner.browser.get('/portal/users')).body, carol.email))).toMatch(/Developer Invited until/);
  });

  it('the person sees the invitation after signing in, accepts it, and switches between merchants with a role in each', async () => {
    const hashBefore = await passwordHashOf(carol.email);
    const home = await carol.browser.get('/portal');
    expect(home.statusCode).toBe(200);
    expect(textOf(home.body)).toContain('An invitation to another merchant is waiting for your answer.');
    const list = await carol.browser.get('/portal/invitations');
    expect(textOf(list.body)).toMatch(/Test merchant Developer/);
    const accepted = await carol.browser.post(`/portal/invitations/${ctx.merchant.merchantId}/accept`, {});
    expect(accepted.statusCode).toBe(303);
    const now = await carol.browser.follow(accepted);
    expect(now.statusCode).toBe(200);
    expect(textOf(now.body)).not.toContain('is waiting for your answer');
    expect(switcherOf(now.body).sort()).toEqual(['Other merchant · Staff', 'Test merchant · Developer']);
    const account = textOf((await carol.browser.get('/portal/account')).body);
    expect(account).toContain('Your merchants');
    expect(account).toMatch(/Other merchant · Staff/);
    expect(account).toMatch(/Test merchant · Developer/);
    // Developer here (themes), staff there (no themes).
    expect((await carol.browser.get('/portal/themes')).statusCode).toBe(200);
    await carol.browser.get('/portal');
    expect((await carol.browser.post('/portal/switch', { merchantId: other.merchantId })).statusCode).toBe(303);
    expect((await carol.browser.get('/portal/themes')).statusCode).toBe(403);
    expect((await carol.browser.get('/portal/links/new')).statusCode).toBe(200);
    // A merchant she does not belong to is not one to switch to.
    const third = await createMerchant(ctx.tdb.db, 'Third shop');
    await carol.browser.get('/portal');
    expect((await carol.browser.post('/portal/switch', { merchantId: third.merchantId })).statusCode).toBe(404);

    expect(await passwordHashOf(carol.email)).toBe(hashBefore);
    expect(await auditOf(ctx.merchant.merchantId, 'membership.accept')).toEqual({ actor: carol.email, target: carol.email, details: { role: 'developer' } });
    expect(textOf(rowOf((await owner.browser.get('/portal/users')).body, carol.email))).toMatch(/Developer Active/);
    // The Icelandic switcher names the role in Icelandic.
    await carol.browser.post('/portal/language', { language: 'is', back: '/portal' });
    expect(switcherOf((await carol.browser.get('/portal')).body).sort()).toEqual(['Other merchant · Starfsmaður', 'Test merchant · Forritari']);
    await carol.browser.post('/portal/language', { language: 'en', back: '/portal' });
  });

  it('a role is per membership: changing it on one merchant leaves the other as it was', async () => {
    await carol.browser.get('/portal');
    await carol.browser.post('/portal/switch', { merchantId: ctx.merchant.merchantId });
    await owner.browser.get('/portal/users');
    expect((await owner.browser.post(`/portal/users/${carol.userId}/role`, { role: 'staff' })).statusCode).toBe(303);
    expect((await carol.browser.get('/portal/themes')).statusCode).toBe(403);
    expect(await auditOf(ctx.merchant.merchantId, 'user.role')).toEqual({
      actor: owner.email,
      target: carol.email,
      details: { from: 'developer', to: 'staff' },
    });
    expect((await owner.browser.post(`/portal/users/${carol.userId}/role`, { role: 'developer' })).statusCode).toBe(303);
    expect((await carol.browser.get('/portal/themes')).statusCode).toBe(200);
    await carol.browser.get('/portal');
    await carol.browser.post('/portal/switch', { merchantId: other.merchantId });
    expect((await carol.browser.get('/portal/themes')).statusCode).toBe(403);
  });

  it('removing a membership ends that person’s access to that merchant at once; their other memberships stay', async () => {
    // One browser on this merchant, one on her own.
    const here = new PortalBrowser(ctx);
    await here.signIn(carol.email);
    await here.get('/portal');
    await here.post('/portal/switch', { merchantId: ctx.merchant.merchantId });
    expect((await here.get('/portal/themes')).statusCode).toBe(200);
    await carol.browser.get('/portal');
    await carol.browser.post('/portal/switch', { merchantId: other.merchantId });

    await owner.browser.get(`/portal/users/${carol.userId}/remove`);
    expect((await owner.browser.post(`/portal/users/${carol.userId}/remove`, {})).statusCode).toBe(303);
    const after = await here.get('/portal/themes');
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toContain('/portal/sign-in');
    expect((await carol.browser.get('/portal')).statusCode).toBe(200);
    expect(switcherOf(carol.browser.html)).toEqual([]);
    expect((await carol.browser.post('/portal/switch', { merchantId: ctx.merchant.merchantId })).statusCode).toBe(404);
    // She signs in as before, to her own merchant.
    const again = new PortalBrowser(ctx);
    expect((await again.signIn(carol.email)).statusCode).toBe(303);
    expect(textOf((await again.get('/portal')).body)).toContain('Other merchant');
    expect(await auditOf(ctx.merchant.merchantId, 'user.remove')).toEqual({ actor: owner.email, target: carol.email, details: { role: 'developer' } });
    expect(rowOf((await owner.browser.get('/portal/users')).body, carol.email)).toBe('');
  });

  it('a partner’s user declines an invitation; the owner may invite them again', async () => {
    const agent = new PortalBrowser(ctx);
    expect((await agent.signIn('agent@agency.example')).statusCode).toBe(303);
    expect(textOf((await agent.get('/portal/invitations')).body)).toMatch(/Test merchant Staff/);
    const declined = await agent.post(`/portal/invitations/${ctx.merchant.merchantId}/decline`, {});
    expect(declined.statusCode).toBe(303);
    const page = await agent.follow(declined);
    expect(textOf(page.body)).toContain('The invitation is declined.');
    expect(textOf(page.body)).toContain('No invitation is waiting for your answer.');
    expect((await agent.post(`/portal/invitations/${ctx.merchant.merchantId}/accept`, {})).statusCode).toBe(404);
    expect(await auditOf(ctx.merchant.merchantId, 'membership.decline')).toEqual({
      actor: 'agent@agency.example',
      target: 'agent@agency.example',
      details: { role: 'staff' },
    });
    expect(rowOf((await owner.browser.get('/portal/users')).body, 'agent@agency.example')).toBe('');
    await invite('agent@agency.example', 'developer');
    // The partner's own access is untouched.
    expect((await agent.get('/portal')).statusCode).toBe(200);
  });

  it('an existing account’s invitation sent again runs from then; one that ran out can no longer be accepted', async () => {
    const erin = await portalUser(ctx, 'staff', { owner: { merchantId: other.merchantId }, email: 'erin@other.example' });
    await invite(erin.email, 'staff');
    ctx.clock.advance(INVITE_TTL_MS - 60_000);
    const sender = await portalUser(ctx, 'owner');
    await sender.browser.get('/portal/users');
    const again = await sender.browser.post(`/portal/users/${erin.userId}/reinvite`, {});
    expect(again.statusCode).toBe(200);
    expect(textOf(again.body)).toContain('erin@other.example is invited');
    ctx.clock.advance(2 * 60_000);
    const early = new PortalBrowser(ctx);
    await early.signIn(erin.email);
    expect(textOf((await early.get('/portal/invitations')).body)).toMatch(/Test merchant Staff/);

    ctx.clock.advance(INVITE_TTL_MS + 60_000);
    const fresh = await portalUser(ctx, 'owner');
    expect(textOf(rowOf((await fresh.browser.get('/portal/users')).body, erin.email))).toContain('Invitation expired');
    const later = new PortalBrowser(ctx);
    await later.signIn(erin.email);
    expect(textOf((await later.get('/portal/invitations')).body)).toContain('No invitation is waiting for your answer.');
    expect((await later.post(`/portal/invitations/${ctx.merchant.merchantId}/accept`, {})).statusCode).toBe(404);
    owner = { ...owner, browser: fresh.browser, userId: fresh.userId, email: fresh.email };
  });

  it('the invitee of another merchant’s pending invitation cannot accept one that is not theirs', async () => {
    await owner.browser.get('/portal');
    expect((await owner.browser.post(`/portal/invitations/${other.merchantId}/accept`, {})).statusCode).toBe(404);
    expect((await owner.browser.post('/portal/switch', { merchantId: other.merchantId })).statusCode).toBe(404);
  });

  it('removed from the merchant that made the account, a person keeps the others; with only an unanswered invitation left, the account ends', async () => {
    const theirOwner = await portalUser(ctx, 'owner', { owner: { merchantId: other.merchantId } });
    const frank = await portalUser(ctx, 'staff', { owner: { merchantId: other.merchantId }, email: 'frank@other.example' });
    const gina = await portalUser(ctx, 'staff', { owner: { merchantId: other.merchantId }, email: 'gina@other.example' });
    await invite(frank.email, 'developer');
    await invite(gina.email, 'developer');
    await frank.browser.get('/portal/invitations');
    expect((await frank.browser.post(`/portal/invitations/${ctx.merchant.merchantId}/accept`, {})).statusCode).toBe(303);

    for (const person of [frank, gina]) {
      await theirOwner.browser.get(`/portal/users/${person.userId}/remove`);
      expect((await theirOwner.browser.post(`/portal/users/${person.userId}/remove`, {})).statusCode).toBe(303);
    }
    // Frank signs in to the merchant he accepted; the columns an older process reads follow it.
    const back = new PortalBrowser(ctx);
    expect((await back.signIn(frank.email)).statusCode).toBe(303);
    expect(/class="merchant-name">([^<]*)</.exec((await back.get('/portal')).body)?.[1]).toBe('Test merchant');
    const { rows } = await ctx.tdb.db.pool.query<{ merchantId: string; role: string }>(
      'SELECT merchant_id AS "merchantId", role FROM portal_users WHERE id = $1',
      [frank.userId],
    );
    expect(rows[0]).toEqual({ merchantId: ctx.merchant.merchantId, role: 'developer' });
    // Gina had accepted nothing else: her account is over, as a merchant's only user's was.
    expect((await new PortalBrowser(ctx).signIn(gina.email)).statusCode).toBe(401);
  });

  it('a new address’s first sign-in link, from the operator, accepts every invitation waiting for it that has not run out', async () => {
    const third = await createMerchant(ctx.tdb.db, 'Third merchant');
    await invite('hanna@new.example', 'staff', await portalUser(ctx, 'owner', { owner: { merchantId: third.merchantId } }));
    ctx.clock.advance(INVITE_TTL_MS - 3_600_000);
    // The account exists now (with no password): these invitations find it. (Sessions have ended meanwhile.)
    await invite('hanna@new.example', 'developer', await portalUser(ctx, 'owner', { owner: { merchantId: other.merchantId } }));
    const fresh = await portalUser(ctx, 'owner');
    owner = { ...owner, browser: fresh.browser, userId: fresh.userId, email: fresh.email };
    await invite('hanna@new.example', 'staff');
    ctx.clock.advance(2 * 3_600_000);
    const link = await newSignInLink(ctx.tdb.db, ctx.clock, 'hanna@new.example');
    const hanna = new PortalBrowser(ctx);
    await hanna.get(`/portal/link/${link.token}`);
    expect(
      (await hanna.post(`/portal/link/${link.token}`, { password: 'hanna chooses a fine passphrase', confirm: 'hanna chooses a fine passphrase' })).statusCode,
    ).toBe(303);
    const home = await hanna.get('/portal');
    expect(home.statusCode).toBe(200);
    // The first invitation ran out an hour before: not accepted.
    expect(switcherOf(home.body).sort()).toEqual(['Other merchant · Developer', 'Test merchant · Staff']);
    const thirdOwner = await portalUser(ctx, 'owner', { owner: { merchantId: third.merchantId } });
    expect(textOf(rowOf((await thirdOwner.browser.get('/portal/users')).body, 'hanna@new.example'))).toContain('Invitation expired');
  });

  it('migration 0025 makes each merchant user a member with their role: accepted with a password, pending without', async () => {
    const shop = await createMerchant(ctx.tdb.db, 'Migrated shop');
    const insert = (id: string, email: string, role: string, hash: string | null) =>
      ctx.tdb.db.pool.query(
        "INSERT INTO portal_users (id, email, merchant_id, role, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, '2026-01-02T03:04:05Z')",
        [id, email, shop.merchantId, role, hash],
      );
    await insert('usr_old_owner', 'old.owner@migrated.example', 'owner', '$argon2id$v=19$m=19456,t=2,p=1$x$y');
    await insert('usr_old_invitee', 'old.invitee@migrated.example', 'developer', null);
    const sql = loadMigrations().find((m) => m.name === '0025_portal_memberships')?.sql ?? '';
    // Its backfill, on rows written as before the table existed.
    await ctx.tdb.db.pool.query(sql.slice(sql.indexOf('INSERT INTO portal_memberships')));
    const { rows } = await ctx.tdb.db.pool.query<{ userId: string; role: string; acceptedAt: Date | null }>(
      'SELECT user_id AS "userId", role, accepted_at AS "acceptedAt" FROM portal_memberships WHERE merchant_id = $1 ORDER BY user_id',
      [shop.merchantId],
    );
    expect(rows).toEqual([
      { userId: 'usr_old_invitee', role: 'developer', acceptedAt: null },
      { userId: 'usr_old_owner', role: 'owner', acceptedAt: new Date('2026-01-02T03:04:05Z') },
    ]);
  });
});
