import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { buildWorld, type World } from '../security/world.js';
import { requestArbitrary, runCase, validBodies } from './requests.js';
import { installWriteCounter, writeCount } from './writes.js';

// Issue 7, property 3: hostile input on every route of the app's own route table. Random and
// mutated bodies, wrong types, huge numbers, deep nesting, long strings, invalid UTF-8, wrong content
// types, duplicate keys, odd query strings and path segments. Every answer is below 500, every API
// error is §Errors's problem+json with a catalogue code, and a rejected request commits no write.
//
// FUZZ_RUNS is the number of cases per database over all routes (default 200 in `npm test`, so 400 over both databases;
// `FUZZ_RUNS=10000 npm run test:fuzz` for the nightly size). FUZZ_SEED replays a failing run.

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : undefined;

describe('hostile input on every route (§Hardening)', () => {
  let ctx: TestContext;
  let world: World;
  beforeAll(async () => {
    // The rate limit is not what this test is about: off, so every case reaches the route.
    ctx = await createTestContext({ LOG_LEVEL: 'warn', PAYLINKS_RATE_LIMIT_PER_SECOND: '0' });
    world = await buildWorld(ctx);
    await installWriteCounter(ctx.tdb.db);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it(
    `${RUNS} cases spread over every route answer below 500, in §Errors's form, and write nothing when rejected`,
    { timeout: Math.max(120_000, RUNS * 200) },
    async () => {
      const routes = ctx.app.routeTable;
      const bodies = validBodies(world);
      // Every route with a JSON body schema has a valid sample, so mutations reach its deep rules.
      const withBody = routes.filter((r) => r.schema.body !== undefined).map((r) => `${r.method} ${r.url}`);
      expect(withBody.filter((k) => !(k in bodies))).toEqual([]);

      const perRoute = Math.max(3, Math.ceil(RUNS / routes.length));
      let cases = 0;
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      const writesBefore = await writeCount(ctx.tdb.db);
      for (const route of routes) {
        const valid = bodies[`${route.method} ${route.url}`];
        // Every route runs its share even when another failed; each failure names its seed to replay.
        const details = await fc.check(
          fc.asyncProperty(requestArbitrary(world, route, valid), async (req) => {
            cases++;
            const status = await runCase(ctx, route, req);
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }),
          { numRuns: perRoute, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
        );
        if (details.failed) {
          const err = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
          failures.push(`${route.method} ${route.url} (seed ${details.seed}): ${fc.stringify(details.counterexample)}\n  ${err.slice(0, 1500)}`);
        }
      }
      expect(failures.join('\n\n'), 'no route failed').toBe('');
      const errors = ctx.logs.filter((l) => /"level":(50|60)/.test(l));
      expect(errors, 'no error was logged').toEqual([]);
      const histogram = [...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ');
      console.log(`fuzz (${TEST_DB}): ${cases} cases over ${routes.length} routes, none answered 5xx; statuses ${histogram}`);
      expect(cases).toBeGreaterThanOrEqual(RUNS);
      // Not vacuous: some mutated requests were still valid and wrote, and the counter saw them.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      expect(await writeCount(ctx.tdb.db)).toBeGreaterThan(writesBefore);
    },
  );
});
