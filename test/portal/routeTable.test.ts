import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES, createMerchant, type Capability } from '../../src/accounts/service.js';
import { createTheme } from '../../src/themes/service.js';
import { runSandboxSettlement } from '../../src/settlements/service.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueuePaymentMails } from '../../src/mail/service.js';
import { createPromotionCode } from '../../src/promotionCodes/service.js';
import { CAPABILITY_PERMISSION, can, keyCapabilitiesFor, type Permission } from '../../src/portal/access.js';
import type { RouteEntry } from '../../src/http/routeTable.js';
import { ROLES, type Role } from '../../src/users/service.js';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { installWriteCounter, writeCount } from '../fuzz/writes.js';
import { ownedBy, type Owned } from '../security/world.js';
import { PortalBrowser, portalUser } from './helpers.js';

// Every portal route × every role × another merchant's objects (§The portal: roles), GENERATED from
// the app's own route table like the API's tenant-isolation table (test/security/isolation.test.ts):
// a portal route added later is walked without anyone listing it. For each route and each role of
// merchant a, the request names merchant b's objects in its path:
//   the role lacks the route's permission  → 403, nothing written
//   the path names an object               → 404 (b's object is not a's), or 400 for an empty post
//                                             refused before any lookup; nothing written, nothing of b's shown
//   no object in the path (a list, a form) → an answer below 500 about a's own data, nothing of b's shown
// and a visitor who is not signed in is sent to sign in (303), nothing written.

type Sample = (b: Owned & Extra) => string;

interface Extra {
  keyId: string;
  userId: string;
  themeKey: string;
  merchantId: string;
  settlementId: string;
  mailId: string;
  promotionCodeId: string;
}

/** b's object for each path parameter a portal route may name; a new parameter must be added here. */
const SAMPLES: Record<string, Sample> = {
  reference: (b) => b.linkReference,
  checkoutReference: (b) => b.paidCheckoutReference,
  payfacReference: (b) => b.payfacReference,
  webhookId: (b) => b.webhookId,
  deliveryId: (b) => b.deliveryId,
  keyId: (b) => b.keyId,
  userId: (b) => b.userId,
  themeKey: (b) => b.themeKey,
  settlementId: (b) => b.settlementId,
  mailId: (b) => b.mailId,
  promotionCodeId: (b) => b.promotionCodeId,
  // An invitation of merchant b's that nobody here has.
  merchantId: (b) => b.merchantId,
  // Tokens of one-time links are nobody's: a made-up one.
  token: () => 'x'.repeat(43),
};

describe('every portal route × every role × another merchant (generated from the route table)', () => {
  let ctx: TestContext;
  let b: Owned & Extra;
  let browsers: Record<Role, PortalBrowser>;
  let emails: Record<Role, string>;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    const merchantB = await createMerchant(ctx.tdb.db, 'Stranger');
    const owned = await ownedBy(ctx, merchantB);
    const { rows: keys } = await ctx.tdb.db.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = $1 LIMIT 1', [merchantB.merchantId]);
    const bUser = await portalUser(ctx, 'staff', { owner: { merchantId: merchantB.merchantId } });
    const theme = await createTheme(asOperator(ctx), merchantB.merchantId, {
      name: 'Stranger',
      accentColor: '#1f5eff',
      backgroundColor: '#ffffff',
      buttonShape: 'rounded',
      logo: undefined,
    });
    // b's payment settled, so that b has a settlement batch to be refused.
    const [settled] = await runSandboxSettlement(asOperator(ctx), merchantB.merchantId);
    expect(settled?.settlementId).toMatch(/^stl_/);
    // b's receipt, written as a payment writes it.
    const [mailId] = await withTransaction(ctx.tdb.db, (tx) =>
      enqueuePaymentMails(tx, ctx.clock, {
        merchantId: merchantB.merchantId,
        merchantName: 'Stranger',
        culture: 'en',
        order: null,
        items: [],
        discount: null,
        amount: 1000,
        currency: 'EUR',
        paymentMethod: 'visa',
        cardLast4: '4242',
        payfacReference: owned.payfacReference,
        shopperEmail: 'stranger.shopper@example.com',
      }),
    );
    b = {
      ...owned,
      mailId: mailId ?? '',
      keyId: keys[0]?.id ?? '',
      userId: bUser.userId,
      themeKey: theme.themeKey,
      merchantId: merchantB.merchantId,
      settlementId: settled?.settlementId ?? '',
      promotionCodeId: (
        await createPromotionCode({ ...asOperator(ctx), sealer: ctx.sealer }, merchantB.merchantId, { code: 'STRANGER', percentOff: 5 }, undefined)
      ).promotionCodeId,
    };
    browsers = {} as Record<Role, PortalBrowser>;
    emails = {} as Record<Role, string>;
    for (const role of ROLES) {
      const u = await portalUser(ctx, role);
      browsers[role] = u.browser;
      emails[role] = u.email;
    }
    await installWriteCounter(ctx.tdb.db);
  });
  afterAll(async () => {
    await ctx.close();
  });

  function pathFor(route: RouteEntry): string {
    return route.url.replace(/:(\w+)/g, (_m, name: string) => {
      const sample = SAMPLES[name];
      if (!sample) throw new Error(`no sample of another merchant's object for :${name} (${route.method} ${route.url}): add one to SAMPLES`);
      return encodeURIComponent(sample(b));
    });
  }

  const secrets = (): string[] => [
    b.linkReference,
    b.tokenizeLinkReference,
    b.checkoutReference,
    b.paidCheckoutReference,
    b.payfacReference,
    b.webhookId,
    b.deliveryId,
    b.keyId,
    b.userId,
    b.themeKey,
    b.settlementId,
    b.mailId,
    'stranger.shopper@example.com',
    b.promotionCodeId,
    b.terminalIdentifier,
  ];

  it('answers each role as its permissions say, never reaching merchant b', { timeout: 300_000 }, async () => {
    const routes = ctx.app.routeTable.filter((r) => r.url.startsWith('/portal') && r.method !== 'HEAD');
    const guarded = routes.filter((r): r is RouteEntry & { portal: { permission: Permission } } => r.portal !== undefined && 'permission' in r.portal);
    expect(guarded.length).toBeGreaterThan(0);
    // Every portal route declares its access; the public ones are the sign-in pages and the static files.
    expect(routes.filter((r) => !r.portal).map((r) => `${r.method} ${r.url}`)).toEqual([]);
    const failures: string[] = [];
    const table: string[] = [];
    for (const route of guarded) {
      const path = pathFor(route);
      const namesObject = route.url.includes(':');
      const row: string[] = [];
      for (const role of ROLES) {
        const browser = browsers[role];
        // Signed in (a route before may have signed out everywhere), with a fresh form token of this
        // session from a page every role may open.
        if ((await browser.get('/portal/account')).statusCode !== 200) await browser.signIn(emails[role]);
        const before = await writeCount(ctx.tdb.db);
        const res = route.method === 'GET' ? await browser.get(path) : await browser.post(path, {});
        const wrote = (await writeCount(ctx.tdb.db)) - before;
        row.push(String(res.statusCode));
        const where = `${route.method} ${route.url} as ${role}: ${res.statusCode}`;
        const allowed = can(role, route.portal.permission);
        if (!allowed && !(res.statusCode === 403 && wrote === 0)) failures.push(`${where}, wrote ${wrote}: expected 403`);
        // An empty post may be refused for its missing fields before the object is looked up (400, as
        // the API's table allows): that says nothing about b's object either.
        const refused = res.statusCode === 404 || (route.method === 'POST' && res.statusCode === 400);
        if (allowed && namesObject && !(refused && wrote === 0)) failures.push(`${where}, wrote ${wrote}: expected 404 for merchant b's object`);
        if (allowed && !namesObject && res.statusCode >= 500) failures.push(`${where}: expected an answer below 500`);
        const leaked = secrets().filter((s) => s !== '' && res.body.includes(s) && !path.includes(s));
        if (leaked.length > 0) failures.push(`${where} shows b's ${leaked.join(', ')}`);
      }
      table.push(`${`${route.method} ${route.url}`.padEnd(58)} ${row.map((c) => c.padStart(5)).join(' ')}`);
    }
    console.log(
      `portal routes × roles, naming merchant b's objects (${guarded.length} routes)\n${''.padEnd(58)} ${ROLES.map((r) => r.slice(0, 5).padStart(5)).join(' ')}\n${table.join('\n')}`,
    );
    expect(failures).toEqual([]);
  });

  it('a key each role may make on the developers page reaches through the API only what the role may do in the portal', { timeout: 120_000 }, async () => {
    // The role table for keys (docs/portal.md): what each role may give a key. A capability stands for
    // portal permissions (CAPABILITY_PERMISSION); a role without them may not give it.
    const EXPECTED: Record<Role, readonly Capability[] | 'no page'> = {
      owner: ['PaymentLinks', 'TokenizeLinks', 'HostedCheckout', 'Webhooks'],
      developer: ['Webhooks'],
      staff: 'no page',
    };
    const api = ctx.app.routeTable.filter((r) => r.url.startsWith('/api/v1/') && r.auth !== undefined && r.method !== 'HEAD');
    expect(api.length).toBeGreaterThan(10);
    const failures: string[] = [];
    const table: string[] = [];
    for (const role of ROLES) {
      const browser = browsers[role];
      if ((await browser.get('/portal/account')).statusCode !== 200) await browser.signIn(emails[role]);
      const given: Capability[] = [];
      const row: string[] = [];
      for (const capability of CAPABILITIES) {
        await browser.get('/portal/account');
        const res = await browser.post('/portal/developers/keys', { capabilities: capability });
        row.push(`${capability} ${res.statusCode}`);
        const expected = !can(role, 'developers.manage') ? 403 : can(role, CAPABILITY_PERMISSION[capability]) ? 200 : 400;
        if (res.statusCode !== expected) failures.push(`${role} giving a key ${capability}: ${res.statusCode}, expected ${expected}`);
        if (res.statusCode === 200) given.push(capability);
      }
      table.push(`${role.padEnd(10)} ${row.join('  ')}`);
      expect(given.length > 0 ? given : 'no page', role).toEqual(EXPECTED[role]);
      expect(keyCapabilitiesFor(role)).toEqual(given);
      if (given.length === 0) continue;
      // One key with all the role may give: every API route it reaches needs a capability whose portal
      // permissions the role has; every other route refuses it (403) before reading anything.
      await browser.get('/portal/account');
      const made = await browser.post('/portal/developers/keys', { capabilities: given });
      const apiKey = /value="([^"]+)"[^>]*id="new-api-key"|id="new-api-key"[^>]*value="([^"]+)"/.exec(made.body)?.slice(1).find(Boolean) ?? '';
      expect(apiKey.length, role).toBeGreaterThan(30);
      for (const route of api) {
        const needs = route.auth?.anyOf ?? [];
        const reaches = needs.length === 0 || needs.some((c) => given.includes(c));
        const url = route.url.replace(/:(\w+)/g, 'nothing');
        const res = await call(ctx, route.method === 'GET' ? 'GET' : 'POST', url, route.method === 'GET' ? undefined : {}, { apiKey });
        const where = `${role}'s key, ${route.method} ${route.url}: ${res.status}`;
        if (!reaches && res.status !== 403) failures.push(`${where}, expected 403`);
        if (reaches && res.status === 403) failures.push(`${where}, expected the key to reach it`);
        if (reaches && !needs.some((c) => given.includes(c) && can(role, CAPABILITY_PERMISSION[c])) && needs.length > 0)
          failures.push(`${where}: the role may not do this in the portal`);
      }
    }
    console.log(`keys each role may make (status of the developers page's create)\n${table.join('\n')}`);
    expect(failures).toEqual([]);
  });

  it('a visitor who is not signed in is sent to sign in from every guarded route, and nothing is written', async () => {
    const routes = ctx.app.routeTable.filter((r) => r.url.startsWith('/portal') && r.method !== 'HEAD' && r.portal !== undefined && 'permission' in r.portal);
    const visitor = new PortalBrowser(ctx);
    await visitor.get('/portal/sign-in');
    const before = await writeCount(ctx.tdb.db);
    for (const route of routes) {
      const res = route.method === 'GET' ? await visitor.get(pathFor(route)) : await visitor.post(pathFor(route), {});
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(303);
      expect(String(res.headers.location)).toMatch(/^\/portal\/sign-in\?/);
    }
    expect(await writeCount(ctx.tdb.db)).toBe(before);
  });
});
