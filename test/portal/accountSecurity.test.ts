import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { adminCommands } from '../../src/admin/commands.js';
import { loadMigrations } from '../../src/db/migrate.js';
import { createUser, redeemLink, type UserOwner } from '../../src/users/service.js';
import { sessionPolicyOf } from '../../src/portal/routes.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { PASSWORD, PortalBrowser, portalUser, textOf } from './helpers.js';

// Hardening of the portal's accounts (docs/portal.md, "Signing in"): the current password on the
// account page is guessed no more often than at sign-in; look-alike addresses are one user or
// refused; common and trivial passwords are refused; and the sign-in's locks cannot be used to
// shut a user out from elsewhere, nor everyone behind one network address.

const WEAK = ['aaaaaaaaaaaa', '123456789012', 'password1234'];

describe('portal account hardening', () => {
  let ctx: TestContext;
  let n = 0;
  const fresh = (name: string) => `${name}.${++n}@example.com`;
  const merchant = (): UserOwner => ({ merchantId: ctx.merchant.merchantId });

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  describe('the current password on the account page', () => {
    it('counts wrong guesses with the sign-in and ends the session at the fifth; the user is told so', async () => {
      const { email, browser } = await portalUser(ctx, 'staff', { email: fresh('guessed') });
      const session = browser.cookies.get('paylinks_session') ?? '';
      await browser.get('/portal/account');
      for (let i = 1; i <= 4; i++) {
        const wrong = await browser.post('/portal/account/password', {
          current: `not it ${i}`,
          next: 'a new pass phrase of words',
          confirm: 'a new pass phrase of words',
        });
        expect(wrong.statusCode).toBe(400);
        expect(textOf(wrong.body)).toContain('The current password is not right.');
      }
      const fifth = await browser.post('/portal/account/password', {
        current: 'not it 5',
        next: 'a new pass phrase of words',
        confirm: 'a new pass phrase of words',
      });
      expect(fifth.statusCode).toBe(303);
      expect(String(fifth.headers.location)).toMatch(/^\/portal\/sign-in\?m=locked/);
      expect(browser.cookies.has('paylinks_session')).toBe(false);
      const page = await browser.follow(fifth);
      expect(textOf(page.body)).toContain('You have been signed out: the current password was wrong too many times.');
      // The session is over on the server too, not only in this browser.
      const kept = new PortalBrowser(ctx);
      kept.cookies.set('paylinks_session', session);
      const after = await kept.get('/portal/account');
      expect(after.statusCode).toBe(303);
      expect(String(after.headers.location)).toContain('/portal/sign-in');
      // And the sign-in from the same network address is locked as after five wrong sign-ins.
      expect((await new PortalBrowser(ctx).signIn(email)).statusCode).toBe(429);
    });

    it('failed sign-ins count too: the next wrong guess on the account page ends the session at once', async () => {
      const { email, browser } = await portalUser(ctx, 'staff', { email: fresh('mixed') });
      const guesser = new PortalBrowser(ctx);
      for (let i = 0; i < 4; i++) expect((await guesser.signIn(email, `wrong ${i}`)).statusCode).toBe(401);
      await browser.get('/portal/account');
      const res = await browser.post('/portal/account/password', {
        current: 'still wrong',
        next: 'a new pass phrase of words',
        confirm: 'a new pass phrase of words',
      });
      expect(res.statusCode).toBe(303);
      expect(String(res.headers.location)).toContain('m=locked');
    });

    it('says so in Icelandic to an Icelandic user', async () => {
      const { browser } = await portalUser(ctx, 'staff', { email: fresh('islenska') });
      await browser.get('/portal/account');
      await browser.post('/portal/account/language', { language: 'is' });
      await browser.get('/portal/account');
      let res = await browser.post('/portal/account/password', { current: 'rangt 0', next: 'x', confirm: 'x' });
      for (let i = 1; i < 5; i++) res = await browser.post('/portal/account/password', { current: `rangt ${i}`, next: 'x', confirm: 'x' });
      const page = await browser.follow(res);
      expect(textOf(page.body)).toContain('Þú hefur verið skráð(ur) út: núverandi lykilorð var rangt of oft.');
    });

    it('others’ failures from the same network address sign nobody out', async () => {
      const shared = '203.0.113.200';
      const { browser } = await portalUser(ctx, 'staff', { email: fresh('neighbour') });
      const here = new PortalBrowser(ctx, shared);
      for (const [k, v] of browser.cookies) here.cookies.set(k, v);
      for (let i = 0; i < 100; i++) await new PortalBrowser(ctx, shared).signIn(`stranger.${i}@example.com`, 'wrong');
      await here.get('/portal/account');
      const res = await here.post('/portal/account/password', { current: 'a slip of the finger', next: 'x', confirm: 'x' });
      expect(res.statusCode).toBe(400);
      expect(textOf(res.body)).toContain('The current password is not right.');
    });

    it('the right current password still changes it, within the limit', async () => {
      const { email, browser } = await portalUser(ctx, 'staff', { email: fresh('changer') });
      await browser.get('/portal/account');
      expect((await browser.post('/portal/account/password', { current: 'wrong', next: 'x', confirm: 'x' })).statusCode).toBe(400);
      const ok = await browser.post('/portal/account/password', {
        current: PASSWORD,
        next: 'a new pass phrase of words',
        confirm: 'a new pass phrase of words',
      });
      expect(ok.statusCode).toBe(303);
      expect(ok.headers.location).toBe('/portal/account?done=password');
      expect((await new PortalBrowser(ctx).signIn(email, 'a new pass phrase of words')).statusCode).toBe(303);
    });
  });

  describe('a burst of sign-ins', () => {
    it('checks no more passwords sent at once than the limit allows one by one; the right one then waits its turn', async () => {
      const { email } = await portalUser(ctx, 'staff', { email: fresh('burst') });
      const browser = new PortalBrowser(ctx);
      await browser.get('/portal/sign-in');
      const post = (password: string) => browser.post('/portal/sign-in', { email, password, next: '/portal' });
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(`wrong guess ${i}`).then((r) => r.statusCode)));
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(15);
      expect((await post(PASSWORD)).statusCode).toBe(429);
    });
  });

  describe('look-alike addresses', () => {
    const refusal = async (email: string): Promise<{ field: string; code: string } | undefined> => {
      try {
        await createUser(ctx.tdb.db, ctx.clock, { email, owner: merchant(), role: 'staff', createdBy: null });
        return undefined;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return err.errors?.[0];
      }
    };

    it('refuses invisible characters, direction controls and mixed scripts; an NFD or upper-case copy is the same user', async () => {
      await createUser(ctx.tdb.db, ctx.clock, { email: 'olga@example.com', owner: merchant(), role: 'staff', createdBy: null });
      const composed = await createUser(ctx.tdb.db, ctx.clock, {
        email: 'jos\u00e9@example.com',
        owner: merchant(),
        role: 'staff',
        createdBy: null,
      });
      expect(composed.email).toBe('jos\u00e9@example.com');
      const lookalike = { field: 'email', code: 'NOT_ALLOWED' };
      expect(await refusal('\u043elga@example.com')).toMatchObject(lookalike); // a Cyrillic о
      expect(await refusal('ol\u200bga@example.com')).toMatchObject(lookalike); // a zero-width space inside
      expect(await refusal('olga@example.com\u200b')).toMatchObject(lookalike); // ... and at the end
      expect(await refusal('\u202emoc.elpmaxe@agl\u006f')).toMatchObject(lookalike); // a right-to-left override
      expect(await refusal('olga@ex\u0430mple.com')).toMatchObject(lookalike); // a Cyrillic а in the domain
      expect(await refusal('\u03bflga@example.com')).toMatchObject(lookalike); // a Greek ο
      expect(await refusal('ol\u00adga@example.com')).toMatchObject(lookalike); // a soft hyphen
      // The same address written otherwise is the user that exists.
      expect(await refusal('jose\u0301@example.com')).toMatchObject({ field: 'email', code: 'DUPLICATE' }); // NFD
      expect(await refusal('JOS\u00c9@Example.COM')).toMatchObject({ field: 'email', code: 'DUPLICATE' });
      expect(await refusal('OLGA@example.com')).toMatchObject({ field: 'email', code: 'DUPLICATE' });
      const { rows } = await ctx.tdb.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM portal_users WHERE email LIKE '%lga@%' OR email LIKE 'jos%'");
      expect(rows[0]?.n).toBe(2);
      // An address wholly in one script is somebody's real address.
      expect(await refusal('\u043e\u043b\u044c\u0433\u0430@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444')).toBeUndefined();
      expect(await refusal('\u00f3l\u00f6f@d\u00e6mi.is')).toBeUndefined();
    });

    it('signs in with the address typed in another normal form or case', async () => {
      const link = await createUser(ctx.tdb.db, ctx.clock, {
        email: 'ren\u00e9e@example.com',
        owner: merchant(),
        role: 'staff',
        createdBy: null,
      });
      expect((await redeemLink(ctx.tdb.db, ctx.clock, link.token, { password: PASSWORD, confirm: PASSWORD }, sessionPolicyOf(ctx.config))).kind).toBe('ok');
      expect((await new PortalBrowser(ctx).signIn('RENE\u0301E@example.com')).statusCode).toBe(303);
      expect((await new PortalBrowser(ctx).signIn('ren\u00e9e@example.com\u200b')).statusCode).toBe(401);
    });

    it('the operator’s user create refuses a look-alike with the reason, and finds an NFD copy taken', async () => {
      const context = { db: ctx.tdb.db, clock: ctx.clock, publicBaseUrl: 'http://paylinks.test' };
      const create = (email: string) => adminCommands['user.create'](context, { email, merchantId: ctx.merchant.merchantId, role: 'staff' });
      await expect(create('b\u043erkur@example.com')).rejects.toThrow('email has invisible characters, direction controls, or Latin letters mixed');
      await expect(create('borkur@example.com\u200b')).rejects.toThrow('email has invisible characters');
      await create('b\u00f6rkur@example.com');
      await expect(create('bo\u0308rkur@example.com')).rejects.toThrow('email has a user already');
    });

    it('one address under compatibility mapping, with no blank, stray mark or trailing dot: on the portal, an invitation and the CLI', async () => {
      await createUser(ctx.tdb.db, ctx.clock, { email: 'staff@sandbox.example', owner: merchant(), role: 'staff', createdBy: null });
      const lookalike = { field: 'email', code: 'NOT_ALLOWED' };
      const copies = {
        ligature: 'sta\ufb00@sandbox.example', // ﬀ, one character
        fullwidth: '\uff53taff@sandbox.example',
        brailleBlank: 'staff\u2800@sandbox.example',
        noBreakSpace: 'staff\u00a0@sandbox.example',
        combiningMark: 'staf\u0323f@sandbox.example', // a dot below that joins no letter
        markInDomain: 'staff@sandbox.ex\u0323ample',
        strokeInDomain: 'staff@sandbox.exa\u0336mple',
      };
      for (const [what, email] of Object.entries(copies)) expect(await refusal(email), what).toMatchObject(lookalike);
      expect(await refusal('staff@sandbox.example.')).toMatchObject({ field: 'email', code: 'FORMAT' }); // a trailing dot

      // The operator's CLI and an owner's invitation say the same.
      const context = { db: ctx.tdb.db, clock: ctx.clock, publicBaseUrl: 'http://paylinks.test' };
      for (const email of Object.values(copies)) {
        await expect(adminCommands['user.create'](context, { email, merchantId: ctx.merchant.merchantId, role: 'staff' })).rejects.toThrow(/stand for others/);
      }
      const { browser } = await portalUser(ctx, 'owner', { email: fresh('inviter-nfkc') });
      await browser.get('/portal/users');
      for (const email of Object.values(copies)) {
        const r = await browser.post('/portal/users', { email, role: 'staff' });
        expect(r.statusCode, email).toBe(400);
        expect(textOf(r.body)).toContain('so it could pass for another');
      }
      const { rows } = await ctx.tdb.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM portal_users WHERE email LIKE '%@sandbox.example%'");
      expect(rows[0]?.n).toBe(1);
    });

    it('a ligature or fullwidth copy typed at sign-in is the user it stands for', async () => {
      const { email } = await portalUser(ctx, 'staff', { email: 'nfkc.signin@example.com' });
      expect(email).toBe('nfkc.signin@example.com');
      expect((await new PortalBrowser(ctx).signIn('n\uff46kc.signin@example.com')).statusCode).toBe(303);
      expect((await new PortalBrowser(ctx).signIn('nfkc.signin@example.com\u2800')).statusCode).toBe(401);
    });

    it('an owner inviting a look-alike is told beside the field, in both languages', async () => {
      const { browser } = await portalUser(ctx, 'owner', { email: fresh('inviter') });
      await browser.get('/portal/users');
      const en = await browser.post('/portal/users', { email: 'ol\u200bga@example.com', role: 'staff' });
      expect(en.statusCode).toBe(400);
      expect(textOf(en.body)).toContain('This address has invisible characters, direction controls, Latin letters mixed with Cyrillic or Greek ones');
      expect(en.body).toMatch(/id="f-email"[^>]*aria-invalid="true"/);
      await browser.post('/portal/account/language', { language: 'is' });
      await browser.get('/portal/users');
      const is = await browser.post('/portal/users', { email: '\u043elga@example.com', role: 'staff' });
      expect(is.statusCode).toBe(400);
      expect(textOf(is.body)).toContain('Í netfanginu eru ósýnileg tákn, stefnustýritákn, latneskir stafir blandaðir kýrillískum eða grískum');
    });

    it('the migration puts stored addresses in normal form C, leaving a copy of a live address as it is', async () => {
      const insert = (id: string, email: string) =>
        ctx.tdb.db.pool.query("INSERT INTO portal_users (id, email, merchant_id, role, created_at) VALUES ($1, $2, $3, 'staff', now())", [
          id,
          email,
          ctx.merchant.merchantId,
        ]);
      await insert('usr_nfd_only', 'zo\u0308e@example.com');
      await insert('usr_nfc_live', 'ma\u00efa@example.com');
      await insert('usr_nfd_copy', 'mai\u0308a@example.com');
      await ctx.tdb.db.pool.query(loadMigrations().find((m) => m.name === '0024_portal_user_email_nfc')?.sql ?? '');
      const { rows } = await ctx.tdb.db.pool.query<{ id: string; email: string }>(
        "SELECT id, email FROM portal_users WHERE id IN ('usr_nfd_only', 'usr_nfc_live', 'usr_nfd_copy') ORDER BY id",
      );
      expect(rows).toEqual([
        { id: 'usr_nfc_live', email: 'ma\u00efa@example.com' },
        { id: 'usr_nfd_copy', email: 'mai\u0308a@example.com' },
        { id: 'usr_nfd_only', email: 'z\u00f6e@example.com' },
      ]);
    });
    it('the migration puts stored addresses in their compatibility form, leaving a copy of a live address as it is', async () => {
      const insert = (id: string, email: string) =>
        ctx.tdb.db.pool.query("INSERT INTO portal_users (id, email, merchant_id, role, created_at) VALUES ($1, $2, $3, 'staff', now())", [
          id,
          email,
          ctx.merchant.merchantId,
        ]);
      await insert('usr_nfkc_only', '\uff4b\uff4fri@example.com'); // fullwidth ｋｏ
      await insert('usr_nfkc_live', 'buffy@example.com');
      await insert('usr_nfkc_copy', 'bu\ufb00y@example.com');
      // Two copies of an address nobody has: the older becomes it, the other stays a copy.
      await insert('usr_nfkc_twin1', '\uff42ert@example.com');
      await ctx.tdb.db.pool.query("UPDATE portal_users SET created_at = now() - interval '1 day' WHERE id = 'usr_nfkc_twin1'");
      await insert('usr_nfkc_twin2', 'b\uff45rt@example.com');
      await ctx.tdb.db.pool.query(loadMigrations().find((m) => m.name === '0042_portal_user_email_nfkc')?.sql ?? '');
      const { rows } = await ctx.tdb.db.pool.query<{ id: string; email: string }>("SELECT id, email FROM portal_users WHERE id LIKE 'usr_nfkc_%' ORDER BY id");
      expect(rows).toEqual([
        { id: 'usr_nfkc_copy', email: 'bu\ufb00y@example.com' },
        { id: 'usr_nfkc_live', email: 'buffy@example.com' },
        { id: 'usr_nfkc_only', email: 'kori@example.com' },
        { id: 'usr_nfkc_twin1', email: 'bert@example.com' },
        { id: 'usr_nfkc_twin2', email: 'b\uff45rt@example.com' },
      ]);
    });
  });

  describe('common and trivial passwords', () => {
    it('are refused when chosen by a link, in both languages; a good one is taken', async () => {
      const link = await createUser(ctx.tdb.db, ctx.clock, { email: fresh('chooser'), owner: merchant(), role: 'staff', createdBy: null });
      const b = new PortalBrowser(ctx);
      await b.get(`/portal/link/${link.token}`);
      for (const weak of WEAK) {
        const res = await b.post(`/portal/link/${link.token}`, { password: weak, confirm: weak });
        expect(res.statusCode, weak).toBe(400);
        expect(textOf(res.body)).toContain('This password is too common or too easy to guess');
      }
      b.cookies.set('paylinks_lang', 'is');
      const is = await b.post(`/portal/link/${link.token}`, { password: 'password1234', confirm: 'password1234' });
      expect(is.statusCode).toBe(400);
      expect(textOf(is.body)).toContain('Þetta lykilorð er of algengt eða of auðvelt að giska á');
      expect((await b.post(`/portal/link/${link.token}`, { password: PASSWORD, confirm: PASSWORD })).statusCode).toBe(303);
    });

    it('built from the address or the merchant’s name, are refused by a link and on the account page', async () => {
      await ctx.tdb.db.pool.query('UPDATE merchants SET name = $1 WHERE id = $2', ['Lopapeysur ehf.', ctx.merchant.merchantId]);
      try {
        const derived: [string, string][] = [
          ['owner@sandbox.example', 'ownersandbox1'],
          ['dev@sandbox.example', 'devsandbox12'],
          ['staff@sandbox-two.example', 'staffsandboxtwoexample'],
          ['owner2@other.example', 'owner2other.example'],
          ['owner@sandbox-three.example', 'sandboxthreeowner12'],
          ['anna@shop.example', 'lopapeysur2026!'],
        ];
        for (const [email, password] of derived) {
          const link = await createUser(ctx.tdb.db, ctx.clock, { email, owner: merchant(), role: 'staff', createdBy: null });
          const b = new PortalBrowser(ctx);
          await b.get(`/portal/link/${link.token}`);
          const res = await b.post(`/portal/link/${link.token}`, { password, confirm: password });
          expect(res.statusCode, `${email} ${password}`).toBe(400);
          expect(textOf(res.body)).toContain('This password is too common or too easy to guess');
        }
        const { browser } = await portalUser(ctx, 'staff', { email: 'kari@sandbox-four.example' });
        await browser.get('/portal/account');
        for (const next of ['karisandboxfour1', 'sandbox-four-kari', 'lopapeysur-ehf-1']) {
          const res = await browser.post('/portal/account/password', { current: PASSWORD, next, confirm: next });
          expect(res.statusCode, next).toBe(400);
          expect(textOf(res.body)).toContain('This password is too common or too easy to guess');
        }
        const good = 'kari walnut orbit lantern';
        expect((await browser.post('/portal/account/password', { current: PASSWORD, next: good, confirm: good })).statusCode).toBe(303);
      } finally {
        await ctx.tdb.db.pool.query('UPDATE merchants SET name = $1 WHERE id = $2', ['Test merchant', ctx.merchant.merchantId]);
      }
    });

    it('are refused on the account page, and the password stays', async () => {
      const { email, browser } = await portalUser(ctx, 'staff', { email: fresh('weakchange') });
      await browser.get('/portal/account');
      for (const weak of WEAK) {
        const res = await browser.post('/portal/account/password', { current: PASSWORD, next: weak, confirm: weak });
        expect(res.statusCode, weak).toBe(400);
        expect(textOf(res.body)).toContain('This password is too common or too easy to guess');
      }
      expect((await new PortalBrowser(ctx).signIn(email, 'password1234')).statusCode).toBe(401);
      expect((await new PortalBrowser(ctx).signIn(email)).statusCode).toBe(303);
    });
  });

  describe('the sign-in’s locks', () => {
    it('five wrong passwords lock that account from that network address only', async () => {
      const { email } = await portalUser(ctx, 'staff', { email: fresh('target') });
      const attacker = '203.0.113.7';
      for (let i = 0; i < 5; i++) expect((await new PortalBrowser(ctx, attacker).signIn(email, `guess ${i}`)).statusCode).toBe(401);
      expect((await new PortalBrowser(ctx, attacker).signIn(email)).statusCode).toBe(429);
      // The user, elsewhere, signs in as usual.
      expect((await new PortalBrowser(ctx, '198.51.100.20').signIn(email)).statusCode).toBe(303);
    });

    it('thirty failures from one network address do not lock the others behind it', async () => {
      const shared = '203.0.113.30';
      for (let i = 0; i < 30; i++) await new PortalBrowser(ctx, shared).signIn(`nobody.${i}@example.com`, 'wrong');
      const { email } = await portalUser(ctx, 'staff', { email: fresh('colleague') });
      expect((await new PortalBrowser(ctx, shared).signIn(email)).statusCode).toBe(303);
    });

    it('an account guessed from many addresses meets the slower per-account limit, until its window ends', async () => {
      const { email } = await portalUser(ctx, 'staff', { email: fresh('spread') });
      for (let a = 0; a < 20; a++) {
        for (let i = 0; i < 5; i++) expect((await new PortalBrowser(ctx, `192.0.2.${a + 1}`).signIn(email, `guess ${a}.${i}`)).statusCode).toBe(401);
      }
      const elsewhere = await new PortalBrowser(ctx, '198.51.100.99').signIn(email);
      expect(elsewhere.statusCode).toBe(429);
      expect(Number(elsewhere.headers['retry-after'])).toBeGreaterThan(3600);
      ctx.clock.advance(24 * 3_600_000 + 1_000);
      expect((await new PortalBrowser(ctx, '198.51.100.99').signIn(email)).statusCode).toBe(303);
    });

    it('many accounts guessed from one network address meet its own limit', async () => {
      const sprayer = '203.0.113.100';
      const { email } = await portalUser(ctx, 'staff', { email: fresh('sprayed') });
      for (let i = 0; i < 100; i++) await new PortalBrowser(ctx, sprayer).signIn(`someone.${i}@example.com`, 'Summer2024!');
      expect((await new PortalBrowser(ctx, sprayer).signIn(email)).statusCode).toBe(429);
      expect((await new PortalBrowser(ctx, '198.51.100.5').signIn(email)).statusCode).toBe(303);
    });
  });
});
