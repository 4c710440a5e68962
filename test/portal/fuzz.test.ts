import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { hostileString } from '../fuzz/arbitraries.js';
import { installWriteCounter, writeCount } from '../fuzz/writes.js';
import { buildWorld, type World } from '../security/world.js';
import { portalUser, type PortalBrowser } from './helpers.js';

// Fuzzed form posts to every portal route (§Hardening, §The portal), as a signed-in owner with a valid
// form token, so the hostile values reach the handlers and the services behind them: answers are below
// 500, and a refused post (4xx) writes nothing. The field names come from the portal's own pages
// (every input, select and textarea name found on its GET pages), mixed with hostile names, so a
// form added later is fuzzed without anyone listing its fields. Posts without the form token are
// refused and write nothing too.
//
// FUZZ_RUNS cases per database over all routes (default 200 in `npm test`; 10,000 in CI's nightly size).

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : undefined;

/** Merchant a's objects for path parameters (the owner's own: the post reaches the action). */
function ownPath(url: string, w: World, extra: Record<string, string>): string {
  const a = w.a;
  const own: Record<string, string> = {
    reference: a.linkReference,
    checkoutReference: a.paidCheckoutReference,
    payfacReference: a.payfacReference,
    webhookId: a.webhookId,
    deliveryId: a.deliveryId,
    token: 'x'.repeat(43),
    ...extra,
  };
  return url.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(own[name] ?? name));
}

function fieldNamesOf(html: string): string[] {
  return [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bname="([^"]+)"/g)].map((m) => m[1] ?? '').filter((n) => n !== '' && n !== '_csrf');
}

describe('hostile form posts to every portal route', () => {
  let ctx: TestContext;
  let world: World;
  let owner: { email: string; browser: PortalBrowser };
  let fields: string[];
  let extra: Record<string, string>;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn', PAYLINKS_RATE_LIMIT_PER_SECOND: '0' });
    world = await buildWorld(ctx);
    owner = await portalUser(ctx, 'owner');
    const other = await portalUser(ctx, 'staff');
    const { rows } = await ctx.tdb.db.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = $1 LIMIT 1', [ctx.merchant.merchantId]);
    extra = { keyId: rows[0]?.id ?? 'key_x', userId: await userIdOf(other.email) };
    // Every field name on every page the owner can open.
    const names = new Set<string>();
    for (const r of ctx.app.routeTable.filter((r) => r.method === 'GET' && r.url.startsWith('/portal') && !r.url.includes('/assets/'))) {
      const res = await owner.browser.get(ownPath(r.url, world, extra));
      for (const n of fieldNamesOf(res.body)) names.add(n);
    }
    fields = [...names];
    await installWriteCounter(ctx.tdb.db);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  async function userIdOf(email: string): Promise<string> {
    const { rows } = await ctx.tdb.db.pool.query<{ id: string }>('SELECT id FROM portal_users WHERE email = $1', [email]);
    return rows[0]?.id ?? 'usr_x';
  }

  it(`${RUNS} hostile posts answer below 500 and a refused one writes nothing`, { timeout: Math.max(120_000, RUNS * 300) }, async () => {
    expect(fields.length).toBeGreaterThan(3);
    const posts = ctx.app.routeTable.filter((r) => r.method === 'POST' && r.url.startsWith('/portal'));
    const perRoute = Math.max(2, Math.ceil(RUNS / posts.length));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fields) }, { weight: 1, arbitrary: hostileString.filter((s) => s.length < 100) });
    const value = fc.oneof(
      { weight: 2, arbitrary: hostileString.filter((s) => s.length < 20_000) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('0', '1', '-1', '1.5', '99999999999999', 'on', 'en', 'is', 'owner', 'staff', 'EUR', 'ISK', 'https://shop.example/x'),
      },
    );
    const form = fc.array(fc.tuple(name, value), { maxLength: 12 });
    let cases = 0;
    for (const route of posts) {
      const path = ownPath(route.url, world, extra);
      const details = await fc.check(
        fc.asyncProperty(form, fc.boolean(), async (pairs, withToken) => {
          cases++;
          // Signed in, with a fresh token (an earlier case may have signed the owner out everywhere, or
          // ended the session with five wrong current passwords, which also hold the address's sign-in
          // for 15 minutes: the clock moves past that hold first).
          if ((await owner.browser.get('/portal/account')).statusCode !== 200) {
            ctx.clock.advance(16 * 60_000);
            const signedIn = await owner.browser.signIn(owner.email);
            expect(signedIn.statusCode, 'signed in again').toBe(303);
          }
          const body = new URLSearchParams();
          for (const [k, v] of pairs) body.append(k, v);
          const before = await writeCount(ctx.tdb.db);
          const res = await owner.browser.post(path, body, withToken ? {} : { csrf: null });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const wrote = (await writeCount(ctx.tdb.db)) - before;
          expect(res.statusCode, res.body.slice(0, 400)).toBeLessThan(500);
          // Without the token: refused (a body over the limit is refused before its token is read).
          if (!withToken) expect([403, 413]).toContain(res.statusCode);
          // A refused sign-in, or a wrong current password on the account page, counts its failure (the
          // sign-in's limits): that is its purpose, not a write of the post.
          const refusedSignIn = route.url === '/portal/sign-in' || route.url === '/portal/account/password';
          if (res.statusCode >= 400 && !refusedSignIn && wrote !== 0) throw new Error(`refused with ${res.statusCode} but wrote ${wrote} rows`);
        }),
        { numRuns: perRoute, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
      );
      if (details.failed) {
        const err = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        failures.push(`${route.method} ${route.url} (seed ${details.seed}): ${fc.stringify(details.counterexample).slice(0, 600)}\n  ${err.slice(0, 800)}`);
      }
    }
    expect(failures.join('\n\n'), 'no route failed').toBe('');
    expect(
      ctx.logs.filter((l) => /"level":(50|60)/.test(l)),
      'no error was logged',
    ).toEqual([]);
    const histogram = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    console.log(`portal fuzz (${TEST_DB}): ${cases} posts over ${posts.length} routes with ${fields.length} field names; statuses ${histogram}`);
    expect(statuses.get(403) ?? 0).toBeGreaterThan(0);
  });
});
