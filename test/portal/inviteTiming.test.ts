import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { createMerchant } from '../../src/accounts/service.js';
import { createUser } from '../../src/users/service.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { portalUser, type PortalBrowser } from './helpers.js';

// A measurement, not a check (docs/style.md, Tests: speed is never asserted): how long an owner's
// invitation takes for addresses nobody has and for addresses with an account of another merchant,
// the two kinds taking turns so that the machine's load falls on both. It prints the figures and
// asserts only that each invitation is answered. It runs only when asked, as docs/portal.md ("Users")
// says: MEASURE_INVITE_TIMING=1 npx vitest run --project postgres --project pglite test/portal/inviteTiming.test.ts
const N = Number(process.env.INVITE_TIMING_N ?? 200);

describe.runIf(process.env.MEASURE_INVITE_TIMING === '1')('invite timing (measurement)', () => {
  let ctx: TestContext;
  let owner: { browser: PortalBrowser };
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = await portalUser(ctx, 'owner', { email: 'owner@shop.example' });
    const other = await createMerchant(ctx.tdb.db, 'Other');
    for (let i = 0; i < N + 20; i++) {
      await createUser(ctx.tdb.db, ctx.clock, { email: `known${i}@other.example`, owner: { merchantId: other.merchantId }, role: 'staff', createdBy: null });
    }
  });
  afterAll(async () => ctx.close());

  it('measures', async () => {
    await owner.browser.get('/portal/users');
    const fresh: number[] = [];
    const known: number[] = [];
    const post = async (email: string, into: number[] | null) => {
      const t = performance.now();
      const res = await owner.browser.post('/portal/users', { email, role: 'staff' });
      const ms = performance.now() - t;
      expect(res.statusCode).toBe(200);
      if (into) into.push(ms);
    };
    // warm-up
    for (let i = 0; i < 20; i++) {
      await post(`warm${i}@new.example`, null);
      await post(`known${N + i}@other.example`, null);
    }
    for (let i = 0; i < N; i++) {
      if (i % 2 === 0) {
        await post(`fresh${i}@new.example`, fresh);
        await post(`known${i}@other.example`, known);
      } else {
        await post(`known${i}@other.example`, known);
        await post(`fresh${i}@new.example`, fresh);
      }
    }
    const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
    const line = (name: string, xs: number[]) => `${name}: median ${q(xs, 0.5).toFixed(2)} ms, p90 ${q(xs, 0.9).toFixed(2)} ms`;
    const out = [
      `${TEST_DB} n=${N}`,
      line('fresh address', fresh),
      line('existing account', known),
      `median of the paired differences (fresh minus existing, the two invites of each turn) ${q(
        fresh.map((f, i) => f - (known[i] ?? NaN)),
        0.5,
      ).toFixed(2)} ms`,
      `median difference ${(q(fresh, 0.5) - q(known, 0.5)).toFixed(2)} ms`,
      `noise (median of one kind's even vs odd invites): fresh ${(
        q(
          fresh.filter((_, i) => i % 2 === 0),
          0.5,
        ) -
        q(
          fresh.filter((_, i) => i % 2 === 1),
          0.5,
        )
      ).toFixed(2)} ms, existing ${(
        q(
          known.filter((_, i) => i % 2 === 0),
          0.5,
        ) -
        q(
          known.filter((_, i) => i % 2 === 1),
          0.5,
        )
      ).toFixed(2)} ms`,
    ].join('\n');
    console.log(out);
  });
});
