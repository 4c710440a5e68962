import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadHmacVectors } from '../helpers/vectors.js';
import {
  hmacKeyBytes,
  hmacSecretKey,
  hmacSignature,
  signaturePayload,
  signingSecretOf,
  standardWebhookHeaders,
  type SignedFields,
} from '../../src/webhooks/delivery/sign.js';
import { buildBody, toMessage } from '../../src/webhooks/events.js';

// interface §5.2, checked against every vector of the shared fixture (copied into test/fixtures; test/unit/vectorsCopy.test.ts keeps the copy equal to it).
const vectors = loadHmacVectors();

describe('hmacSignature (interface §5.2)', () => {
  it('has the provider vector among the fixtures', () => {
    const provider = vectors.find((v) => v.key === '4eab969bd65a39c17c906dfcef1fe69d481716b0845a6c0892284cf9c06e4314');
    expect(provider?.hmacSignature).toBe('oH4Sgo4cZ/O8489HQU7TbcvohJkH4eHbz50Q3G+VXfk=');
    expect(vectors.length).toBeGreaterThanOrEqual(6);
  });

  for (const v of vectors) {
    it(`matches the vector: ${v.name}`, () => {
      expect(signaturePayload(v.message)).toBe(v.payload);
      expect(hmacSignature(v.key, v.message)).toBe(v.hmacSignature);
    });
  }

  it('appends one 0 to an odd-length key before hex decoding', () => {
    expect(hmacKeyBytes('abc').equals(Buffer.from([0xab, 0xc0]))).toBe(true);
    const m: SignedFields = {
      checkoutReference: null,
      payfacReference: '1',
      merchantReference: null,
      amount: '100',
      currency: 'EUR',
      reason: null,
      success: 'true',
    };
    expect(hmacSignature('abc', m)).toBe(hmacSignature('abc0', m));
    expect(hmacSignature('abc', m)).toBe('JwdMzaXRp3Xpp1ERObKkSQM/itceNL8i9CSiPDOTkAI=');
  });

  it('signs the order and values of the seven fields only', () => {
    const m: SignedFields = {
      checkoutReference: 'a',
      payfacReference: 'b',
      merchantReference: 'c',
      amount: '1',
      currency: 'ISK',
      reason: null,
      success: 'true',
    };
    const swapped = { ...m, checkoutReference: 'c', merchantReference: 'a' };
    expect(hmacSignature('00', m)).not.toBe(hmacSignature('00', swapped));
  });
});

describe('standardWebhookHeaders', () => {
  // Now: the reference library refuses a timestamp more than five minutes from its own clock.
  const sentAt = new Date();
  const body = Buffer.from('{"payfacReference":"21135253156","amount":"48900"}', 'utf8');

  // The worker signs with a KeyObject kept per webhook, the listen hub with the key's hex text: both,
  // for an even and an odd key, must give the signature the reference library verifies.
  for (const hex of ['4eab969bd65a39c17c906dfcef1fe69d481716b0845a6c0892284cf9c06e4314', 'abc']) {
    it(`signs alike under the hex text and the KeyObject of a ${hex.length}-character key`, () => {
      const fromText = standardWebhookHeaders(hex, 'dlv_1', sentAt, body);
      expect(standardWebhookHeaders(hmacSecretKey(hex), 'dlv_1', sentAt, body)).toEqual(fromText);
      expect(new Webhook(signingSecretOf(hex)).verify(body.toString('utf8'), fromText)).toEqual(JSON.parse(body.toString('utf8')));
    });
  }

  it('signs under both keys while a rotation overlaps, the new one first', () => {
    const [next, previous] = ['0a'.repeat(32), '0b'.repeat(32)];
    const both = standardWebhookHeaders(hmacSecretKey(next), 'dlv_1', sentAt, body, hmacSecretKey(previous))['webhook-signature'];
    expect(both).toBe(
      `${standardWebhookHeaders(next, 'dlv_1', sentAt, body)['webhook-signature']} ${standardWebhookHeaders(previous, 'dlv_1', sentAt, body)['webhook-signature']}`,
    );
  });
});

describe('the delivery body (interface §2.8, §Events)', () => {
  it('carries amount and success as strings, nulls as null, and a signature over the seven values', () => {
    const key = '4eab969bd65a39c17c906dfcef1fe69d481716b0845a6c0892284cf9c06e4314';
    const body = JSON.parse(
      buildBody(
        toMessage({
          merchantId: 'mch_1',
          eventType: 'Authorization',
          checkoutReference: null,
          payfacReference: '21135253156',
          merchantReference: '9990QQAZ1221',
          amount: 48900,
          currency: 'ISK',
          reason: null,
          success: true,
          additionalData: { cardSummary: '4242' },
        }),
        key,
      ),
    ) as Record<string, unknown>;
    expect(body).toEqual({
      checkoutReference: null,
      payfacReference: '21135253156',
      merchantReference: '9990QQAZ1221',
      amount: '48900',
      currency: 'ISK',
      reason: null,
      success: 'true',
      hmacSignature: 'oH4Sgo4cZ/O8489HQU7TbcvohJkH4eHbz50Q3G+VXfk=',
      additionalData: { cardSummary: '4242', eventType: 'Authorization' },
    });
  });

  it('writes success "false" for a failed outcome', () => {
    const m = toMessage({
      merchantId: 'm',
      eventType: 'Refund',
      checkoutReference: 'cs_1',
      payfacReference: '1',
      merchantReference: null,
      amount: 0,
      currency: 'EUR',
      reason: 'Refused',
      success: false,
    });
    expect(m.success).toBe('false');
    expect(m.amount).toBe('0');
  });
});
