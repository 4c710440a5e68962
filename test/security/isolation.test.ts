import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../src/accounts/service.js';
import type { RouteEntry } from '../../src/http/routeTable.js';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { validBodies } from '../fuzz/requests.js';
import { installWriteCounter, writeCount } from '../fuzz/writes.js';
import { buildWorld, type World } from './world.js';

// Issue 7, property 5: tenant isolation on every route (§Authentication, §Webhooks). The table is GENERATED from the
// app's own route table (src/http/routeTable.ts): every /api/v1 route × every kind of caller, each
// request naming merchant a's objects (in the path and in the body). A route added later is in the
// table without anyone listing it. The expected answer follows from the route's §Authentication requirement:
//   no key, unknown key, revoked key      → 401 UNAUTHENTICATED
//   a key without the route's capability  → 403 FORBIDDEN
//   a partner's key on a merchant route   → 403 FORBIDDEN
//   merchant b, or the partner on a webhook route, naming a's objects → 404 (never 403: no
//     existence leak, §Authentication), 400 TERMINAL_NOT_FOUND for a's terminal, or 200 for what is its own
//     (a list, a registration); and never a byte of a's objects in the answer, never a write to them.

type Caller = 'none' | 'unknown' | 'revoked' | 'lacksCapability' | 'stranger' | 'partner';
const CALLERS: Caller[] = ['none', 'unknown', 'revoked', 'lacksCapability', 'stranger', 'partner'];

describe("tenant isolation on every route (§Authentication, §Webhooks; generated from the app's routes)", () => {
  let ctx: TestContext;
  let world: World;
  let keys: Record<Caller, string | null>;
  let bodies: Record<string, unknown>;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    world = await buildWorld(ctx);
    const revoked = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks', 'TokenizeLinks', 'HostedCheckout', 'Webhooks']);
    await revokeKey(asOperator(ctx), revoked.keyId);
    // Merchant a's own key with TokenizeLinks only: every route that does not take it must answer 403.
    const narrow = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['TokenizeLinks']);
    keys = {
      none: null,
      unknown: `pk_${'x'.repeat(43)}`,
      revoked: revoked.apiKey,
      lacksCapability: narrow.apiKey,
      stranger: world.b.apiKey,
      partner: world.partner.apiKey,
    };
    bodies = validBodies(world);
    await installWriteCounter(ctx.tdb.db);
  });
  afterAll(async () => {
    await ctx.close();
  });

  /** a's identifiers the caller must never see; the partner legitimately sees a's payments through its own webhook's deliveries. */
  function secretsOf(caller: Caller): string[] {
    const a = world.a;
    if (caller === 'partner') return [a.webhookId, a.deliveryId, a.checkoutReference, a.tokenizeLinkReference];
    return [
      a.linkReference,
      a.tokenizeLinkReference,
      a.checkoutReference,
      a.paidCheckoutReference,
      a.payfacReference,
      a.tokenValue,
      a.webhookId,
      a.deliveryId,
      ctx.merchant.merchantId,
    ];
  }

  function pathFor(route: RouteEntry): string {
    const a = world.a;
    return route.url
      .replace(':webhookId', a.webhookId)
      .replace(':deliveryId', a.deliveryId)
      .replace(':checkoutReference', a.paidCheckoutReference)
      .replace(':reference', a.linkReference);
  }

  function expected(route: RouteEntry, caller: Caller): 'unauthenticated' | 'forbidden' | 'isolated' | 'skip' {
    const auth = route.auth;
    if (!auth) return 'skip';
    if (caller === 'none' || caller === 'unknown' || caller === 'revoked') return 'unauthenticated';
    if (caller === 'lacksCapability') return auth.anyOf.length > 0 && !auth.anyOf.includes('TokenizeLinks') ? 'forbidden' : 'skip';
    if (caller === 'partner' && !auth.partners) return 'forbidden';
    return 'isolated';
  }

  it('every API route answers every caller as §Authentication says, and no caller reaches merchant a', async () => {
    const routes = ctx.app.routeTable.filter((r) => r.url.startsWith('/api/v1/') && r.method !== 'HEAD');
    // Only the OpenAPI document is public under /api/v1: a new route without auth fails here.
    expect(routes.filter((r) => !r.auth).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1/openapi.json']);
    const table: string[] = [];
    const failures: string[] = [];
    for (const route of routes.filter((r) => r.auth)) {
      const row: string[] = [];
      for (const caller of CALLERS) {
        const want = expected(route, caller);
        if (want === 'skip') {
          row.push('-');
          continue;
        }
        const body = route.method === 'POST' ? (bodies[`${route.method} ${route.url}`] ?? {}) : undefined;
        const before = await writeCount(ctx.tdb.db);
        const r = await call(ctx, route.method as 'GET' | 'POST', pathFor(route), body, { apiKey: keys[caller] });
        const wrote = (await writeCount(ctx.tdb.db)) - before;
        row.push(`${r.status}`);
        const where = `${route.method} ${route.url} as ${caller}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
        const ok =
          want === 'unauthenticated'
            ? r.status === 401 && r.body.code === 'UNAUTHENTICATED' && wrote === 0
            : want === 'forbidden'
              ? r.status === 403 && r.body.code === 'FORBIDDEN' && wrote === 0
              : r.status === 404
                ? r.body.code === 'NOT_FOUND' && wrote === 0
                : r.status === 400
                  ? (r.body.code === 'TERMINAL_NOT_FOUND' || r.body.code === 'VALIDATION_FAILED') && wrote === 0
                  : r.status === 200;
        if (!ok) failures.push(`${where} (wrote ${wrote} rows; expected ${want})`);
        if (want === 'isolated') {
          const text = r.res.body;
          // What the caller sent may be echoed; anything else of a's must not appear.
          const sent = `${pathFor(route)} ${JSON.stringify(body ?? {})}`;
          const leaked = secretsOf(caller).filter((s) => text.includes(s) && !sent.includes(s));
          if (leaked.length > 0) failures.push(`${where} leaked ${leaked.join(', ')}`);
        }
      }
      table.push(`${`${route.method} ${route.url}`.padEnd(52)} ${row.map((c) => c.padStart(4)).join(' ')}`);
    }
    console.log(
      `tenant isolation (${routes.length} API routes × ${CALLERS.length} callers)\n${''.padEnd(52)} ${CALLERS.map((c) => c.slice(0, 4).padStart(4)).join(' ')}\n${table.join('\n')}`,
    );
    expect(failures).toEqual([]);

    // a's objects are as they were: a still reads them all.
    for (const [path, key] of [
      [`/api/v1/paymentlinks/${world.a.linkReference}`, 'paymentLink'],
      [`/api/v1/webhooks/${world.a.webhookId}`, 'webhook'],
      [`/api/v1/webhooks/deliveries/${world.a.deliveryId}`, 'delivery'],
    ] as const) {
      const r = await call(ctx, 'GET', path);
      expect(r.status, path).toBe(200);
      expect(r.body[key]).toBeTruthy();
    }
    const link = await call(ctx, 'GET', `/api/v1/paymentlinks/${world.a.linkReference}`);
    expect((link.body.paymentLink as { status: string }).status).toBe('Active');
  });
});
