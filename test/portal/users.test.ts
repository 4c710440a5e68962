import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createPartner, linkPartner, type CreatedMerchant } from '../../src/accounts/service.js';
import { INVITE_TTL_MS, newSignInLink } from '../../src/users/service.js';
import { inviteUser } from '../../src/users/memberships/service.js';
import { createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { PASSWORD, PortalBrowser, portalUser, rowOf, textOf } from './helpers.js';

// An owner's users in the portal (§The portal: people and access): invitations that hand the owner no
// link and expire, new invitations, roles, removal; the last owner stays; another merchant's user is
// never found; none of it for a role other than owner.

async function count(ctx: TestContext, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

const liveUsers = (ctx: TestContext) => count(ctx, 'SELECT count(*)::int AS n FROM portal_users WHERE removed_at IS NULL');
const audits = (ctx: TestContext, action: string) => count(ctx, 'SELECT count(*)::int AS n FROM audit_log WHERE action = $1', [action]);

describe('portal users', () => {
  let ctx: TestContext;
  let owner: { userId: string; email: string; browser: PortalBrowser };
  let other: CreatedMerchant;
  let otherStaffId: string;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = await portalUser(ctx, 'owner', { email: 'owner@shop.example' });
    other = await createMerchant(ctx.tdb.db, 'Other merchant');
    otherStaffId = (await portalUser(ctx, 'staff', { owner: { merchantId: other.merchantId }, email: 'their.staff@other.example' })).userId;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('lists the merchant’s own users with role, status and last sign-in; not a partner’s users; owners only', async () => {
    const staff = await portalUser(ctx, 'staff', { email: 'staff.list@shop.example' });
    await inviteUser(asOperator(ctx), ctx.merchant.merchantId, { email: 'pending@shop.example', role: 'developer', invitedBy: owner.userId });
    const partner = await createPartner(ctx.tdb.db, 'Agency');
    await linkPartner(ctx.tdb.db, partner.partnerId, ctx.merchant.merchantId);
    await portalUser(ctx, 'owner', { owner: { partnerId: partner.partnerId }, email: 'agent@agency.example' });

    const page = await owner.browser.get('/portal/users');
    expect(page.statusCode).toBe(200);
    const own = textOf(rowOf(page.body, 'owner@shop.example'));
    expect(own).toContain('(you)');
    expect(own).toContain('Owner');
    expect(own).toContain('Active');
    expect(rowOf(page.body, 'owner@shop.example')).not.toContain('/remove');
    const staffRow = textOf(rowOf(page.body, 'staff.list@shop.example'));
    expect(staffRow).toContain('Staff');
    expect(staffRow).toContain('Active');
    expect(staffRow).not.toContain('never');
    const pending = textOf(rowOf(page.body, 'pending@shop.example'));
    expect(pending).toContain('Developer');
    expect(pending).toMatch(/Invited until \d/);
    expect(pending).toContain('never');
    expect(rowOf(page.body, 'pending@shop.example')).toContain('/reinvite');
    expect(page.body).not.toContain('agent@agency.example');
    expect(page.body).not.toContain('their.staff@other.example');

    expect((await staff.browser.get('/portal/users')).statusCode).toBe(403);
    const { browser: dev } = await portalUser(ctx, 'developer');
    expect((await dev.get('/portal/users')).statusCode).toBe(403);
    await dev.get('/portal');
    const before = await liveUsers(ctx);
    expect((await dev.post('/portal/users', { email: 'sneak@shop.example', role: 'owner' })).statusCode).toBe(403);
    expect((await dev.post(`/portal/users/${staff.userId}/role`, { role: 'owner' })).statusCode).toBe(403);
    expect((await dev.post(`/portal/users/${staff.userId}/remove`, {})).statusCode).toBe(403);
    expect(await liveUsers(ctx)).toBe(before);
  });

  it('an invitation hands the owner no link; the new user chooses a password with the operator’s sign-in link and works with the invited role', async () => {
    await owner.browser.get('/portal/users');
    const auditsBefore = await audits(ctx, 'user.invite');
    const res = await owner.browser.post('/portal/users', { email: 'New.Dev@Shop.Example', role: 'developer' });
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    expect(text).toContain('new.dev@shop.example is invited');
    expect(text).toMatch(/new\.dev@shop\.example may join as Developer until \d/);
    expect(text).toContain('asks the operator of the service for a sign-in link');
    expect(res.body).not.toContain('/portal/link/');
    expect(await audits(ctx, 'user.invite')).toBe(auditsBefore + 1);
    const { rows } = await ctx.tdb.db.pool.query<{ target: string; details: unknown }>(
      "SELECT target, details FROM audit_log WHERE action = 'user.invite' ORDER BY id DESC LIMIT 1",
    );
    expect(rows[0]).toEqual({ target: 'new.dev@shop.example', details: { role: 'developer' } });
    // No password yet: nobody signs in as the address.
    expect((await new PortalBrowser(ctx).signIn('new.dev@shop.example')).statusCode).toBe(401);

    // The operator's link (`paylinks user link`): a password, and the invitation accepted with it.
    const link = await newSignInLink(ctx.tdb.db, ctx.clock, 'new.dev@shop.example');
    const invited = new PortalBrowser(ctx);
    const linkPage = await invited.get(`/portal/link/${link.token}`);
    expect(linkPage.statusCode).toBe(200);
    expect(textOf(linkPage.body)).toContain('Choose a password for new.dev@shop.example');
    const accepted = await invited.post(`/portal/link/${link.token}`, { password: PASSWORD, confirm: PASSWORD });
    expect(accepted.statusCode).toBe(303);
    expect((await invited.get('/portal/themes')).statusCode).toBe(200);
    expect((await invited.get('/portal/users')).statusCode).toBe(403);
    // It worked once.
    expect((await new PortalBrowser(ctx).get(`/portal/link/${link.token}`)).statusCode).toBe(404);
    // And the password signs in.
    expect((await new PortalBrowser(ctx).signIn('new.dev@shop.example')).statusCode).toBe(303);
    expect(textOf(rowOf((await owner.browser.get('/portal/users')).body, 'new.dev@shop.example'))).toContain('Active');
  });

  it('refuses an address that is not one, one of this merchant’s users, and an unknown role, beside the field; nothing is written', async () => {
    await owner.browser.get('/portal/users');
    const before = await liveUsers(ctx);
    const bad = await owner.browser.post('/portal/users', { email: 'not an address', role: 'staff' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/<p class="error" id="f-email-error">This is not an e-mail address\.<\/p>/);
    expect(bad.body).toContain('value="not an address"');
    const taken = await owner.browser.post('/portal/users', { email: 'OWNER@shop.example', role: 'staff' });
    expect(taken.statusCode).toBe(400);
    expect(taken.body).toMatch(/<p class="error" id="f-email-error">This address is a user of this merchant already, or invited: see the list above\.<\/p>/);
    const role = await owner.browser.post('/portal/users', { email: 'fine@shop.example', role: 'admin' });
    expect(role.statusCode).toBe(400);
    expect(role.body).toMatch(/<p class="error" id="f-role-error">Choose one of the roles\.<\/p>/);
    // One answer names both fields when both are wrong.
    const both = await owner.browser.post('/portal/users', { email: 'not an address', role: 'admin' });
    expect(both.statusCode).toBe(400);
    expect(both.body).toMatch(/<p class="error" id="f-email-error">This is not an e-mail address\.<\/p>/);
    expect(both.body).toMatch(/<p class="error" id="f-role-error">Choose one of the roles\.<\/p>/);
    expect(await liveUsers(ctx)).toBe(before);

    await owner.browser.post('/portal/language', { language: 'is', back: '/portal/users' });
    const is = await owner.browser.post('/portal/users', { email: 'ekki netfang', role: 'staff' });
    expect(is.body).toMatch(/<p class="error" id="f-email-error">Þetta er ekki netfang\.<\/p>/);
    await owner.browser.post('/portal/language', { language: 'en', back: '/portal/users' });
  });

  it('a new invitation runs 7 days from then; an accepted one gets none; another merchant’s user is not found', async () => {
    await owner.browser.get('/portal/users');
    expect((await owner.browser.post('/portal/users', { email: 'again@shop.example', role: 'staff' })).statusCode).toBe(200);
    const { rows } = await ctx.tdb.db.pool.query<{ id: string }>("SELECT id FROM portal_users WHERE email = 'again@shop.example'");
    const userId = rows[0]?.id as string;
    const until = async (): Promise<Date | null> => {
      const r = await ctx.tdb.db.pool.query<{ at: Date | null }>(
        'SELECT invite_expires_at AS at FROM portal_memberships WHERE user_id = $1 AND merchant_id = $2 AND removed_at IS NULL',
        [userId, ctx.merchant.merchantId],
      );
      return r.rows[0]?.at ?? null;
    };
    expect(await until()).toEqual(new Date(ctx.clock.now().getTime() + INVITE_TTL_MS));
    ctx.clock.advance(30 * 60_000);
    await owner.browser.get('/portal/users');
    const res = await owner.browser.post(`/portal/users/${userId}/reinvite`, {});
    expect(res.statusCode).toBe(200);
    expect(textOf(res.body)).toContain('again@shop.example is invited');
    expect(res.body).not.toContain('/portal/link/');
    expect(await until()).toEqual(new Date(ctx.clock.now().getTime() + INVITE_TTL_MS));
    expect(await audits(ctx, 'user.reinvite')).toBe(1);

    // An expired invitation is listed as such, and can be sent again.
    ctx.clock.advance(INVITE_TTL_MS + 60_000);
    const fresh = await portalUser(ctx, 'owner');
    expect(textOf(rowOf((await fresh.browser.get('/portal/users')).body, 'again@shop.example'))).toContain('Invitation expired');
    expect((await fresh.browser.post(`/portal/users/${userId}/reinvite`, {})).statusCode).toBe(200);

    const active = await fresh.browser.post(`/portal/users/${owner.userId}/reinvite`, {});
    expect(active.statusCode).toBe(409);
    expect(textOf(active.body)).toContain('accepted their invitation already');

    const foreign = await fresh.browser.post(`/portal/users/${otherStaffId}/reinvite`, {});
    expect(foreign.statusCode).toBe(404);
    expect(await audits(ctx, 'user.reinvite')).toBe(2);
    owner = { ...owner, browser: fresh.browser, userId: fresh.userId, email: fresh.email };
  });

  it('changes a role, which applies at the user’s next request; audited from and to', async () => {
    const staff = await portalUser(ctx, 'staff');
    expect((await staff.browser.get('/portal/themes')).statusCode).toBe(403);
    await owner.browser.get('/portal/users');
    const res = await owner.browser.post(`/portal/users/${staff.userId}/role`, { role: 'developer' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/users?done=role');
    expect(textOf((await owner.browser.follow(res)).body)).toContain('The role is changed.');
    expect((await staff.browser.get('/portal/themes')).statusCode).toBe(200);
    const { rows } = await ctx.tdb.db.pool.query<{ target: string; details: unknown }>(
      "SELECT target, details FROM audit_log WHERE action = 'user.role' ORDER BY id DESC LIMIT 1",
    );
    expect(rows[0]).toEqual({ target: staff.email, details: { from: 'staff', to: 'developer' } });

    const invalid = await owner.browser.post(`/portal/users/${staff.userId}/role`, { role: 'admin' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toContain(`id="role-${staff.userId}-error"`);
    expect(textOf(rowOf(invalid.body, staff.email))).toContain('Choose one of the roles.');
  });

  it('nobody changes their own role; the last owner who can sign in is neither demoted nor removed', async () => {
    const solo = await createMerchant(ctx.tdb.db, 'Solo shop');
    const soloOwner = await portalUser(ctx, 'owner', { owner: { merchantId: solo.merchantId } });
    await soloOwner.browser.get('/portal/users');
    const self = await soloOwner.browser.post(`/portal/users/${soloOwner.userId}/role`, { role: 'staff' });
    expect(self.statusCode).toBe(409);
    expect(textOf(self.body)).toContain('You cannot change your own role');
    const selfRemove = await soloOwner.browser.get(`/portal/users/${soloOwner.userId}/remove`);
    expect(textOf(selfRemove.body)).toContain('You cannot change your own role or remove yourself');
    expect(selfRemove.body).not.toContain('type="submit" class="danger"');
    expect((await soloOwner.browser.post(`/portal/users/${soloOwner.userId}/remove`, {})).statusCode).toBe(409);

    // A partner's owner works on the shop, whose one owner is its last.
    const partner = await createPartner(ctx.tdb.db, 'Solo agency');
    await linkPartner(ctx.tdb.db, partner.partnerId, solo.merchantId);
    const agent = await portalUser(ctx, 'owner', { owner: { partnerId: partner.partnerId } });
    await agent.browser.get('/portal/users');
    const demote = await agent.browser.post(`/portal/users/${soloOwner.userId}/role`, { role: 'developer' });
    expect(demote.statusCode).toBe(409);
    expect(textOf(rowOf(demote.body, soloOwner.email))).toContain('at least one owner who can sign in');
    await agent.browser.get(`/portal/users/${soloOwner.userId}/remove`);
    const remove = await agent.browser.post(`/portal/users/${soloOwner.userId}/remove`, {});
    expect(remove.statusCode).toBe(409);
    expect(textOf(remove.body)).toContain('at least one owner who can sign in');
    const { rows } = await ctx.tdb.db.pool.query<{ role: string; removed_at: Date | null }>('SELECT role, removed_at FROM portal_users WHERE id = $1', [
      soloOwner.userId,
    ]);
    expect(rows[0]).toEqual({ role: 'owner', removed_at: null });
    expect((await soloOwner.browser.get('/portal')).statusCode).toBe(200);
  });

  it('removes a user after asking, and their sessions end at once; audited', async () => {
    const staff = await portalUser(ctx, 'staff', { email: 'leaving@shop.example' });
    expect((await staff.browser.get('/portal')).statusCode).toBe(200);
    const confirm = await owner.browser.get(`/portal/users/${staff.userId}/remove`);
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain('Remove leaving@shop.example?');
    expect(confirm.body).toContain(`action="/portal/users/${staff.userId}/remove"`);
    const res = await owner.browser.post(`/portal/users/${staff.userId}/remove`, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/users?done=removed');
    const list = await owner.browser.follow(res);
    expect(textOf(list.body)).toContain('The user is removed');
    expect(list.body).not.toContain('leaving@shop.example');
    const after = await staff.browser.get('/portal');
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toContain('/portal/sign-in');
    expect((await new PortalBrowser(ctx).signIn('leaving@shop.example')).statusCode).toBe(401);
    const { rows } = await ctx.tdb.db.pool.query<{ target: string; details: unknown }>(
      "SELECT target, details FROM audit_log WHERE action = 'user.remove' ORDER BY id DESC LIMIT 1",
    );
    expect(rows[0]).toEqual({ target: 'leaving@shop.example', details: { role: 'staff' } });
  });

  it('another merchant’s user is not found by any page or form, and nothing of theirs changes', async () => {
    await owner.browser.get('/portal/users');
    expect((await owner.browser.get(`/portal/users/${otherStaffId}/remove`)).statusCode).toBe(404);
    expect((await owner.browser.post(`/portal/users/${otherStaffId}/remove`, {})).statusCode).toBe(404);
    expect((await owner.browser.post(`/portal/users/${otherStaffId}/role`, { role: 'owner' })).statusCode).toBe(404);
    expect((await owner.browser.post(`/portal/users/${otherStaffId}/reinvite`, {})).statusCode).toBe(404);
    expect((await owner.browser.post('/portal/users/usr_nobody/role', { role: 'owner' })).statusCode).toBe(404);
    const { rows } = await ctx.tdb.db.pool.query<{ role: string; removed_at: Date | null }>('SELECT role, removed_at FROM portal_users WHERE id = $1', [
      otherStaffId,
    ]);
    expect(rows[0]).toEqual({ role: 'staff', removed_at: null });
    expect(await count(ctx, 'SELECT count(*)::int AS n FROM audit_log WHERE merchant_id = $1', [other.merchantId])).toBe(0);
    // Their own owner still finds them.
    const theirs = await portalUser(ctx, 'owner', { owner: { merchantId: other.merchantId } });
    expect(textOf((await theirs.browser.get('/portal/users')).body)).toContain('their.staff@other.example');
  });
});
