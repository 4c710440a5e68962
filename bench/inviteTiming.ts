// How long an owner's invitation takes for addresses nobody has and for addresses with an account of
// another merchant (docs/portal.md, Users: an invitation tells nobody who has an account, nor does its
// time). A measurement, printed, never asserted: `npx tsx bench/inviteTiming.ts` (PostgreSQL at
// BENCH_DATABASE_ADMIN_URL; INVITE_TIMING_N invitations of each kind, 200 by default). The two kinds
// take turns, so that the machine's load falls on both, through app.inject one request at a time.
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { createMerchant } from '../src/accounts/service.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { simulatorAcquirer } from '../src/payments/simulator.js';
import { createSealer } from '../src/sealing.js';
import { createUser } from '../src/users/service.js';
import { createBenchDatabase } from './lib.js';
import { signedInOwner } from './portal.js';

const N = Number(process.env.INVITE_TIMING_N ?? 200);

const bdb = await createBenchDatabase('invite');
try {
  const config = parseConfig({ DATABASE_URL: bdb.url, LOG_LEVEL: 'silent' });
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: '', poolSize: 4 });
  await migrate(db);
  const app = await buildApp({ config, db, clock: systemClock, acquirer: simulatorAcquirer, sealer: createSealer(config.secretKey) });
  try {
    const own = await createMerchant(db, 'Bench');
    const other = await createMerchant(db, 'Other');
    for (let i = 0; i < N + 20; i++) {
      await createUser(db, systemClock, { email: `known${i}@other.example`, owner: { merchantId: other.merchantId }, role: 'staff', createdBy: null });
    }
    // The users page gives the form token and the cookie it is bound to, as a browser gets them.
    const session = await signedInOwner(db, own.merchantId, 'owner@shop.example');
    const page = await app.inject({ url: '/portal/users', headers: { cookie: session } });
    const formCookie = /paylinks_portal_csrf=[^;]+/.exec(String(page.headers['set-cookie']))?.[0];
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
    if (page.statusCode !== 200 || !token) throw new Error(`the users page answered ${page.statusCode}`);
    const cookie = formCookie ? `${session}; ${formCookie}` : session;

    const fresh: number[] = [];
    const known: number[] = [];
    const post = async (email: string, into: number[] | null): Promise<void> => {
      const t = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: '/portal/users',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email, role: 'staff', _csrf: token }).toString(),
      });
      const ms = performance.now() - t;
      if (res.statusCode !== 200) throw new Error(`inviting ${email} answered ${res.statusCode}`);
      into?.push(ms);
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
    const q = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
    const line = (name: string, xs: number[]): string => `${name}: median ${q(xs, 0.5).toFixed(2)} ms, p90 ${q(xs, 0.9).toFixed(2)} ms`;
    /** One kind's even invites against its odd ones: how far two halves of the same thing differ. */
    const noise = (xs: number[]): string =>
      (
        q(
          xs.filter((_, i) => i % 2 === 0),
          0.5,
        ) -
        q(
          xs.filter((_, i) => i % 2 === 1),
          0.5,
        )
      ).toFixed(2);
    const paired = q(
      fresh.map((f, i) => f - (known[i] ?? NaN)),
      0.5,
    );
    console.log(
      [
        `postgres n=${N}`,
        line('fresh address', fresh),
        line('existing account', known),
        `median of the paired differences (fresh minus existing, the two invites of each turn) ${paired.toFixed(2)} ms`,
        `median difference ${(q(fresh, 0.5) - q(known, 0.5)).toFixed(2)} ms`,
        `noise (median of one kind's even vs odd invites): fresh ${noise(fresh)} ms, existing ${noise(known)} ms`,
      ].join('\n'),
    );
  } finally {
    await app.close();
    await db.close();
  }
} finally {
  await bdb.drop();
}
