import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asOperator } from '../helpers/app.js';
import {
  Paylinks,
  PaylinksApiError,
  PaylinksAuthenticationError,
  PaylinksConflictError,
  PaylinksNetworkError,
  PaylinksNotFoundError,
  PaylinksPermissionError,
  PaylinksValidationError,
  type PaymentLinkListEntry,
} from '@paylinks/sdk';
import { createKey } from '../../src/accounts/service.js';
import { refusedPort } from '../webhooks/helpers.js';
import { payByLinkParams, startLiveService, type LiveService } from './helpers.js';
import { rejection } from '../helpers/rejection.js';

// Every SDK method against the real service on a socket , on this run's database kind.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('@paylinks/sdk against the live service', () => {
  let live: LiveService;
  let sdk: Paylinks;

  beforeAll(async () => {
    live = await startLiveService();
    sdk = live.client();
  });
  afterAll(async () => {
    await live.close();
  });

  describe('paymentLinks', () => {
    it('create, get, update and disable a link (4.2–4.5, §Updating a link, §Disabling a link)', async () => {
      const created = await sdk.paymentLinks.create(payByLinkParams(live.ctx));
      expect(created.paymentLinkReference).toEqual(expect.any(String));
      expect(created.url).toBe(`${live.ctx.config.publicBaseUrl}/pay/${created.paymentLinkReference}`);
      expect(created.responseIdentifier).toMatch(UUID);

      const got = await sdk.paymentLinks.get(created.paymentLinkReference);
      expect(got.paymentLink).toMatchObject({
        paymentLinkReference: created.paymentLinkReference,
        amount: 48900,
        currency: 'ISK',
        status: 'Active',
        type: 'PayByLink',
        salesCount: 0,
      });

      const updated = await sdk.paymentLinks.update({ paymentLinkReference: created.paymentLinkReference, description: 'Kaffi og kleina', maxSalesCount: 3 });
      expect(updated.responseIdentifier).toMatch(UUID);
      expect((await sdk.paymentLinks.get(created.paymentLinkReference)).paymentLink).toMatchObject({ description: 'Kaffi og kleina', maxSalesCount: 3 });

      // A read-modify-write of the whole representation is accepted (§Updating a link: unchanged immutable fields).
      const { submissions: _s, ...whole } = (await sdk.paymentLinks.get(created.paymentLinkReference)).paymentLink;
      await sdk.paymentLinks.update({ ...whole, description: 'Whole body' });
      expect((await sdk.paymentLinks.get(created.paymentLinkReference)).paymentLink.description).toBe('Whole body');

      await sdk.paymentLinks.disable(created.paymentLinkReference);
      await sdk.paymentLinks.disable(created.paymentLinkReference); // §Disabling a link: idempotent
      expect((await sdk.paymentLinks.get(created.paymentLinkReference)).paymentLink.status).toBe('Disabled');

      const err = await rejection(sdk.paymentLinks.update({ paymentLinkReference: created.paymentLinkReference, description: 'late' }));
      expect(err).toBeInstanceOf(PaylinksConflictError);
      expect(err).toMatchObject({ status: 409, code: 'INVALID_STATE' });
    });

    it('creates a TokenizeByLink', async () => {
      const r = await sdk.paymentLinks.create({
        type: 'TokenizeByLink',
        terminalIdentifier: live.ctx.merchant.terminalIdentifier,
        amount: 0,
        currency: 'ISK',
        items: [],
        recurringProcessingModel: 'CardOnFile',
      });
      expect((await sdk.paymentLinks.get(r.paymentLinkReference)).paymentLink).toMatchObject({
        type: 'TokenizeByLink',
        amount: 0,
        recurringProcessingModel: 'CardOnFile',
      });
    });

    it('sends an Idempotency-Key on each create: a repeated key gets the first response, another body 409 (§Idempotent creates)', async () => {
      const a = await sdk.paymentLinks.create(payByLinkParams(live.ctx, 1000, 'one'), { idempotencyKey: 'sdk-key-1' });
      const b = await sdk.paymentLinks.create(payByLinkParams(live.ctx, 1000, 'one'), { idempotencyKey: 'sdk-key-1' });
      expect(b.paymentLinkReference).toBe(a.paymentLinkReference);
      const err = await rejection(sdk.paymentLinks.create(payByLinkParams(live.ctx, 2000, 'two'), { idempotencyKey: 'sdk-key-1' }));
      expect(err).toBeInstanceOf(PaylinksConflictError);
      expect(err).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
      // Without a caller's key, each call gets its own: two creates are two links.
      const c = await sdk.paymentLinks.create(payByLinkParams(live.ctx, 1000, 'one'));
      const d = await sdk.paymentLinks.create(payByLinkParams(live.ctx, 1000, 'one'));
      expect(c.paymentLinkReference).not.toBe(d.paymentLinkReference);
    });

    it('lists a page, every page, and every link once (§Lists)', async () => {
      const other = await live.ctx.app.inject({ method: 'GET', url: '/api/v1/paymentlinks', headers: { 'x-api-key': live.ctx.merchant.apiKey } });
      const before = (JSON.parse(other.body) as { totalCount: number }).totalCount;
      const refs: string[] = [];
      for (let i = 0; i < 5; i++) {
        live.ctx.clock.advance(1000); // distinct createdAt, so "newest first" is this order
        refs.push((await sdk.paymentLinks.create(payByLinkParams(live.ctx, 100 * (i + 1), `list ${i}`))).paymentLinkReference);
      }

      const page = await sdk.paymentLinks.list({ page: 0, pageSize: 2 });
      expect(page.data).toHaveLength(2);
      expect(page.totalCount).toBe(before + 5);
      expect(page.data[0]?.paymentLinkReference).toBe(refs[4]); // newest first

      const pages = [];
      for await (const p of sdk.paymentLinks.listPages({ pageSize: 2 })) pages.push(p);
      expect(pages).toHaveLength(Math.ceil((before + 5) / 2));

      const all: PaymentLinkListEntry[] = [];
      for await (const e of sdk.paymentLinks.listAll({ pageSize: 2 })) all.push(e);
      expect(all).toHaveLength(before + 5);
      expect(new Set(all.map((e) => e.paymentLinkReference)).size).toBe(before + 5);
      expect(all.slice(0, 5).map((e) => e.paymentLinkReference)).toEqual([...refs].reverse());
    });

    it('turns §Errors errors into typed errors with every field (400, 404, 401, 403)', async () => {
      const bad = await rejection(sdk.paymentLinks.create({ ...payByLinkParams(live.ctx), terminalIdentifier: 'short', currency: 'XXX' }));
      expect(bad).toBeInstanceOf(PaylinksValidationError);
      expect(bad).toBeInstanceOf(PaylinksApiError);
      const v = bad as PaylinksValidationError;
      expect(v).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(v.responseIdentifier).toMatch(UUID);
      expect(Object.keys(v.fieldErrors).sort()).toEqual(['currency', 'terminalIdentifier']);
      expect(v.errors).toHaveLength(2);

      const missing = await rejection(sdk.paymentLinks.get('no-such-link'));
      expect(missing).toBeInstanceOf(PaylinksNotFoundError);
      expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });

      const unauth = await rejection(live.client({ apiKey: 'pk_wrong' }).paymentLinks.list());
      expect(unauth).toBeInstanceOf(PaylinksAuthenticationError);
      expect(unauth).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });

      const { apiKey } = await createKey(asOperator(live.ctx), { merchantId: live.ctx.merchant.merchantId }, ['Webhooks']);
      const forbidden = await rejection(live.client({ apiKey }).paymentLinks.list());
      expect(forbidden).toBeInstanceOf(PaylinksPermissionError);
      expect(forbidden).toBeInstanceOf(PaylinksAuthenticationError);
      expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    });
  });

  describe('hostedCheckout (§Hosted checkout)', () => {
    it('creates a session and reads its status', async () => {
      const s = await sdk.hostedCheckout.create({
        amount: 129900,
        currency: 'ISK',
        returnUrl: 'https://shop.example/return?order=7',
        reference: 'order-7',
        terminalIdentifier: live.ctx.merchant.terminalIdentifier,
        items: [
          { name: 'Peysa', amount: 139900 },
          { name: 'Afsláttur', amount: -10000 },
        ],
        shopperContact: { email: 'shopper@example.com' },
      });
      expect(s.url).toBe(`${live.ctx.config.publicBaseUrl}/checkout/${s.checkoutReference}`);
      const st = await sdk.hostedCheckout.status(s.checkoutReference);
      expect(st).toMatchObject({ status: 'New', payfacReference: null });
      expect(await rejection(sdk.hostedCheckout.status('no-such-session'))).toBeInstanceOf(PaylinksNotFoundError);
    });

    it('repeats a create under the same Idempotency-Key', async () => {
      const body = {
        amount: 500,
        currency: 'EUR',
        returnUrl: 'https://shop.example/r',
        reference: 'order-8',
        terminalIdentifier: live.ctx.merchant.terminalIdentifier,
      };
      const a = await sdk.hostedCheckout.create(body, { idempotencyKey: 'checkout-8' });
      const b = await sdk.hostedCheckout.create(body, { idempotencyKey: 'checkout-8' });
      expect(b.checkoutReference).toBe(a.checkoutReference);
    });
  });

  describe('webhooks, deliveries and the sandbox (§Webhooks, §Deliveries)', () => {
    it('register, list, get, update, rotate secrets and delete', async () => {
      const wh = await sdk.webhooks.register({ url: 'https://127.0.0.1:9/hooks', eventTypes: ['Authorization'], description: 'shop' });
      expect(wh.webhookId).toMatch(/^wh_/);
      expect(wh.hmacKey).toMatch(/^[0-9a-f]{64}$/);
      expect(wh.apiKey).toEqual(expect.any(String));

      const list = await sdk.webhooks.list({ pageSize: 100 });
      expect(list.data.map((w) => w.webhookId)).toContain(wh.webhookId);
      expect(list.data[0]).not.toHaveProperty('hmacKey');

      const got = await sdk.webhooks.get(wh.webhookId);
      expect(got.webhook).toMatchObject({
        webhookId: wh.webhookId,
        url: 'https://127.0.0.1:9/hooks',
        eventTypes: ['Authorization'],
        description: 'shop',
        enabled: true,
      });

      const up = await sdk.webhooks.update(wh.webhookId, { enabled: false, eventTypes: [] });
      expect(up.webhook).toMatchObject({ enabled: false, eventTypes: [] });

      const rot = await sdk.webhooks.rotateSecrets(wh.webhookId);
      expect(rot.webhookId).toBe(wh.webhookId);
      expect(rot.hmacKey).not.toBe(wh.hmacKey);
      expect(rot.apiKey).not.toBe(wh.apiKey);

      await sdk.webhooks.delete(wh.webhookId);
      expect(await rejection(sdk.webhooks.get(wh.webhookId))).toBeInstanceOf(PaylinksNotFoundError);
    });

    it('triggers a sandbox event, traces its delivery, advances it and redelivers it', async () => {
      // No delivery worker runs here: the delivery stays Pending, which is what the trace shows.
      const wh = await sdk.webhooks.register({ url: 'https://127.0.0.1:9/trace' });
      const ev = await sdk.sandbox.trigger({
        eventType: 'Authorization',
        amount: 48900,
        currency: 'ISK',
        merchantReference: 'order-9',
        additionalData: { cardSummary: '4242' },
      });
      expect(ev.eventId).toEqual(expect.any(String));

      const list = await sdk.deliveries.list({ payfacReference: ev.payfacReference, webhookId: wh.webhookId });
      expect(list.totalCount).toBe(1);
      const d = list.data[0];
      expect(d).toMatchObject({
        webhookId: wh.webhookId,
        eventId: ev.eventId,
        eventType: 'Authorization',
        payfacReference: ev.payfacReference,
        state: 'Pending',
        attemptCount: 0,
      });

      const full = await sdk.deliveries.get(d?.deliveryId ?? '');
      expect(JSON.parse(full.delivery.body)).toMatchObject({
        payfacReference: ev.payfacReference,
        merchantReference: 'order-9',
        amount: '48900',
        success: 'true',
      });
      expect(full.delivery.attempts).toEqual([]);

      expect((await sdk.deliveries.list({ state: 'Delivered', webhookId: wh.webhookId })).totalCount).toBe(0);

      const adv = await sdk.sandbox.advanceDelivery(d?.deliveryId ?? '');
      expect(adv.responseIdentifier).toMatch(UUID);

      const re = await sdk.deliveries.redeliver(d?.deliveryId ?? '');
      expect(re.deliveryId).not.toBe(d?.deliveryId);
      expect((await sdk.deliveries.list({ payfacReference: ev.payfacReference, webhookId: wh.webhookId })).totalCount).toBe(2);
      expect(await rejection(sdk.deliveries.get('dlv_missing'))).toBeInstanceOf(PaylinksNotFoundError);
    });
  });

  describe('the network', () => {
    it('reports a refused connection as a PaylinksNetworkError after the bounded retries', async () => {
      const port = await refusedPort();
      let waits = 0;
      const c = new Paylinks({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', maxRetries: 2, sleep: async () => void waits++ });
      const err = await rejection(c.paymentLinks.list());
      expect(err).toBeInstanceOf(PaylinksNetworkError);
      expect((err as PaylinksNetworkError).timedOut).toBe(false);
      expect(waits).toBe(2);
    });
  });
});
