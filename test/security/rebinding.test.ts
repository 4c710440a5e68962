import { Writable } from 'node:stream';
import { simulatorAcquirer } from '../../src/payments/simulator.js';
import { createSealer } from '../../src/sealing.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { createMerchant, type CreatedMerchant } from '../../src/accounts/service.js';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { withTransaction } from '../../src/db/database.js';
import { loggerOptions } from '../../src/logging.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { createDeliveryAgent } from '../../src/webhooks/delivery/send.js';
import { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { testCerts } from '../webhooks/certs.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

// Issue 7, §Webhooks in production: a webhook's host is checked at registration against every address it
// resolves to, and again at each connection, with the answer the socket then dials. The resolver is
// injected, so the DNS answer can change between registration (a public address) and the send (a
// loopback one, where a receiver is listening): nothing reaches it.

describe('§Webhooks address rules with a DNS answer that changes after registration (production)', () => {
  let tdb: TestDatabase;
  let app: App;
  let merchant: CreatedMerchant;
  let receiver: Receiver;
  const clock = new ManualClock(new Date());
  const config = parseConfig({
    PAYLINKS_ENV: 'production',
    PAYLINKS_SECRET_KEY: 'cd'.repeat(32),
    PUBLIC_BASE_URL: 'https://pay.example.com',
    LOG_LEVEL: 'info',
  });
  const sealer = createSealer(config.secretKey);
  const answers = new Map<string, string[]>();
  const resolver = async (host: string): Promise<string[]> => {
    const a = answers.get(host);
    if (!a) throw Object.assign(new Error(`no answer for ${host}`), { code: 'ENOTFOUND' });
    return a;
  };
  const logs: string[] = [];
  let logger: pino.Logger;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    logger = pino(loggerOptions(config.logLevel), new Writable({ write: (c: Buffer, _e, cb) => (logs.push(c.toString()), cb()) }));
    app = await buildApp({ config, db: tdb.db, clock, acquirer: simulatorAcquirer, sealer, logger, webhookResolver: resolver });
    merchant = await createMerchant(tdb.db, 'Rebinding');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await app.close();
    await tdb.drop();
  });

  const registerUrl = async (url: string) => {
    const r = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { 'x-api-key': merchant.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ url }),
    });
    return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, unknown> };
  };

  it('refuses at registration a name that resolves to any internal address', async () => {
    answers.set('mixed.rebind.test', ['93.184.216.34', '10.0.0.7']);
    answers.set('metadata.rebind.test', ['169.254.169.254']);
    for (const host of ['mixed.rebind.test', 'metadata.rebind.test']) {
      const r = await registerUrl(`https://${host}/hook`);
      expect(r.status, host).toBe(400);
      expect(r.body.errors).toEqual([expect.objectContaining({ field: 'url', code: 'ADDRESS_NOT_ALLOWED' })]);
    }
    expect((await registerUrl('https://nxdomain.rebind.test/hook')).body.errors).toEqual([expect.objectContaining({ code: 'UNRESOLVABLE' })]);
  });

  it('registered while public, rebound to loopback before the send: the worker never connects', async () => {
    const host = 'hooks.rebind.test';
    answers.set(host, ['93.184.216.34']);
    const reg = await registerUrl(`https://${host}:${receiver.port}/rebound`);
    expect(reg.status).toBe(200);
    // The attacker's DNS now answers with the address where the receiver listens.
    answers.set(host, ['127.0.0.1']);
    await withTransaction(tdb.db, (tx) =>
      enqueueEvent(
        tx,
        { clock, sealer },
        {
          merchantId: merchant.merchantId,
          eventType: 'Capture',
          checkoutReference: null,
          payfacReference: 'rebind-1',
          merchantReference: null,
          amount: 100,
          currency: 'EUR',
          reason: null,
          success: true,
        },
      ),
    );
    const worker = new DeliveryWorker({
      db: tdb.db,
      clock,
      config,
      sealer,
      dispatcher: createDeliveryAgent({ publicOnly: true, resolver, tls: { ca: testCerts().ca } }),
      attemptTimeoutMs: 1_500,
      pollIntervalMs: 200,
      logger,
    });
    await worker.start();
    try {
      await worker.settled();
    } finally {
      await worker.stop(5_000);
    }
    expect(receiver.received).toHaveLength(0);
    const { rows } = await tdb.db.pool.query<{ state: string; response_status: number | null; error_kind: string }>(
      `SELECT d.state, a.response_status, a.error_kind FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.payfac_reference = 'rebind-1'`,
    );
    expect(rows).toEqual([{ state: 'Pending', response_status: null, error_kind: 'connection' }]);
    // Refused by the address rule at the lookup, not by some other failure.
    expect(logs.some((l) => l.includes('webhook attempt failed') && l.includes('EADDRNOTALLOWED'))).toBe(true);
  });
});
