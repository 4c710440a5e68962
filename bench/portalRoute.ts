// The cost of one portal list request in one process, beside the API list (a profiling aid beside
// the portal bench, which measures the real server under load): `npm run bench:route`. A merchant
// with a few thousand links and payments on PostgreSQL, each page asked through app.inject one
// request at a time, so that the figure is the work of a request and not the machine's load: the
// process's CPU time (user + system) and the database queries per request. `--cpu-prof` on the
// command line writes a profile of the same requests. BENCH_ROUTE_BASELINE=<folder of another
// checkout> builds that checkout's app too, in the same process on the same database, and the two
// take turns: a change is measured against the code before it under the same load of the machine.
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { simulatorAcquirer } from '../src/payments/simulator.js';
import { createSealer } from '../src/sealing.js';
import { buildApp } from '../src/app.js';
import { createBenchDatabase, fmt } from './lib.js';

type BuildApp = typeof buildApp;

process.env.BENCH_PORTAL_LINKS ??= '2000';
process.env.BENCH_PORTAL_PAYMENTS ??= '5000';
// Spread over 30 days (BENCH_PORTAL_PAYMENTS=200000 BENCH_PORTAL_PAYMENT_SPACING=13 for a merchant's
// month), so that the overview's periods hold payments.
const { seed } = await import('./portal.js');

const N = Number(process.env.BENCH_ROUTE_REQUESTS ?? 2000);
const bdb = await createBenchDatabase('route');
try {
  const { apiKey, cookie } = await seed(bdb.url);
  const config = parseConfig({ DATABASE_URL: bdb.url, PAYLINKS_DB_POOL_SIZE: '4', LOG_LEVEL: process.env.BENCH_ROUTE_LOG_LEVEL ?? 'silent' });
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: '', poolSize: 4 });
  let queries = 0;
  const query = db.pool.query.bind(db.pool) as (...args: unknown[]) => unknown;
  (db.pool as { query: unknown }).query = (...args: unknown[]) => {
    queries++;
    return query(...args);
  };
  const deps = { config, db, clock: systemClock, acquirer: simulatorAcquirer, sealer: createSealer(config.secretKey) };
  const builds: [string, BuildApp][] = [['', buildApp]];
  const baseline = process.env.BENCH_ROUTE_BASELINE;
  if (baseline) builds.unshift(['baseline: ', ((await import(`${baseline}/src/app.ts`)) as { buildApp: BuildApp }).buildApp]);
  const apps = await Promise.all(builds.map(async ([label, build]) => [label, await build(deps)] as const));
  try {
    const targets: [string, (typeof apps)[number][1], string, Record<string, string>][] = [];
    for (const [label, app] of apps) {
      const first = await app.inject({ url: '/portal/links', headers: { cookie } });
      const formCookie = /paylinks_portal_csrf=[^;]+/.exec(String(first.headers['set-cookie']))?.[0];
      const pageHeaders = { cookie: formCookie ? `${cookie}; ${formCookie}` : cookie };
      targets.push(
        [`${label}API list (PageSize 20)`, app, '/api/v1/paymentlinks?PageSize=20', { 'x-api-key': apiKey }],
        [`${label}portal links page`, app, '/portal/links', pageHeaders],
        // As the portal bench searches: a text only a few links hold, with words every link holds.
        [`${label}portal search page`, app, '/portal/links?q=bench%20link%201999', pageHeaders],
        [`${label}portal payments page`, app, '/portal/payments', pageHeaders],
        [`${label}portal overview page`, app, '/portal', pageHeaders],
        [`${label}portal overview page (30 days)`, app, '/portal?days=30', pageHeaders],
      );
    }
    // BENCH_ROUTE_ONLY: the targets whose URL holds one of these comma-separated texts (`api,/portal/`: the API and the lists).
    const only = process.env.BENCH_ROUTE_ONLY?.split(',');
    const chosen = targets.filter(([, , url]) => only === undefined || only.some((text) => url.includes(text)));
    const ask = async ([, app, url, headers]: (typeof targets)[number]): Promise<number> => {
      const r = await app.inject({ url, headers });
      if (r.statusCode !== 200) throw new Error(`${url} answered ${r.statusCode}`);
      return r.body.length;
    };
    for (const target of chosen) for (let i = 0; i < 500; i++) await ask(target);
    // The targets take turns, a batch each, so that a busy spell of the machine falls on all of them;
    // the least CPU time of a batch is the figure (the load of other processes only ever adds).
    const BATCH = 100;
    const cpuOf = new Map<string, number[]>(chosen.map(([name]) => [name, []]));
    // Wall time includes the database's work on the request (asked one at a time), which CPU time does not.
    const wallOf = new Map<string, number[]>(chosen.map(([name]) => [name, []]));
    const queriesOf = new Map<string, number>();
    const bytesOf = new Map<string, number>();
    for (let b = 0; b < N / BATCH; b++) {
      for (const target of chosen) {
        queries = 0;
        const cpu0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < BATCH; i++) bytesOf.set(target[0], await ask(target));
        wallOf.get(target[0])?.push(Number(process.hrtime.bigint() - t0) / 1000 / BATCH);
        const cpu = process.cpuUsage(cpu0);
        cpuOf.get(target[0])?.push((cpu.user + cpu.system) / BATCH);
        queriesOf.set(target[0], queries / BATCH);
      }
    }
    // With CPU the limit, a page's requests/s over the API list's is the inverse of their CPU times.
    const least = (name: string): number => Math.min(...(cpuOf.get(name) ?? [Infinity]));
    for (const [name] of chosen) {
      const all = (cpuOf.get(name) ?? []).sort((a, b) => a - b);
      const median = all[Math.floor(all.length / 2)] ?? 0;
      const walls = (wallOf.get(name) ?? []).sort((a, b) => a - b);
      const wall = walls[Math.floor(walls.length / 2)] ?? 0;
      const api = name.replace(/portal \w+ page( \(30 days\))?$/, 'API list (PageSize 20)');
      const ratio = api !== name && cpuOf.has(api) ? `, ${(least(api) / least(name)).toFixed(2)} of the API list` : '';
      console.log(
        `${name}: ${fmt(all[0] ?? 0)} µs CPU a request at least, ${fmt(median)} median${ratio}; ${fmt(wall)} µs wall (median); ${fmt(queriesOf.get(name) ?? 0, 1)} queries, ${fmt(bytesOf.get(name) ?? 0)} bytes`,
      );
    }
  } finally {
    for (const [, app] of apps) await app.close();
    await db.close();
  }
} finally {
  await bdb.drop();
}
