import { disableFailingWebhooks } from '../../src/webhooks/service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { createMerchant, createPartner, linkPartner, type CreatedMerchant } from '../../src/accounts/service.js';
import { hmacSignature } from '../../src/webhooks/delivery/sign.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { register, reply, startReceiver, testWorker, type Receiver } from '../webhooks/helpers.js';
import { portalUser, textOf, type PortalBrowser } from './helpers.js';

// The webhook pages (§Webhooks, §Deliveries) through a browser: every page shows the service's data,
// every form reaches the same service as the API, refusals show the API's errors beside their fields
// and write nothing, another merchant's webhook or delivery is not found, and roles are kept.

async function count(ctx: TestContext, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await ctx.tdb.db.pool.query<{ n: number }>(sql, params);
  return rows[0]?.n ?? 0;
}

const webhooksOf = (ctx: TestContext, merchantId: string) =>
  count(ctx, 'SELECT count(*)::int AS n FROM webhooks WHERE merchant_id = $1 AND deleted_at IS NULL', [merchantId]);
const deliveriesOf = (ctx: TestContext, webhookId: string) =>
  count(ctx, 'SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]);

async function auditOf(ctx: TestContext, action: string, target: string): Promise<{ actor_email: string; details: Record<string, unknown> }[]> {
  const { rows } = await ctx.tdb.db.pool.query<{ actor_email: string; details: Record<string, unknown> }>(
    'SELECT actor_email, details FROM audit_log WHERE action = $1 AND target = $2 ORDER BY id',
    [action, target],
  );
  return rows;
}

/** The error shown beside a field (its `<p class="error" id="…-error">`), as text. */
function errorBeside(html: string, id: string): string {
  const m = new RegExp(`<p class="error" id="${id}-error">([\\s\\S]*?)</p>`).exec(html);
  return m ? textOf(m[1] ?? '') : '';
}

/** The value of a read-only copy field. */
function copyValue(html: string, id: string): string {
  const m = new RegExp(`id="${id}"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*id="${id}"`).exec(html);
  return m?.[1] ?? m?.[2] ?? '';
}

async function apiWebhook(ctx: TestContext, webhookId: string, apiKey?: string): Promise<{ status: number; webhook: Record<string, unknown> }> {
  const r = await call(ctx, 'GET', `/api/v1/webhooks/${webhookId}`, undefined, apiKey ? { apiKey } : {});
  return { status: r.status, webhook: r.body.webhook as Record<string, unknown> };
}

describe('portal webhooks', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let other: CreatedMerchant;
  let owner: { email: string; browser: PortalBrowser };
  let developer: PortalBrowser;
  let staff: PortalBrowser;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    receiver = await startReceiver();
    worker = testWorker(ctx);
    other = await createMerchant(ctx.tdb.db, 'Other merchant');
    owner = await portalUser(ctx, 'owner');
    developer = (await portalUser(ctx, 'developer')).browser;
    staff = (await portalUser(ctx, 'staff')).browser;
  });
  afterAll(async () => {
    await worker.stop(5_000);
    await receiver.close();
    await ctx.close();
  });

  /** Registers through the portal; returns the new webhook's id and the page's secrets. */
  async function registerInPortal(
    b: PortalBrowser,
    fields: Record<string, string | string[]>,
  ): Promise<{ webhookId: string; apiKey: string; hmacKey: string; signingSecret: string }> {
    await b.get('/portal/webhooks/new');
    const res = await b.post('/portal/webhooks', fields);
    expect(res.statusCode, textOf(res.body).slice(0, 400)).toBe(200);
    const webhookId = /\/portal\/webhooks\/(wh_[A-Za-z0-9_-]+)/.exec(res.body)?.[1] ?? '';
    return {
      webhookId,
      apiKey: copyValue(res.body, 'secret-apiKey'),
      hmacKey: copyValue(res.body, 'secret-hmacKey'),
      signingSecret: copyValue(res.body, 'secret-signingSecret'),
    };
  }

  it('registers a webhook and shows its three secrets once, with copy buttons and the shown-once notice', async () => {
    const b = owner.browser;
    const form = await b.get('/portal/webhooks/new');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('name="url"');
    expect(form.body).toContain('name="eventTypes" value="Capture"');
    const before = await webhooksOf(ctx, ctx.merchant.merchantId);
    const res = await b.post('/portal/webhooks', { url: `${receiver.url}/created`, eventTypes: ['Capture', 'Refund'], description: 'Shop backend' });
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    expect(text).toContain('Shown only now');
    expect(text).toContain('docs/webhooks.md');
    const webhookId = /\/portal\/webhooks\/(wh_[A-Za-z0-9_-]+)/.exec(res.body)?.[1] ?? '';
    const hmacKey = copyValue(res.body, 'secret-hmacKey');
    expect(hmacKey).toMatch(/^[0-9a-f]{64}$/);
    expect(copyValue(res.body, 'secret-apiKey')).not.toBe('');
    expect(copyValue(res.body, 'secret-signingSecret')).toMatch(/^whsec_/);
    expect(res.body).toContain('data-copy="secret-hmacKey"');
    expect(await webhooksOf(ctx, ctx.merchant.merchantId)).toBe(before + 1);
    // The API sees the same webhook.
    const api = await apiWebhook(ctx, webhookId);
    expect(api.status).toBe(200);
    expect(api.webhook).toMatchObject({ url: `${receiver.url}/created`, eventTypes: ['Capture', 'Refund'], description: 'Shop backend', enabled: true });
    // Recorded, without a secret; and never shown again.
    const entries = await auditOf(ctx, 'webhook.create', webhookId);
    expect(entries).toHaveLength(1);
    expect(entries[0]?.actor_email).toBe(owner.email);
    expect(JSON.stringify(entries[0]?.details)).not.toContain(hmacKey);
    const page = await b.get(`/portal/webhooks/${webhookId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(hmacKey);
    expect(textOf(page.body)).toContain('Capture, Refund');
    // The shown HMAC key is the one that signs.
    receiver.on('/created', reply(200));
    await b.post(`/portal/webhooks/${webhookId}/test`, { eventType: 'Capture' });
    await worker.settled();
    const got = receiver.received.find((r) => r.path === '/created');
    const { hmacSignature: sig, ...rest } = JSON.parse(got?.body ?? '{}') as Record<string, unknown>;
    expect(sig).toBe(hmacSignature(hmacKey, rest as unknown as Parameters<typeof hmacSignature>[1]));
  });

  it("a refused registration shows the API's errors beside their fields, with status 400, and writes nothing", async () => {
    const b = owner.browser;
    await b.get('/portal/webhooks/new');
    const before = await webhooksOf(ctx, ctx.merchant.merchantId);

    const plain = await b.post('/portal/webhooks', { url: 'http://shop.example/hook', description: 'kept' });
    expect(plain.statusCode).toBe(400);
    expect(errorBeside(plain.body, 'f-url')).toContain('must be an absolute https URL');
    expect(plain.body).toMatch(/id="f-url"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="f-url"/);
    expect(plain.body).toContain('value="kept"');

    const blank = await b.post('/portal/webhooks', { url: '  ' });
    expect(blank.statusCode).toBe(400);
    expect(errorBeside(blank.body, 'f-url')).toBe('is required');

    const bad = await b.post('/portal/webhooks', { url: 'https://shop.example/hook', eventTypes: ['Capture', 'Everything'], description: 'x'.repeat(501) });
    expect(bad.statusCode).toBe(400);
    expect(errorBeside(bad.body, 'f-eventTypes')).toContain('must be one of');
    expect(errorBeside(bad.body, 'f-description')).toBe('must be at most 500 characters');
    // The choice is kept.
    expect(bad.body).toMatch(/value="Capture" checked/);

    expect(await webhooksOf(ctx, ctx.merchant.merchantId)).toBe(before);
  });

  it('the Icelandic page says the errors in Icelandic, beside the same fields', async () => {
    const b = owner.browser;
    await b.post('/portal/account/language', { language: 'is' });
    try {
      await b.get('/portal/webhooks/new');
      const res = await b.post('/portal/webhooks', { url: '' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('lang="is"');
      expect(errorBeside(res.body, 'f-url')).toBe('Nauðsynlegt.');
      expect(textOf(res.body)).toContain('Gerðir atburða');
    } finally {
      await b.post('/portal/account/language', { language: 'en' });
    }
  });

  it("lists the merchant's own webhooks only: not another merchant's, not a partner's", async () => {
    const mine = await register(ctx, 'https://mine.example/hook');
    const theirs = await register(ctx, 'https://theirs.example/hook', { apiKey: other.apiKey });
    const partner = await createPartner(ctx.tdb.db, 'Partner');
    await linkPartner(ctx.tdb.db, partner.partnerId, ctx.merchant.merchantId);
    const partners = await register(ctx, 'https://partner.example/hook', { apiKey: partner.apiKey });
    const list = await developer.get('/portal/webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(mine.webhookId);
    expect(list.body).toContain('https://mine.example/hook');
    expect(list.body).not.toContain(theirs.webhookId);
    expect(list.body).not.toContain(partners.webhookId);
    expect((await developer.get(`/portal/webhooks/${partners.webhookId}`)).statusCode).toBe(404);
    expect((await developer.get(`/portal/webhooks/${theirs.webhookId}`)).statusCode).toBe(404);
  });

  it('edits a webhook; a refused edit shows the error beside the URL and changes nothing', async () => {
    const b = developer;
    const { webhookId } = await registerInPortal(b, { url: 'https://edit.example/one', eventTypes: ['Capture'], description: 'before' });
    const form = await b.get(`/portal/webhooks/${webhookId}/edit`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('value="https://edit.example/one"');
    expect(form.body).toMatch(/value="Capture" checked/);

    const refused = await b.post(`/portal/webhooks/${webhookId}/edit`, { url: 'ftp://edit.example/two', description: 'after' });
    expect(refused.statusCode).toBe(400);
    expect(errorBeside(refused.body, 'f-url')).toContain('https');
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ url: 'https://edit.example/one', description: 'before', eventTypes: ['Capture'] });

    // No box ticked: every event type.
    const saved = await b.post(`/portal/webhooks/${webhookId}/edit`, { url: 'https://edit.example/two', description: 'after' });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/portal/webhooks/${webhookId}?done=saved`);
    const page = await b.follow(saved);
    expect(textOf(page.body)).toContain('Saved.');
    expect(textOf(page.body)).toContain('All event types');
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ url: 'https://edit.example/two', description: 'after', eventTypes: [] });
    expect(await auditOf(ctx, 'webhook.update', webhookId)).toHaveLength(1);
  });

  it("sets the deliveries at once and per second; out of range is the API's error beside the field", async () => {
    const b = developer;
    const { webhookId } = await registerInPortal(b, { url: 'https://limits.example/one', eventTypes: ['Capture'], description: 'limits' });
    const form = await b.get(`/portal/webhooks/${webhookId}/edit`);
    expect(form.body).toMatch(/name="maxInFlight"[^>]*value="10"|value="10"[^>]*name="maxInFlight"/);

    const refused = await b.post(`/portal/webhooks/${webhookId}/edit`, {
      url: 'https://limits.example/one',
      description: 'limits',
      maxInFlight: '101',
      rateLimit: 'fast',
    });
    expect(refused.statusCode).toBe(400);
    expect(errorBeside(refused.body, 'f-maxInFlight')).not.toBe('');
    expect(errorBeside(refused.body, 'f-rateLimit')).not.toBe('');
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ maxInFlight: 10, rateLimit: null });

    const saved = await b.post(`/portal/webhooks/${webhookId}/edit`, {
      url: 'https://limits.example/one',
      description: 'limits',
      maxInFlight: '4',
      rateLimit: '25',
    });
    expect(saved.statusCode).toBe(303);
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ maxInFlight: 4, rateLimit: 25 });
    const page = textOf((await b.follow(saved)).body);
    expect(page).toContain('Deliveries at once');
    expect(page).toContain('25 per second');

    // A blank rate limit removes it.
    await b.post(`/portal/webhooks/${webhookId}/edit`, { url: 'https://limits.example/one', description: 'limits', maxInFlight: '4', rateLimit: '' });
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ maxInFlight: 4, rateLimit: null });
  });

  it('sets the order of deliveries: registered in order, shown on its page, chosen again in the edit form; an unknown order is refused beside the field', async () => {
    const b = developer;
    const { webhookId } = await registerInPortal(b, { url: 'https://ordered.example/one', eventTypes: ['Capture'], description: 'ordered', ordering: 'fifo' });
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ ordering: 'fifo' });
    const page = textOf((await b.get(`/portal/webhooks/${webhookId}`)).body);
    expect(page).toContain('Order In order, one at a time');
    // One at a time, as the page says: not the limit an unordered webhook would have.
    expect(page).toContain('Deliveries at once 1 ');
    const form = await b.get(`/portal/webhooks/${webhookId}/edit`);
    expect(form.body).toMatch(/<option[^>]*value="fifo"[^>]*selected/);
    expect(textOf(form.body)).toContain('a slow receiver gets one request at a time');

    const refused = await b.post(`/portal/webhooks/${webhookId}/edit`, { url: 'https://ordered.example/one', description: 'ordered', ordering: 'sorted' });
    expect(refused.statusCode).toBe(400);
    expect(errorBeside(refused.body, 'f-ordering')).not.toBe('');
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ ordering: 'fifo' });

    const saved = await b.post(`/portal/webhooks/${webhookId}/edit`, { url: 'https://ordered.example/one', description: 'ordered', ordering: 'unordered' });
    expect(saved.statusCode).toBe(303);
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ ordering: 'unordered' });
    const unordered = textOf((await b.follow(saved)).body);
    expect(unordered).toContain('Order Any order, several at once');
    expect(unordered).toMatch(/Deliveries at once (?!1 )\d+/);
    // A new webhook's form offers the default, unordered.
    expect((await b.get('/portal/webhooks/new')).body).toMatch(/<option[^>]*value="unordered"[^>]*selected/);
  });

  it('an in-order webhook: the deliveries behind the first say what they wait behind, in the list and on their page', async () => {
    const b = developer;
    const { webhookId } = await registerInPortal(b, { url: 'https://queue.example/one', eventTypes: ['Refund'], description: 'queue', ordering: 'fifo' });
    for (let i = 0; i < 3; i++) {
      const ev = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Refund', amount: 100 + i, currency: 'EUR' });
      expect(ev.status).toBe(200);
    }
    const listed = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { webhookId } });
    const all = listed.body.data as { deliveryId: string; waitingBehind: string | null }[];
    // Made in one moment of the test's clock: the head is the one that waits for none.
    const head = all.find((d) => d.waitingBehind === null);
    const last = all.find((d) => d.waitingBehind !== null);
    expect(all.filter((d) => d.waitingBehind === head?.deliveryId)).toHaveLength(2);
    const list = textOf((await b.get(`/portal/webhooks/${webhookId}/deliveries`)).body);
    expect(list.match(/Waiting behind dlv_/g)).toHaveLength(2);
    expect(list).toContain(`Waiting behind ${head?.deliveryId ?? ''}`);
    const one = await b.get(`/portal/webhooks/${webhookId}/deliveries/${last?.deliveryId ?? ''}`);
    expect(textOf(one.body)).toContain(`Waiting behind ${head?.deliveryId ?? ''} This webhook delivers in order`);
    expect(one.body).toContain(`/deliveries/${head?.deliveryId ?? ''}"`);
  });

  it("shows a failing webhook's health, and why the worker disabled it", async () => {
    const b = developer;
    const { webhookId } = await registerInPortal(b, { url: 'https://failing.example/hook', eventTypes: ['Capture'], description: 'failing' });
    expect(textOf((await b.get(`/portal/webhooks/${webhookId}`)).body)).toContain('Last delivered Never');
    // Its deliveries have failed for six days (set directly: the delivery tests make it happen).
    const since = new Date(ctx.clock.now().getTime() - 6 * 86_400_000);
    await ctx.tdb.db.pool.query('UPDATE webhooks SET failing_since = $2, failed_deliveries = 3 WHERE id = $1', [webhookId, since]);
    const failing = textOf((await b.get(`/portal/webhooks/${webhookId}`)).body);
    expect(failing).toContain('Failing since');
    expect(failing).toContain('3 deliveries failed since the last success');
    expect(await disableFailingWebhooks({ db: ctx.tdb.db, clock: ctx.clock, sealer: ctx.sealer }, 5)).toContain(webhookId);
    const page = textOf((await b.get(`/portal/webhooks/${webhookId}`)).body);
    expect(page).toContain('Disabled automatically on');
    expect(page).toContain('EndpointDisabled');
    // Enabling from the portal starts its health afresh.
    await b.post(`/portal/webhooks/${webhookId}/enable`, {});
    expect((await apiWebhook(ctx, webhookId)).webhook).toMatchObject({ enabled: true, failingSince: null, failedDeliveries: 0, disabledReason: null });
  });

  it('disables and enables a webhook', async () => {
    const b = owner.browser;
    const { webhookId } = await register(ctx, 'https://toggle.example/hook');
    await b.get(`/portal/webhooks/${webhookId}`);
    const off = await b.post(`/portal/webhooks/${webhookId}/disable`, {});
    expect(off.statusCode).toBe(303);
    const page = await b.follow(off);
    expect(textOf(page.body)).toContain('The webhook is disabled');
    expect(page.body).toContain(`action="/portal/webhooks/${webhookId}/enable"`);
    expect((await apiWebhook(ctx, webhookId)).webhook.enabled).toBe(false);
    const on = await b.post(`/portal/webhooks/${webhookId}/enable`, {});
    expect(on.statusCode).toBe(303);
    expect((await apiWebhook(ctx, webhookId)).webhook.enabled).toBe(true);
    expect(await auditOf(ctx, 'webhook.disable', webhookId)).toHaveLength(1);
    expect(await auditOf(ctx, 'webhook.enable', webhookId)).toHaveLength(1);
  });

  it('rotates the secrets after a confirmation with the overlap, shows the new ones once and the overlap on the webhook', async () => {
    const b = owner.browser;
    receiver.on('/rotated', reply(200));
    const first = await registerInPortal(b, { url: `${receiver.url}/rotated`, eventTypes: ['Adjustment'] });
    const confirm = await b.get(`/portal/webhooks/${first.webhookId}/rotate`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('name="overlapHours"');
    expect(confirm.body).toContain('value="24"');

    for (const [value, message] of [
      ['soon', 'must be an integer'],
      ['500', 'must be from 0 to 168'],
    ] as const) {
      const refused = await b.post(`/portal/webhooks/${first.webhookId}/rotate`, { overlapHours: value });
      expect(refused.statusCode).toBe(400);
      expect(errorBeside(refused.body, 'f-overlapHours')).toBe(message);
    }
    expect(await auditOf(ctx, 'webhook.rotate', first.webhookId)).toHaveLength(0);

    const res = await b.post(`/portal/webhooks/${first.webhookId}/rotate`, { overlapHours: '12' });
    expect(res.statusCode).toBe(200);
    const hmacKey = copyValue(res.body, 'secret-hmacKey');
    expect(hmacKey).toMatch(/^[0-9a-f]{64}$/);
    expect(hmacKey).not.toBe(first.hmacKey);
    expect(textOf(res.body)).toContain('keeps signing beside the new one until');
    const page = await b.get(`/portal/webhooks/${first.webhookId}`);
    expect(textOf(page.body)).toContain('Previous signing key valid until');
    expect(page.body).toContain(`datetime="${new Date(ctx.clock.now().getTime() + 12 * 3_600_000).toISOString()}"`);
    const entries = await auditOf(ctx, 'webhook.rotate', first.webhookId);
    expect(entries).toHaveLength(1);
    expect(entries[0]?.details).toMatchObject({ overlapHours: 12 });
    expect(JSON.stringify(entries)).not.toContain(hmacKey);

    // The new key signs.
    await b.post(`/portal/webhooks/${first.webhookId}/test`, { eventType: 'Adjustment' });
    await worker.settled();
    const got = receiver.received.filter((r) => r.path === '/rotated').at(-1);
    const { hmacSignature: sig, ...rest } = JSON.parse(got?.body ?? '{}') as Record<string, unknown>;
    expect(sig).toBe(hmacSignature(hmacKey, rest as unknown as Parameters<typeof hmacSignature>[1]));

    // Without overlap the webhook's page shows none.
    await b.get(`/portal/webhooks/${first.webhookId}/rotate`);
    const none = await b.post(`/portal/webhooks/${first.webhookId}/rotate`, { overlapHours: '0' });
    expect(textOf(none.body)).toContain('No overlap');
    expect(textOf((await b.get(`/portal/webhooks/${first.webhookId}`)).body)).not.toContain('Previous signing key valid until');
  });

  it('deletes a webhook after a confirmation page that works without a script', async () => {
    const b = owner.browser;
    const { webhookId } = await register(ctx, 'https://delete.example/hook');
    const confirm = await b.get(`/portal/webhooks/${webhookId}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toMatch(new RegExp(`<form method="post" action="/portal/webhooks/${webhookId}/delete" data-confirm="[^"]+"`));
    const res = await b.post(`/portal/webhooks/${webhookId}/delete`, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/webhooks?done=deleted');
    expect(textOf((await b.follow(res)).body)).toContain('The webhook is deleted');
    expect((await apiWebhook(ctx, webhookId)).status).toBe(404);
    expect(await auditOf(ctx, 'webhook.delete', webhookId)).toHaveLength(1);
  });

  it('shows the deliveries of a webhook and every attempt of one, from a real delivery; redelivers as a new delivery', async () => {
    const b = developer;
    receiver.on('/trace-ok', reply(200, 'thanks'));
    receiver.on('/trace-bad', reply(500, 'receiver broke'));
    const ok = await registerInPortal(b, { url: `${receiver.url}/trace-ok`, eventTypes: ['Refund'] });
    const bad = await registerInPortal(b, { url: `${receiver.url}/trace-bad`, eventTypes: ['Refund'] });

    const detail = await b.get(`/portal/webhooks/${ok.webhookId}`);
    expect(detail.body).toContain(`action="/portal/webhooks/${ok.webhookId}/test"`);
    const tested = await b.post(`/portal/webhooks/${ok.webhookId}/test`, { eventType: 'Refund' });
    expect(tested.statusCode).toBe(303);
    expect(tested.headers.location).toBe(`/portal/webhooks/${ok.webhookId}/deliveries?done=tested`);
    await worker.settled();

    const list = await b.follow(tested);
    expect(list.statusCode).toBe(200);
    expect(textOf(list.body)).toContain('A test event was made');
    const deliveryId = /\/deliveries\/(dlv_[A-Za-z0-9_-]+)/.exec(list.body)?.[1] ?? '';
    expect(deliveryId).not.toBe('');
    expect(textOf(list.body)).toContain('Delivered');
    // The test event is the sandbox's event, recorded as the API's is: by its payment reference.
    const { rows: made } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM webhook_deliveries WHERE id = $1', [
      deliveryId,
    ]);
    const test = await auditOf(ctx, 'sandbox.event', made[0]?.payfac_reference ?? '');
    expect(test).toEqual([expect.objectContaining({ details: expect.objectContaining({ eventType: 'Refund' }) })]);

    const page = await b.get(`/portal/webhooks/${ok.webhookId}/deliveries/${deliveryId}`);
    expect(page.statusCode).toBe(200);
    const received = receiver.received.filter((r) => r.path === '/trace-ok');
    expect(received).toHaveLength(1);
    const text = textOf(page.body);
    expect(text).toContain('Attempt 1');
    expect(text).toContain(String(received[0]?.headers['x-webhook-correlationid']));
    expect(page.body).toMatch(/<pre class="body"[^>]*>thanks<\/pre>/);
    expect(page.body).toContain(received[0]?.body.replace(/"/g, '&quot;').slice(0, 40));
    expect(text).toMatch(/Duration \d+ ms/);

    // The same event reached the other Refund webhook, whose receiver fails.
    await b.get(`/portal/webhooks/${bad.webhookId}/deliveries`);
    const failedId = /\/deliveries\/(dlv_[A-Za-z0-9_-]+)/.exec(b.html)?.[1] ?? '';
    const failed = await b.get(`/portal/webhooks/${bad.webhookId}/deliveries/${failedId}`);
    expect(textOf(failed.body)).toContain('Answer other than 200');
    expect(failed.body).toMatch(/<pre class="body"[^>]*>receiver broke<\/pre>/);
    expect(textOf(failed.body)).toContain('HTTP status 500');

    // A delivery is shown only under its own webhook.
    expect((await b.get(`/portal/webhooks/${bad.webhookId}/deliveries/${deliveryId}`)).statusCode).toBe(404);

    const before = await deliveriesOf(ctx, ok.webhookId);
    await b.get(`/portal/webhooks/${ok.webhookId}/deliveries/${deliveryId}`);
    const again = await b.post(`/portal/webhooks/${ok.webhookId}/deliveries/${deliveryId}/redeliver`, {});
    expect(again.statusCode).toBe(303);
    const newId = /\/deliveries\/(dlv_[A-Za-z0-9_-]+)\?done=redelivered$/.exec(String(again.headers.location))?.[1] ?? '';
    expect(newId).not.toBe(deliveryId);
    expect(await deliveriesOf(ctx, ok.webhookId)).toBe(before + 1);
    await worker.settled();
    const newPage = await b.follow(again);
    expect(textOf(newPage.body)).toContain('This is a new delivery of the same event');
    expect(textOf(newPage.body)).toContain('Attempt 1');
    expect(await auditOf(ctx, 'delivery.redeliver', deliveryId)).toHaveLength(1);

    // The state filter.
    const onlyFailed = await b.get(`/portal/webhooks/${ok.webhookId}/deliveries?state=Failed`);
    expect(onlyFailed.body).not.toContain(deliveryId);
    expect(textOf(onlyFailed.body)).toContain('No deliveries match');
    const onlyDelivered = await b.get(`/portal/webhooks/${ok.webhookId}/deliveries?state=Delivered`);
    expect(onlyDelivered.body).toContain(deliveryId);
    expect(onlyDelivered.body).toContain(newId);
  });

  it('refuses a test event of a type the webhook does not take, beside the field, and makes none', async () => {
    const b = owner.browser;
    const { webhookId } = await registerInPortal(b, { url: 'https://types.example/hook', eventTypes: ['Refund'] });
    const events = await count(ctx, 'SELECT count(*)::int AS n FROM webhook_events');
    for (const eventType of ['Capture', 'Nope']) {
      const res = await b.post(`/portal/webhooks/${webhookId}/test`, { eventType });
      expect(res.statusCode).toBe(400);
      expect(errorBeside(res.body, 'f-eventType')).toContain('must be one of');
    }
    expect(await count(ctx, 'SELECT count(*)::int AS n FROM webhook_events')).toBe(events);
  });

  it('queues the failed deliveries of a window again; a refused window shows its errors beside the fields', async () => {
    const b = owner.browser;
    const { webhookId } = await registerInPortal(b, { url: 'https://recover.example/hook', eventTypes: ['Adjustment'] });
    const since = new Date(ctx.clock.now().getTime() - 3_600_000).toISOString().slice(0, 16);
    // Pending until a worker runs; disabling the webhook ends it as Failed.
    await b.post(`/portal/webhooks/${webhookId}/test`, { eventType: 'Adjustment' });
    await b.post(`/portal/webhooks/${webhookId}/disable`, {});
    expect(await count(ctx, "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND state = 'Failed'", [webhookId])).toBe(1);

    await b.get(`/portal/webhooks/${webhookId}/deliveries`);
    const disabled = await b.post(`/portal/webhooks/${webhookId}/recover`, { since });
    expect(disabled.statusCode).toBe(409);
    expect(textOf(disabled.body)).toContain('The webhook is disabled');
    await b.post(`/portal/webhooks/${webhookId}/enable`, {});

    const blank = await b.post(`/portal/webhooks/${webhookId}/recover`, { since: '', until: '' });
    expect(blank.statusCode).toBe(400);
    expect(errorBeside(blank.body, 'f-since')).toBe('is required');
    const backwards = await b.post(`/portal/webhooks/${webhookId}/recover`, { since, until: '2000-01-01T00:00' });
    expect(backwards.statusCode).toBe(400);
    expect(errorBeside(backwards.body, 'f-until')).toBe('must be after since');
    const garbled = await b.post(`/portal/webhooks/${webhookId}/recover`, { since: 'yesterday' });
    expect(garbled.statusCode).toBe(400);
    expect(errorBeside(garbled.body, 'f-since')).toContain('date-time');
    expect(await deliveriesOf(ctx, webhookId)).toBe(1);

    const res = await b.post(`/portal/webhooks/${webhookId}/recover`, { since });
    expect(res.statusCode).toBe(303);
    expect(textOf((await b.follow(res)).body)).toContain('1 failed deliveries were queued again');
    expect(await deliveriesOf(ctx, webhookId)).toBe(2);
    const repeated = await b.post(`/portal/webhooks/${webhookId}/recover`, { since });
    expect(textOf((await b.follow(repeated)).body)).toContain('This window was queued before (1)');
    expect(await deliveriesOf(ctx, webhookId)).toBe(2);
    // Asking again for the same window queued nothing, and records nothing.
    expect((await auditOf(ctx, 'webhook.recover', webhookId)).map((e) => e.details.requeued)).toEqual([1]);
  });

  it('a redelivery to a disabled webhook is refused with 409 and makes nothing', async () => {
    const b = owner.browser;
    const { webhookId } = await registerInPortal(b, { url: 'https://off.example/hook', eventTypes: ['Adjustment'] });
    await b.post(`/portal/webhooks/${webhookId}/test`, { eventType: 'Adjustment' });
    const deliveryId = /\/deliveries\/(dlv_[A-Za-z0-9_-]+)/.exec((await b.get(`/portal/webhooks/${webhookId}/deliveries`)).body)?.[1] ?? '';
    await b.post(`/portal/webhooks/${webhookId}/disable`, {});
    const res = await b.post(`/portal/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, {});
    expect(res.statusCode).toBe(409);
    expect(textOf(res.body)).toContain('Enable it first');
    expect(await deliveriesOf(ctx, webhookId)).toBe(1);
  });

  it("another merchant's webhook and delivery are not found on every page and action, and nothing of theirs changes", async () => {
    receiver.on('/theirs', reply(200));
    const theirs = await register(ctx, `${receiver.url}/theirs`, { apiKey: other.apiKey });
    const ev = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Capture', amount: 100, currency: 'EUR' }, { apiKey: other.apiKey });
    expect(ev.status).toBe(200);
    const { rows } = await ctx.tdb.db.pool.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [theirs.webhookId]);
    const theirDelivery = rows[0]?.id ?? '';
    const mine = await register(ctx, 'https://mine-too.example/hook');
    const b = owner.browser;
    await b.get('/portal/webhooks');
    const w = `/portal/webhooks/${theirs.webhookId}`;
    for (const path of [
      w,
      `${w}/edit`,
      `${w}/rotate`,
      `${w}/delete`,
      `${w}/deliveries`,
      `${w}/deliveries/${theirDelivery}`,
      `/portal/webhooks/${mine.webhookId}/deliveries/${theirDelivery}`,
    ]) {
      expect((await b.get(path)).statusCode, path).toBe(404);
    }
    const before = { webhook: (await apiWebhook(ctx, theirs.webhookId, other.apiKey)).webhook, deliveries: await deliveriesOf(ctx, theirs.webhookId) };
    for (const [path, fields] of [
      [`${w}/edit`, { url: 'https://stolen.example/hook', description: 'stolen' }],
      [`${w}/disable`, {}],
      [`${w}/rotate`, { overlapHours: '0' }],
      [`${w}/delete`, {}],
      [`${w}/test`, { eventType: 'Capture' }],
      [`${w}/recover`, { since: '2000-01-01T00:00' }],
      [`${w}/deliveries/${theirDelivery}/redeliver`, {}],
      [`/portal/webhooks/${mine.webhookId}/deliveries/${theirDelivery}/redeliver`, {}],
    ] as const) {
      expect((await b.post(path, fields)).statusCode, path).toBe(404);
    }
    expect((await apiWebhook(ctx, theirs.webhookId, other.apiKey)).webhook).toEqual(before.webhook);
    expect(await deliveriesOf(ctx, theirs.webhookId)).toBe(before.deliveries);
    // Its own merchant's log has the API's entry of its making; the portal wrote none.
    expect(await count(ctx, 'SELECT count(*)::int AS n FROM audit_log WHERE target = $1 AND actor_key_id IS NULL', [theirs.webhookId])).toBe(0);
  });

  it('staff may neither see nor change webhooks (403, nothing written); the navigation does not offer them', async () => {
    const { webhookId } = await register(ctx, 'https://staff.example/hook');
    const home = await staff.get('/portal');
    expect(home.body).not.toContain('href="/portal/webhooks"');
    for (const path of ['/portal/webhooks', '/portal/webhooks/new', `/portal/webhooks/${webhookId}`, `/portal/webhooks/${webhookId}/deliveries`]) {
      expect((await staff.get(path)).statusCode, path).toBe(403);
    }
    const before = await webhooksOf(ctx, ctx.merchant.merchantId);
    expect((await staff.post('/portal/webhooks', { url: 'https://staff.example/new' })).statusCode).toBe(403);
    expect((await staff.post(`/portal/webhooks/${webhookId}/disable`, {})).statusCode).toBe(403);
    expect((await staff.post(`/portal/webhooks/${webhookId}/delete`, {})).statusCode).toBe(403);
    expect(await webhooksOf(ctx, ctx.merchant.merchantId)).toBe(before);
    expect((await apiWebhook(ctx, webhookId)).webhook.enabled).toBe(true);
  });
});

describe('portal webhooks without the sandbox', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn', PAYLINKS_SANDBOX: 'false' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('shows no test button, and the test route answers 404 and makes no event', async () => {
    const { browser } = await portalUser(ctx, 'owner');
    const { webhookId } = await register(ctx, 'https://nosandbox.example/hook');
    const page = await browser.get(`/portal/webhooks/${webhookId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('/test"');
    expect((await browser.get(`/portal/webhooks/${webhookId}/deliveries`)).body).not.toContain('/test"');
    const res = await browser.post(`/portal/webhooks/${webhookId}/test`, { eventType: 'Capture' });
    expect(res.statusCode).toBe(404);
    expect(await count(ctx, 'SELECT count(*)::int AS n FROM webhook_events')).toBe(0);
  });
});
