import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext, asOperator } from '../helpers/app.js';
import { createKey, createMerchant, createPartner, linkPartner, type CreatedMerchant } from '../../src/accounts/service.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueueEvent } from '../../src/webhooks/events.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { register, testWorker } from './helpers.js';

// Registration (§Webhooks): the operations, the URL rules, secrets shown once, partners, tenant isolation.

async function count(ctx: TestContext, table: 'webhooks' | 'webhook_deliveries' | 'webhook_events'): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? 0;
}

describe('webhook registration (§Webhooks)', () => {
  let ctx: TestContext;
  let other: CreatedMerchant;
  let partner: { partnerId: string; apiKey: string };
  let otherPartner: { partnerId: string; apiKey: string };

  beforeAll(async () => {
    ctx = await createTestContext();
    other = await createMerchant(ctx.tdb.db, 'Other merchant');
    partner = await createPartner(ctx.tdb.db, 'Partner');
    otherPartner = await createPartner(ctx.tdb.db, 'Unlinked partner');
    await linkPartner(ctx.tdb.db, partner.partnerId, ctx.merchant.merchantId);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('registers a webhook and shows its two secrets once', async () => {
    const r = await call(ctx, 'POST', '/api/v1/webhooks', {
      url: 'https://hooks.example.com/paylinks',
      eventTypes: ['Authorization', 'Refund'],
      description: 'shop',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ url: 'https://hooks.example.com/paylinks', eventTypes: ['Authorization', 'Refund'], description: 'shop', enabled: true });
    expect(r.body.webhookId).toMatch(/^wh_/);
    expect(r.body.hmacKey).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof r.body.apiKey).toBe('string');
    expect(r.body.responseIdentifier).toBeDefined();

    const read = await call(ctx, 'GET', `/api/v1/webhooks/${String(r.body.webhookId)}`);
    expect(read.status).toBe(200);
    expect(read.body.webhook).toMatchObject({
      webhookId: r.body.webhookId,
      url: 'https://hooks.example.com/paylinks',
      eventTypes: ['Authorization', 'Refund'],
    });
    const list = await call(ctx, 'GET', '/api/v1/webhooks');
    for (const text of [read.res.body, list.res.body]) {
      expect(text).not.toContain(String(r.body.apiKey));
      expect(text).not.toContain(String(r.body.hmacKey));
      expect(text).not.toMatch(/apiKey|hmacKey/);
    }
    const logs = ctx.logs.join('\n');
    expect(logs).not.toContain(String(r.body.apiKey));
    expect(logs).not.toContain(String(r.body.hmacKey));
  });

  it('accepts only an absolute https URL, and writes nothing when it refuses', async () => {
    const before = await count(ctx, 'webhooks');
    for (const url of ['http://hooks.example.com/x', '/relative', 'not a url', 'https://user:pw@hooks.example.com/']) {
      const r = await call(ctx, 'POST', '/api/v1/webhooks', { url });
      expect(r.status, url).toBe(400);
      expect(r.body.code).toBe('VALIDATION_FAILED');
      expect((r.body.errors as { field: string }[])[0]?.field).toBe('url');
    }
    const bad = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://a.example.com', eventTypes: ['Nope'], colour: 'red' });
    expect(bad.status).toBe(400);
    expect((bad.body.errors as { field: string; code: string }[]).map((e) => `${e.field}:${e.code}`).sort()).toEqual([
      'colour:UNKNOWN_FIELD',
      'eventTypes[0]:ENUM',
    ]);
    expect(await count(ctx, 'webhooks')).toBe(before);
  });

  it('matches property names in any case (§Clients in the field)', async () => {
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { URL: 'https://case.example.com/h', EventTypes: ['Capture'] });
    expect(r.status).toBe(200);
    expect(r.body.eventTypes).toEqual(['Capture']);
  });

  it('needs the Webhooks capability, and writes nothing without it', async () => {
    const key = await createKey(asOperator(ctx), { merchantId: ctx.merchant.merchantId }, ['PaymentLinks']);
    const before = await count(ctx, 'webhooks');
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://x.example.com' }, { apiKey: key.apiKey });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('FORBIDDEN');
    expect((await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey: key.apiKey })).status).toBe(403);
    expect((await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { apiKey: key.apiKey })).status).toBe(403);
    expect((await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey: null })).status).toBe(401);
    expect(await count(ctx, 'webhooks')).toBe(before);
  });

  it('updates, rotates and deletes', async () => {
    const wh = await register(ctx, 'https://one.example.com/h');
    const u = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/update`, {
      url: 'https://two.example.com/h',
      eventTypes: ['Refund'],
      description: 'd',
      enabled: false,
    });
    expect(u.status).toBe(200);
    expect(u.body.webhook).toMatchObject({ url: 'https://two.example.com/h', eventTypes: ['Refund'], description: 'd', enabled: false });
    const badUrl = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/update`, { url: 'http://two.example.com/h' });
    expect(badUrl.status).toBe(400);
    expect((await call(ctx, 'GET', `/api/v1/webhooks/${wh.webhookId}`)).body.webhook).toMatchObject({ url: 'https://two.example.com/h' });

    const rot = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/rotate-secrets`);
    expect(rot.status).toBe(200);
    expect(rot.body.webhookId).toBe(wh.webhookId);
    expect(rot.body.hmacKey).toMatch(/^[0-9a-f]{64}$/);
    expect(rot.body.apiKey).not.toBe(wh.apiKey);
    expect(rot.body.hmacKey).not.toBe(wh.hmacKey);

    const del = await call(ctx, 'POST', `/api/v1/webhooks/${wh.webhookId}/delete`);
    expect(del.status).toBe(200);
    expect((await call(ctx, 'GET', `/api/v1/webhooks/${wh.webhookId}`)).status).toBe(404);
    const list = await call(ctx, 'GET', '/api/v1/webhooks', undefined, { query: { PageSize: '100' } });
    expect((list.body.data as { webhookId: string }[]).map((w) => w.webhookId)).not.toContain(wh.webhookId);
  });

  it('takes a max in flight and a rate limit, shows them on reads, and refuses them out of range without writing', async () => {
    const plain = await register(ctx, 'https://limits.example.com/plain');
    const read = await call(ctx, 'GET', `/api/v1/webhooks/${plain.webhookId}`);
    expect(read.body.webhook).toMatchObject({ maxInFlight: ctx.config.webhookMaxInFlightPerEndpoint, rateLimit: null });

    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://limits.example.com/own', maxInFlight: 3, rateLimit: 20 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ maxInFlight: 3, rateLimit: 20 });
    const id = r.body.webhookId as string;
    const list = await call(ctx, 'GET', '/api/v1/webhooks', undefined, { query: { PageSize: '100' } });
    expect((list.body.data as { webhookId: string }[]).find((w) => w.webhookId === id)).toMatchObject({ maxInFlight: 3, rateLimit: 20 });

    const u = await call(ctx, 'POST', `/api/v1/webhooks/${id}/update`, { maxInFlight: 100, rateLimit: null });
    expect(u.status).toBe(200);
    expect(u.body.webhook).toMatchObject({ maxInFlight: 100, rateLimit: null });
    // A field left out keeps its value.
    const kept = await call(ctx, 'POST', `/api/v1/webhooks/${id}/update`, { description: 'x' });
    expect(kept.body.webhook).toMatchObject({ maxInFlight: 100, rateLimit: null });

    const before = await count(ctx, 'webhooks');
    for (const [body, field] of [
      [{ maxInFlight: 0 }, 'maxInFlight'],
      [{ maxInFlight: 101 }, 'maxInFlight'],
      [{ maxInFlight: 2.5 }, 'maxInFlight'],
      [{ rateLimit: 0 }, 'rateLimit'],
      [{ rateLimit: 1001 }, 'rateLimit'],
      [{ rateLimit: 2.5 }, 'rateLimit'],
    ] as const) {
      const bad = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://limits.example.com/bad', ...body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect((bad.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
      const badUpdate = await call(ctx, 'POST', `/api/v1/webhooks/${id}/update`, body);
      expect(badUpdate.status, JSON.stringify(body)).toBe(400);
    }
    expect(await count(ctx, 'webhooks')).toBe(before);
    expect((await call(ctx, 'GET', `/api/v1/webhooks/${id}`)).body.webhook).toMatchObject({ maxInFlight: 100, rateLimit: null, description: 'x' });
  });

  it('pages the list like §Lists: newest first, totalCount, case-insensitive parameters, PageSize at most 100', async () => {
    const fresh = await createMerchant(ctx.tdb.db, 'Pager');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ctx.clock.advance(1000);
      ids.push((await register(ctx, `https://p${i}.example.com/h`, { apiKey: fresh.apiKey })).webhookId);
    }
    const p0 = await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey: fresh.apiKey, query: { page: '0', pagesize: '2' } });
    expect(p0.body.totalCount).toBe(3);
    expect((p0.body.data as { webhookId: string }[]).map((w) => w.webhookId)).toEqual([ids[2], ids[1]]);
    const p1 = await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey: fresh.apiKey, query: { Page: '1', PageSize: '2' } });
    expect((p1.body.data as { webhookId: string }[]).map((w) => w.webhookId)).toEqual([ids[0]]);
    const past = await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey: fresh.apiKey, query: { Page: '9' } });
    expect(past.body).toMatchObject({ data: [], totalCount: 3 });
    expect((await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey: fresh.apiKey, query: { PageSize: '101' } })).status).toBe(400);
    expect((await call(ctx, 'GET', '/api/v1/webhooks', undefined, { apiKey: fresh.apiKey, query: { Page: '-1' } })).status).toBe(400);
  });

  it('returns the first response again for the same Idempotency-Key (§Idempotent creates)', async () => {
    const headers = { 'idempotency-key': 'wh-idem-1' };
    const a = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://idem.example.com/h' }, { headers });
    const b = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://idem.example.com/h' }, { headers });
    expect(b.status).toBe(200);
    expect(b.body.webhookId).toBe(a.body.webhookId);
    const c = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://idem2.example.com/h' }, { headers });
    expect(c.status).toBe(409);
    expect(c.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers a retry under a key kept by an earlier release, with fewer fields, in today’s shape', async () => {
    const headers = { 'idempotency-key': 'wh-idem-old' };
    const a = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://idem-old.example.com/h' }, { headers });
    expect(a.status).toBe(200);
    // As the first releases kept it: the webhook's first fields and its two keys, not sealed.
    const { webhookId, url, eventTypes, description, enabled, createdAt, updatedAt, apiKey, hmacKey } = a.body;
    const old = { webhookId, url, eventTypes, description, enabled, createdAt, updatedAt, apiKey, hmacKey };
    const kept = await ctx.tdb.db.pool.query('UPDATE idempotency_keys SET response_body = $2 WHERE idempotency_key = $1', ['wh-idem-old', JSON.stringify(old)]);
    expect(kept.rowCount).toBe(1);
    const b = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://idem-old.example.com/h' }, { headers });
    expect(b.status).toBe(200);
    const { responseDateTime: _t, responseIdentifier: _i, ...first } = a.body;
    const { responseDateTime: _t2, responseIdentifier: _i2, ...again } = b.body;
    // What the old answer lacks is what the webhook then was: a URL webhook, the default limits, healthy.
    expect(again).toEqual(first);
    expect(again).toMatchObject({ kind: 'url', ordering: 'unordered', rateLimit: null, failedDeliveries: 0, signingSecret: a.body.signingSecret });
  });

  it("keeps every merchant's webhooks to itself: another's is 404 and untouched", async () => {
    const mine = await register(ctx, 'https://mine.example.com/h');
    const as = { apiKey: other.apiKey };
    expect((await call(ctx, 'GET', `/api/v1/webhooks/${mine.webhookId}`, undefined, as)).status).toBe(404);
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${mine.webhookId}/update`, { description: 'hijack', enabled: false }, as)).status).toBe(404);
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${mine.webhookId}/rotate-secrets`, undefined, as)).status).toBe(404);
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${mine.webhookId}/delete`, undefined, as)).status).toBe(404);
    const list = await call(ctx, 'GET', '/api/v1/webhooks', undefined, as);
    expect((list.body.data as { webhookId: string }[]).map((w) => w.webhookId)).not.toContain(mine.webhookId);
    // The same for a partner key (a partner is not the merchant).
    expect((await call(ctx, 'GET', `/api/v1/webhooks/${mine.webhookId}`, undefined, { apiKey: partner.apiKey })).status).toBe(404);
    const still = await call(ctx, 'GET', `/api/v1/webhooks/${mine.webhookId}`);
    expect(still.body.webhook).toMatchObject({ description: '', enabled: true });
  });

  it("fans a merchant's event out to its own webhooks and its linked partners' (interface §6.2)", async () => {
    const m = await createMerchant(ctx.tdb.db, 'Fan-out merchant');
    await linkPartner(ctx.tdb.db, partner.partnerId, m.merchantId);
    const own = await register(ctx, 'https://own.example.com/h', { apiKey: m.apiKey });
    const ofPartner = await register(ctx, 'https://partner.example.com/h', { apiKey: partner.apiKey });
    const partnerRefunds = await register(ctx, 'https://partner-refunds.example.com/h', { apiKey: partner.apiKey, eventTypes: ['Refund'] });
    const unlinked = await register(ctx, 'https://unlinked.example.com/h', { apiKey: otherPartner.apiKey });
    await register(ctx, 'https://other-merchant.example.com/h', { apiKey: other.apiKey });

    const { deliveryIds } = await withTransaction(ctx.tdb.db, (tx) =>
      enqueueEvent(tx, ctx, {
        merchantId: m.merchantId,
        eventType: 'Authorization',
        checkoutReference: null,
        payfacReference: '9000000000000001',
        merchantReference: 'o-1',
        amount: 100,
        currency: 'EUR',
        reason: null,
        success: true,
      }),
    );
    const { rows } = await ctx.tdb.db.pool.query<{ webhook_id: string }>('SELECT webhook_id FROM webhook_deliveries WHERE id = ANY($1)', [deliveryIds]);
    expect(rows.map((r) => r.webhook_id).sort()).toEqual([own.webhookId, ofPartner.webhookId].sort());
    expect(rows.map((r) => r.webhook_id)).not.toContain(partnerRefunds.webhookId);
    expect(rows.map((r) => r.webhook_id)).not.toContain(unlinked.webhookId);

    // Each sees only the delivery to its own webhook.
    const q = { query: { payfacReference: '9000000000000001' } };
    const seenBy = async (apiKey: string) =>
      ((await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { ...q, apiKey })).body.data as { webhookId: string }[]).map((d) => d.webhookId);
    expect(await seenBy(m.apiKey)).toEqual([own.webhookId]);
    expect(await seenBy(partner.apiKey)).toEqual([ofPartner.webhookId]);
    expect(await seenBy(otherPartner.apiKey)).toEqual([]);
    expect(await seenBy(other.apiKey)).toEqual([]);
  });

  it('lets a partner key manage its webhooks but not record sandbox events', async () => {
    const wh = await register(ctx, 'https://partner2.example.com/h', { apiKey: partner.apiKey });
    expect((await call(ctx, 'GET', `/api/v1/webhooks/${wh.webhookId}`, undefined, { apiKey: partner.apiKey })).status).toBe(200);
    const before = await count(ctx, 'webhook_events');
    const r = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Capture', amount: 1, currency: 'EUR' }, { apiKey: partner.apiKey });
    expect(r.status).toBe(403);
    expect(await count(ctx, 'webhook_events')).toBe(before);
  });

  it('does not write an event or deliveries when the caller rolls back (§Events)', async () => {
    await register(ctx, 'https://rollback.example.com/h');
    const events = await count(ctx, 'webhook_events');
    const deliveries = await count(ctx, 'webhook_deliveries');
    await expect(
      withTransaction(ctx.tdb.db, async (tx) => {
        await enqueueEvent(tx, ctx, {
          merchantId: ctx.merchant.merchantId,
          eventType: 'Capture',
          checkoutReference: null,
          payfacReference: '1',
          merchantReference: null,
          amount: 1,
          currency: 'EUR',
          reason: null,
          success: true,
        });
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(await count(ctx, 'webhook_events')).toBe(events);
    expect(await count(ctx, 'webhook_deliveries')).toBe(deliveries);
  });
});

describe('local receivers in development mode', () => {
  let ctx: TestContext;
  let worker: DeliveryWorker;
  let server: Server;
  let received: { path: string; body: string; authorization: string | undefined }[];
  let port: number;
  beforeAll(async () => {
    ctx = await createTestContext({ PAYLINKS_ENV: 'development' });
    worker = testWorker(ctx);
    received = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await worker.stop(5_000);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ctx.close();
  });

  it('accepts plain http on 127.0.0.1 and localhost, and the worker delivers there', async () => {
    const byAddress = await call(ctx, 'POST', '/api/v1/webhooks', { url: `http://127.0.0.1:${port}/by-address` });
    const byName = await call(ctx, 'POST', '/api/v1/webhooks', { url: `http://localhost:${port}/by-name` });
    expect([byAddress.status, byName.status]).toEqual([200, 200]);
    const e = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Authorization', amount: 48900, currency: 'ISK' });
    expect(e.status).toBe(200);
    await worker.settled();
    expect(received.map((r) => r.path).sort()).toEqual(['/by-address', '/by-name']);
    expect(received.find((r) => r.path === '/by-address')?.authorization).toBe(byAddress.body.apiKey);
    const list = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { payfacReference: String(e.body.payfacReference) } });
    expect((list.body.data as { state: string }[]).map((d) => d.state)).toEqual(['Delivered', 'Delivered']);
    // Update to a local http URL works too.
    const moved = await call(ctx, 'POST', `/api/v1/webhooks/${String(byName.body.webhookId)}/update`, { url: `http://[::1]:${port}/v6` });
    expect(moved.status).toBe(200);
  });

  it('still needs https for every other host, with a message that says where http is allowed', async () => {
    for (const url of ['http://hooks.example.com/x', 'http://192.168.1.10/x', 'http://10.0.0.1/x', 'http://localhost.example.com/x']) {
      const r = await call(ctx, 'POST', '/api/v1/webhooks', { url });
      expect(r.status, url).toBe(400);
      expect((r.body.errors as { field: string; code: string; message: string }[])[0]).toMatchObject({
        field: 'url',
        code: 'FORMAT',
        message: 'must be an absolute https URL (http only on localhost or a loopback address)',
      });
    }
  });
});

describe('webhook registration in production mode (§Webhooks address rules)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ PAYLINKS_ENV: 'production', PAYLINKS_SECRET_KEY: 'ab'.repeat(32) });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('refuses loopback, private, link-local and internal addresses, and writes nothing', async () => {
    const before = await count(ctx, 'webhooks');
    for (const url of [
      'https://127.0.0.1/h',
      'https://localhost/h',
      'https://10.0.0.5/h',
      'https://192.168.1.10:8443/h',
      'https://169.254.169.254/latest',
      'https://[::1]/h',
      'https://[fd00::1]/h',
      'https://metadata.google.internal/h',
      'https://[::ffff:127.0.0.1]/h',
    ]) {
      const r = await call(ctx, 'POST', '/api/v1/webhooks', { url });
      expect(r.status, url).toBe(400);
      expect((r.body.errors as { field: string; code: string }[])[0]).toMatchObject({ field: 'url', code: 'ADDRESS_NOT_ALLOWED' });
    }
    expect(await count(ctx, 'webhooks')).toBe(before);
  });

  it('accepts a public address', async () => {
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://93.184.216.34/h' });
    expect(r.status).toBe(200);
    const u = await call(ctx, 'POST', `/api/v1/webhooks/${String(r.body.webhookId)}/update`, { url: 'https://10.1.1.1/h' });
    expect(u.status).toBe(400);
  });

  it('refuses plain http, also on localhost and loopback addresses, at registration and update', async () => {
    const before = await count(ctx, 'webhooks');
    for (const url of ['http://127.0.0.1:9999/h', 'http://localhost:3000/h', 'http://[::1]:3000/h', 'http://93.184.216.34/h']) {
      const r = await call(ctx, 'POST', '/api/v1/webhooks', { url });
      expect(r.status, url).toBe(400);
      expect((r.body.errors as { field: string; code: string; message: string }[])[0]).toMatchObject({
        field: 'url',
        code: 'FORMAT',
        message: 'must be an absolute https URL',
      });
    }
    expect(await count(ctx, 'webhooks')).toBe(before);
  });

  it('has no sandbox in production by default: 404', async () => {
    expect((await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Capture', amount: 1, currency: 'EUR' })).status).toBe(404);
    expect((await call(ctx, 'POST', '/api/v1/sandbox/deliveries/dlv_x/advance')).status).toBe(404);
  });
});
