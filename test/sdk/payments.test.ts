import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaylinksConflictError, PaylinksNotFoundError, PaylinksValidationError, type Paylinks } from '@paylinks/sdk';
import type { ModificationProcessor } from '../../src/payments/modifications/processor.js';
import { CARD, paidSession, testProcessor, tokenFromLink } from '../modifications/helpers.js';
import { startLiveService, type LiveService } from './helpers.js';
import { rejection } from '../helpers/rejection.js';

// modifications.{capture, refund, reverse} and payments.{chargeToken, disableToken} against the live
// service (§Modifications and saved cards): payments made on the real checkout page, outcomes completed by the modification
// processor, and each outcome traced through the SDK's deliveries.list.

describe('§Modifications and saved cards through @paylinks/sdk', () => {
  let live: LiveService;
  let sdk: Paylinks;
  let processor: ModificationProcessor;
  let webhookId: string;

  beforeAll(async () => {
    live = await startLiveService();
    sdk = live.client();
    processor = testProcessor(live.ctx);
    webhookId = (await sdk.webhooks.register({ url: 'https://127.0.0.1:9/d19' })).webhookId;
  });
  afterAll(async () => {
    await processor.stop();
    await live.close();
  });

  /** The event types delivered for a payfacReference (no worker runs: the deliveries stay Pending). */
  async function eventTypes(payfacReference: string): Promise<string[]> {
    return (await sdk.deliveries.list({ payfacReference, webhookId })).data.map((d) => d.eventType);
  }

  it('captures, refunds and reverses; each answers Received and its outcome arrives as a webhook', async () => {
    const p = await paidSession(live.ctx, { isManualCapture: true });
    const cap = await sdk.modifications.capture({ reference: 'order-17', payfacReference: p.payfacReference, amount: 10000, currency: 'EUR' });
    expect(cap).toMatchObject({ status: 'Received', payfacReference: expect.any(String) });
    expect(cap.payfacReference).not.toBe(p.payfacReference);
    await processor.settled();
    expect(await eventTypes(cap.payfacReference)).toEqual(['Capture']);
    const capBody = JSON.parse(
      (await sdk.deliveries.get((await sdk.deliveries.list({ payfacReference: cap.payfacReference })).data[0]?.deliveryId ?? '')).delivery.body,
    ) as { additionalData: Record<string, string> };
    expect(capBody.additionalData).toMatchObject({ eventType: 'Capture', originalPayfacReference: p.payfacReference });

    const ref = await sdk.modifications.refund({
      reference: 'order-17',
      payfacReference: p.payfacReference,
      amount: 2500,
      currency: 'EUR',
      refundReason: 'CUSTOMER REQUEST',
    });
    expect(ref.status).toBe('Received');
    await processor.settled();
    expect(await eventTypes(ref.payfacReference)).toEqual(['Refund']);

    const rev = await sdk.modifications.reverse({ reference: 'order-17', payfacReference: p.payfacReference });
    expect(rev.status).toBe('Received');
    await processor.settled();
    expect(await eventTypes(rev.payfacReference)).toEqual(['Refund']);

    // After a reversal the payment takes no more modifications (§Errors form, 409).
    const late = await rejection(sdk.modifications.capture({ reference: 'order-17', payfacReference: p.payfacReference, amount: 1, currency: 'EUR' }));
    expect(late).toBeInstanceOf(PaylinksConflictError);
    expect(late).toMatchObject({ code: 'INVALID_STATE' });
  });

  it('a capture after the authorisation expired is a PaylinksConflictError AUTHORISATION_EXPIRED, not retried', async () => {
    const p = await paidSession(live.ctx, { isManualCapture: true });
    live.ctx.clock.advance(7 * 86_400_000);
    const retrying = live.client({ maxRetries: 3, retryBaseDelayMs: 1 });
    const requests = () => live.ctx.logs.filter((l) => l.includes('"url":"/api/v1/modification/capture"')).length;
    const before = requests();
    const late = await rejection(retrying.modifications.capture({ reference: 'order-17', payfacReference: p.payfacReference, amount: 1, currency: 'EUR' }));
    expect(late).toBeInstanceOf(PaylinksConflictError);
    expect(late).toMatchObject({ code: 'AUTHORISATION_EXPIRED', status: 409 });
    expect(requests() - before).toBe(1);
  });

  it('adjusts an authorisation: Received, then an Adjustment webhook; below what is captured is refused on the amount field', async () => {
    const p = await paidSession(live.ctx, { isManualCapture: true });
    const adj = await sdk.modifications.adjust({ reference: 'order-17', payfacReference: p.payfacReference, amount: 20000, currency: 'EUR' });
    expect(adj).toMatchObject({ status: 'Received', payfacReference: expect.any(String) });
    await processor.settled();
    expect(await eventTypes(adj.payfacReference)).toEqual(['Adjustment']);
    const cap = await sdk.modifications.capture({ reference: 'order-17', payfacReference: p.payfacReference, amount: 20000, currency: 'EUR' });
    expect(cap.status).toBe('Received');
    await processor.settled();
    const late = await rejection(sdk.modifications.adjust({ reference: 'order-17', payfacReference: p.payfacReference, amount: 100, currency: 'EUR' }));
    expect(late).toBeInstanceOf(PaylinksConflictError);

    const q = await paidSession(live.ctx, { isManualCapture: true });
    await sdk.modifications.capture({ reference: 'order-17', payfacReference: q.payfacReference, amount: 5000, currency: 'EUR' });
    const below = await rejection(sdk.modifications.adjust({ reference: 'order-17', payfacReference: q.payfacReference, amount: 4999, currency: 'EUR' }));
    expect(below).toBeInstanceOf(PaylinksValidationError);
    expect(Object.keys((below as PaylinksValidationError).fieldErrors)).toEqual(['amount']);
    await processor.settled();
  });

  it('reports capturing more than authorised on the amount field, and an unknown payment as 404', async () => {
    const p = await paidSession(live.ctx, { isManualCapture: true });
    const over = await rejection(sdk.modifications.capture({ reference: 'order-17', payfacReference: p.payfacReference, amount: 999_999, currency: 'EUR' }));
    expect(over).toBeInstanceOf(PaylinksValidationError);
    expect(Object.keys((over as PaylinksValidationError).fieldErrors)).toEqual(['amount']);
    expect(await rejection(sdk.modifications.refund({ reference: 'o', payfacReference: '0000000000000000', amount: 1, currency: 'EUR' }))).toBeInstanceOf(
      PaylinksNotFoundError,
    );
  });

  it('charges a saved token once per Idempotency-Key, disables it, and refuses it afterwards', async () => {
    const tokenValue = await tokenFromLink(live.ctx, 'Subscription', CARD.ok);
    const charge = {
      terminalIdentifier: live.ctx.merchant.terminalIdentifier,
      amount: 4900,
      currency: 'EUR',
      reference: 'subscription-77',
      returnUrl: 'https://shop.example/return',
      channel: 'Web',
      tokenDetails: { tokenValue, recurringProcessingModel: 'Subscription' as const },
    };
    const a = await sdk.payments.chargeToken(charge, { idempotencyKey: 'sub-77-2026-12' });
    expect(a).toMatchObject({ resultCode: 'Authorised', payfacReference: expect.any(String) });
    const again = await sdk.payments.chargeToken(charge, { idempotencyKey: 'sub-77-2026-12' });
    expect(again.payfacReference).toBe(a.payfacReference);
    expect(await eventTypes(a.payfacReference)).toContain('Authorization');

    const b = await sdk.payments.chargeToken(charge);
    expect(b.payfacReference).not.toBe(a.payfacReference);

    expect(await sdk.payments.disableToken(tokenValue)).toMatchObject({ success: true });
    expect(await sdk.payments.disableToken(tokenValue)).toMatchObject({ success: true });
    const refused = await rejection(sdk.payments.chargeToken(charge));
    expect(refused).toBeInstanceOf(PaylinksConflictError);
    expect(refused).toMatchObject({ code: 'INVALID_STATE' });
    expect(await rejection(sdk.payments.disableToken('tok_unknown'))).toBeInstanceOf(PaylinksNotFoundError);
  });
});
