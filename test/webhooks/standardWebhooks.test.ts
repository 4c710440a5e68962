import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyStandardWebhook, verifyWebhook, WebhookVerificationError } from '@paylinks/sdk';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { eventually, reply, startReceiver, testWorker, type Receiver } from './helpers.js';

// Standard Webhooks headers beside the interface's own: every attempt carries webhook-id (the same on
// every attempt of one delivery), webhook-timestamp and webhook-signature, verified here by the
// reference implementation (the standardwebhooks npm package) with the secret registration answers,
// and by the SDK. The interface's Authorization and hmacSignature stay as they are.

describe('Standard Webhooks headers on deliveries', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await startReceiver();
    worker = testWorker(ctx);
    await worker.start();
  });
  afterAll(async () => {
    await worker.stop(5_000);
    await receiver.close();
    await ctx.close();
  });

  it('are verified by the reference package and by the SDK, keep one webhook-id across retries, and leave the interface headers as they were', async () => {
    let calls = 0;
    receiver.on('/std', (req, res, body) => reply(++calls === 1 ? 500 : 200)(req, res, body));
    const reg = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/std`, eventTypes: ['Capture'] });
    expect(reg.status).toBe(200);
    const { apiKey, hmacKey, signingSecret } = reg.body as { apiKey: string; hmacKey: string; signingSecret: string };
    expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(signingSecret.slice(6), 'base64').toString('hex')).toBe(hmacKey);

    const ev = await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Capture', amount: 1500, currency: 'EUR', merchantReference: 'std-1' });
    await eventually(() => receiver.received.filter((r) => r.path === '/std').length >= 1 || undefined, 'the first attempt');
    await worker.settled();
    // The first attempt failed: make the retry due and let it go.
    const list = await call(ctx, 'GET', '/api/v1/webhooks/deliveries', undefined, { query: { payfacReference: ev.body.payfacReference as string } });
    const deliveryId = (list.body.data as { deliveryId: string }[])[0]?.deliveryId ?? '';
    expect((await call(ctx, 'POST', `/api/v1/sandbox/deliveries/${deliveryId}/advance`)).status).toBe(200);
    await eventually(() => receiver.received.filter((r) => r.path === '/std').length >= 2 || undefined, 'the second attempt');

    const attempts = receiver.received.filter((r) => r.path === '/std');
    for (const a of attempts) {
      const headers = Object.fromEntries(Object.entries(a.headers).map(([k, v]) => [k, String(v)]));
      // The reference implementation: throws unless the signature and timestamp are right.
      expect(new Webhook(signingSecret).verify(a.body, headers)).toMatchObject({ payfacReference: ev.body.payfacReference });
      expect(verifyStandardWebhook({ rawBody: a.body, headers: a.headers, secret: signingSecret })).toMatchObject({ payfacReference: ev.body.payfacReference });
      // The interface's own proofs are unchanged.
      expect(verifyWebhook({ rawBody: a.body, headers: a.headers, apiKey, hmacKey }).payfacReference).toBe(ev.body.payfacReference);
      expect(a.headers['webhook-id']).toBe(deliveryId);
    }
    expect(attempts.map((a) => a.headers['x-webhook-correlationid'])[0]).not.toBe(attempts[1]?.headers['x-webhook-correlationid']);

    // A tampered body, another secret, or a stale timestamp is refused.
    const first = attempts[0];
    if (!first) throw new Error('no attempt');
    expect(() =>
      new Webhook(signingSecret).verify(first.body.replace('1500', '9999'), Object.fromEntries(Object.entries(first.headers).map(([k, v]) => [k, String(v)]))),
    ).toThrow();
    const code = (f: () => unknown) => {
      try {
        f();
        return 'accepted';
      } catch (err) {
        return err instanceof WebhookVerificationError ? err.reason : String(err);
      }
    };
    expect(code(() => verifyStandardWebhook({ rawBody: first.body.replace('1500', '9999'), headers: first.headers, secret: signingSecret }))).toBe(
      'invalid_standard_signature',
    );
    expect(code(() => verifyStandardWebhook({ rawBody: first.body, headers: first.headers, secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}` }))).toBe(
      'invalid_standard_signature',
    );
    expect(
      code(() =>
        verifyStandardWebhook({ rawBody: first.body, headers: first.headers, secret: [`whsec_${Buffer.alloc(32, 1).toString('base64')}`, signingSecret] }),
      ),
    ).toBe('accepted');
    const later = new Date((Number(first.headers['webhook-timestamp']) + 301) * 1000);
    expect(code(() => verifyStandardWebhook({ rawBody: first.body, headers: first.headers, secret: signingSecret, now: later }))).toBe(
      'timestamp_out_of_tolerance',
    );
    expect(code(() => verifyStandardWebhook({ rawBody: first.body, headers: { authorization: apiKey }, secret: signingSecret }))).toBe(
      'missing_standard_headers',
    );
  });

  it('signs with the old key beside the new one for the overlap after a rotation, then with the new one only', async () => {
    receiver.on('/overlap', reply(200));
    const reg = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/overlap`, eventTypes: ['Refund'] });
    const old = reg.body as { webhookId: string; apiKey: string; hmacKey: string; signingSecret: string };
    const rot = await call(ctx, 'POST', `/api/v1/webhooks/${old.webhookId}/rotate-secrets`, undefined, { query: { overlapHours: '2' } });
    expect(rot.status).toBe(200);
    const fresh = rot.body as { apiKey: string; hmacKey: string; signingSecret: string; previousSecretValidUntil: string };
    expect(new Date(fresh.previousSecretValidUntil).getTime()).toBe(ctx.clock.now().getTime() + 2 * 3_600_000);
    const deliveryTo = async (merchantReference: string) => {
      await call(ctx, 'POST', '/api/v1/sandbox/events', { eventType: 'Refund', amount: 100, currency: 'EUR', merchantReference });
      await worker.settled();
      const got = receiver.received.find((r) => r.path === '/overlap' && r.body.includes(merchantReference));
      if (!got) throw new Error(`no delivery for ${merchantReference}`);
      return got;
    };
    const during = await deliveryTo('overlap-1');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = Object.fromEntries(Object.entries(during.headers).map(([k, v]) => [k, String(v)]));
    // A receiver still holding the old secret, and one already holding the new, both accept it.
    expect(() => new Webhook(old.signingSecret).verify(during.body, headers)).not.toThrow();
    expect(() => new Webhook(fresh.signingSecret).verify(during.body, headers)).not.toThrow();
    // The interface's own proofs use the new keys; the SDK takes both while the receiver is updated.
    expect(
      verifyWebhook({ rawBody: during.body, headers: during.headers, apiKey: [old.apiKey, fresh.apiKey], hmacKey: [old.hmacKey, fresh.hmacKey] })
        .merchantReference,
    ).toBe('overlap-1');
    expect(() => verifyWebhook({ rawBody: during.body, headers: during.headers, apiKey: old.apiKey, hmacKey: old.hmacKey })).toThrow(WebhookVerificationError);

    // After the overlap: the new key only; the old secret is refused.
    ctx.clock.advance(2 * 3_600_000 + 1000);
    const after = await deliveryTo('overlap-2');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    const now = ctx.clock.now();
    expect(verifyStandardWebhook({ rawBody: after.body, headers: after.headers, secret: fresh.signingSecret, now }).merchantReference).toBe('overlap-2');
    expect(() => verifyStandardWebhook({ rawBody: after.body, headers: after.headers, secret: old.signingSecret, now })).toThrow(WebhookVerificationError);

    // overlapHours=0: no overlap at all; above 168 is refused.
    const none = await call(ctx, 'POST', `/api/v1/webhooks/${old.webhookId}/rotate-secrets`, undefined, { query: { overlapHours: '0' } });
    expect(none.body.previousSecretValidUntil).toBeNull();
    expect((await call(ctx, 'POST', `/api/v1/webhooks/${old.webhookId}/rotate-secrets`, undefined, { query: { overlapHours: '169' } })).status).toBe(400);
  });

  it('gives the rotated key as the new signing secret', async () => {
    const reg = await call(ctx, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/rot` });
    const rotated = await call(ctx, 'POST', `/api/v1/webhooks/${reg.body.webhookId as string}/rotate-secrets`);
    expect(rotated.body.signingSecret).toBe(`whsec_${Buffer.from(rotated.body.hmacKey as string, 'hex').toString('base64')}`);
    expect(rotated.body.signingSecret).not.toBe(reg.body.signingSecret);
  });
});
