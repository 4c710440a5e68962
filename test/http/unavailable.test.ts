import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorAcquirer } from '../../src/payments/simulator.js';
import { createSealer } from '../../src/sealing.js';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { TEST_DB } from '../helpers/db.js';

// §Status codes: while the database is unreachable the service answers 503 with Retry-After, and /readyz says
// not ready. (Restarting a live PostgreSQL under load is §Hardening's test; this one points the pool at
// a port where nothing listens.)
describe.skipIf(TEST_DB !== 'postgres')('database unreachable (§Status codes)', () => {
  let app: App;
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', dataDir: '' });
    const config = parseConfig({ LOG_LEVEL: 'silent' });
    app = await buildApp({ config, db, clock: systemClock, acquirer: simulatorAcquirer, sealer: createSealer(config.secretKey) });
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });

  it('answers an API call with 503 UNAVAILABLE and Retry-After', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/paymentlinks', headers: { 'x-api-key': 'pk_0123456789abcdef0123456789abcdef' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.body)).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
  });

  it('reports not ready', async () => {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
  });
});
