import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Paylinks, WebhookMessage } from '@paylinks/sdk';
import { buildFastifyReceiver } from '../../examples/fastify-receiver.js';
import { buildExpressReceiver, createReceiverServer } from '../../examples/express-receiver.js';
import type { DeliveryWorker } from '../../src/webhooks/delivery/worker.js';
import { testCerts } from '../webhooks/certs.js';
import { eventually, testWorker } from '../webhooks/helpers.js';
import { startLiveService, type LiveService } from './helpers.js';

// The two example receivers of examples/, each run over HTTPS (the test CA's certificate, as in test/webhooks) against the
// service: its delivery worker POSTs real signed deliveries to them; the SDK registers the webhook,
// triggers the sandbox event and reads the delivery trace (interface §5.2, 6; §Webhooks, §Deliveries).

interface RunningReceiver {
  url: string;
  events: WebhookMessage[];
  close(): Promise<void>;
}

type Keys = { apiKey: string; hmacKey: string };

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/paylinks`;
}

const receivers: Record<string, (keys: Keys) => Promise<RunningReceiver>> = {
  Fastify: async (keys) => {
    const events: WebhookMessage[] = [];
    const { key, cert } = testCerts();
    const app = buildFastifyReceiver({ ...keys, tls: { key, cert }, onEvent: (m) => void events.push(m) });
    await app.ready();
    const url = await listening(app.server);
    return { url, events, close: () => app.close() };
  },
  Express: async (keys) => {
    const events: WebhookMessage[] = [];
    const { key, cert } = testCerts();
    const server = createReceiverServer(buildExpressReceiver({ ...keys, onEvent: (m) => void events.push(m) }), { key, cert });
    const url = await listening(server);
    return {
      url,
      events,
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  },
};

describe.each(Object.keys(receivers))('the %s example receiver', (name) => {
  let live: LiveService;
  let sdk: Paylinks;
  let worker: DeliveryWorker;
  let receiver: RunningReceiver;
  let webhookId: string;

  beforeAll(async () => {
    live = await startLiveService();
    sdk = live.client();
    worker = testWorker(live.ctx);
    // The receiver needs the keys the registration returns, and the registration needs the receiver's
    // URL: register on a placeholder, start the receiver with the keys, then point the webhook at it.
    const wh = await sdk.webhooks.register({ url: 'https://127.0.0.1:9/placeholder', description: `${name} example` });
    webhookId = wh.webhookId;
    const start = receivers[name];
    if (!start) throw new Error(name);
    receiver = await start({ apiKey: wh.apiKey, hmacKey: wh.hmacKey });
    await sdk.webhooks.update(webhookId, { url: receiver.url });
  });
  afterAll(async () => {
    await worker.stop(5_000);
    await receiver.close();
    await live.close();
  });

  async function deliveriesOf(payfacReference: string) {
    return (await sdk.deliveries.list({ payfacReference, webhookId })).data;
  }

  it('verifies a signed delivery, hands the event over once and answers 200', async () => {
    const ev = await sdk.sandbox.trigger({
      eventType: 'Authorization',
      amount: 48900,
      currency: 'ISK',
      merchantReference: 'Pöntun-1',
      additionalData: { cardSummary: '4242' },
    });
    await worker.settled();
    const got = await eventually(() => receiver.events.find((e) => e.payfacReference === ev.payfacReference), 'the event at the receiver');
    expect(got).toMatchObject({ checkoutReference: null, merchantReference: 'Pöntun-1', amount: '48900', currency: 'ISK', reason: null, success: 'true' });
    expect(got.additionalData).toMatchObject({ eventType: 'Authorization', cardSummary: '4242' });

    const [d] = await deliveriesOf(ev.payfacReference);
    expect(d).toMatchObject({ state: 'Delivered', attemptCount: 1 });
    const full = await sdk.deliveries.get(d?.deliveryId ?? '');
    expect(full.delivery.attempts[0]).toMatchObject({ responseStatus: 200, errorKind: null });
    expect(JSON.parse(full.delivery.attempts[0]?.responseBody ?? '{}')).toEqual({ received: true, duplicate: false });
  });

  it('answers a redelivery of the same event 200 without handing it over again (interface §6.1)', async () => {
    const ev = await sdk.sandbox.trigger({ eventType: 'Capture', amount: 1000, currency: 'EUR' });
    await worker.settled();
    await eventually(() => receiver.events.some((e) => e.payfacReference === ev.payfacReference), 'the first delivery');
    const [first] = await deliveriesOf(ev.payfacReference);
    const again = await sdk.deliveries.redeliver(first?.deliveryId ?? '');
    await worker.settled();
    const second = await eventually(async () => {
      const d = (await sdk.deliveries.get(again.deliveryId)).delivery;
      return d.state === 'Delivered' ? d : null;
    }, 'the redelivery');
    expect(JSON.parse(second.attempts[0]?.responseBody ?? '{}')).toEqual({ received: true, duplicate: true });
    expect(receiver.events.filter((e) => e.payfacReference === ev.payfacReference)).toHaveLength(1);
  });

  it('refuses a delivery signed with other keys: the attempt fails with 401 and nothing is handed over', async () => {
    // A second webhook to the same URL has its own keys, which this receiver does not know.
    const stranger = await sdk.webhooks.register({ url: receiver.url, eventTypes: ['Refund'] });
    const ev = await sdk.sandbox.trigger({ eventType: 'Refund', amount: 500, currency: 'ISK', additionalData: { originalPayfacReference: 'pf_0' } });
    await worker.settled();
    const d = await eventually(async () => {
      const [x] = (await sdk.deliveries.list({ payfacReference: ev.payfacReference, webhookId: stranger.webhookId })).data;
      return x && x.attemptCount > 0 ? x : null;
    }, 'the stranger delivery attempt');
    const full = await sdk.deliveries.get(d.deliveryId);
    expect(full.delivery).toMatchObject({ state: 'Pending', attemptCount: 1 });
    expect(full.delivery.attempts[0]).toMatchObject({ responseStatus: 401, errorKind: 'status' });
    expect(JSON.parse(full.delivery.attempts[0]?.responseBody ?? '{}')).toEqual({ error: 'invalid_authorization' });
    // The receiver's own webhook got the same event and handed it over once.
    await eventually(() => receiver.events.some((e) => e.payfacReference === ev.payfacReference), 'the own delivery');
    expect(receiver.events.filter((e) => e.payfacReference === ev.payfacReference)).toHaveLength(1);
  });
});
