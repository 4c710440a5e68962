import { describe, expect, it } from 'vitest';
import { loadHmacVectors } from '../helpers/vectors.js';
import { computeSignature, signaturePayload, verifyWebhook, WebhookVerificationError, type SignedFields, type WebhookMessage } from '@paylinks/sdk';

// The receiver's checks of interface §5.2 in @paylinks/sdk, against every vector of the shared
// fixture (copied into test/fixtures; test/unit/vectorsCopy.test.ts keeps the copy equal to it) and against tampering.

const vectors = loadHmacVectors();

const PROVIDER_KEY = '4eab969bd65a39c17c906dfcef1fe69d481716b0845a6c0892284cf9c06e4314';
const API_KEY = 'whk_live_3b1f0e';

/** A delivery as the service sends it: the seven values, the signature, additionalData. */
function delivery(message: SignedFields, hmacKey: string, extra: Record<string, unknown> = {}): { rawBody: string; headers: Record<string, string> } {
  const body = { ...message, hmacSignature: computeSignature(hmacKey, message), additionalData: { eventType: 'Authorization' }, ...extra };
  return {
    rawBody: JSON.stringify(body),
    headers: { 'content-type': 'application/json; charset=utf-8', authorization: API_KEY, 'x-webhook-correlationid': '3f0c' },
  };
}

function failure(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err;
    throw err;
  }
  throw new Error('expected a WebhookVerificationError');
}

const provider = vectors.find((v) => v.key === PROVIDER_KEY);
const base: SignedFields = provider?.message ?? {
  checkoutReference: null,
  payfacReference: '1',
  merchantReference: null,
  amount: '1',
  currency: 'ISK',
  reason: null,
  success: 'true',
};

describe('computeSignature (interface §5.2)', () => {
  it("matches the provider's published example", () => {
    expect(provider?.hmacSignature).toBe('oH4Sgo4cZ/O8489HQU7TbcvohJkH4eHbz50Q3G+VXfk=');
    expect(computeSignature(PROVIDER_KEY, base)).toBe('oH4Sgo4cZ/O8489HQU7TbcvohJkH4eHbz50Q3G+VXfk=');
    expect(vectors.length).toBeGreaterThanOrEqual(6);
  });

  for (const v of vectors) {
    it(`matches the vector: ${v.name}`, () => {
      expect(signaturePayload(v.message)).toBe(v.payload);
      expect(computeSignature(v.key, v.message)).toBe(v.hmacSignature);
      const d = delivery(v.message, v.key);
      expect(verifyWebhook({ ...d, apiKey: API_KEY, hmacKey: v.key })).toMatchObject({ ...v.message, hmacSignature: v.hmacSignature });
    });
  }

  it('appends one 0 to an odd-length key', () => {
    const m: SignedFields = {
      checkoutReference: null,
      payfacReference: '1',
      merchantReference: null,
      amount: '100',
      currency: 'EUR',
      reason: null,
      success: 'true',
    };
    expect(computeSignature('abc', m)).toBe(computeSignature('abc0', m));
    expect(computeSignature('abc', m)).toBe('JwdMzaXRp3Xpp1ERObKkSQM/itceNL8i9CSiPDOTkAI=');
    expect(computeSignature('abc', m)).not.toBe(computeSignature('0abc', m));
    expect(verifyWebhook({ ...delivery(m, 'abc0'), apiKey: API_KEY, hmacKey: 'abc' }).payfacReference).toBe('1');
  });

  it('signs null as the empty string, and an absent nullable field is null', () => {
    const m: SignedFields = {
      checkoutReference: null,
      payfacReference: '42',
      merchantReference: null,
      amount: '5',
      currency: 'ISK',
      reason: null,
      success: 'true',
    };
    expect(signaturePayload(m)).toBe(':42::5:ISK::true');
    expect(signaturePayload({ ...m, checkoutReference: '', merchantReference: '', reason: '' })).toBe(signaturePayload(m));
    const { rawBody, headers } = delivery(m, 'ff');
    const { checkoutReference: _c, reason: _r, ...withoutNulls } = JSON.parse(rawBody) as Record<string, unknown>;
    const got = verifyWebhook({ rawBody: JSON.stringify(withoutNulls), headers, apiKey: API_KEY, hmacKey: 'ff' });
    expect(got).toMatchObject({ checkoutReference: null, merchantReference: null, reason: null });
  });

  it('refuses a key that is not hexadecimal', () => {
    expect(() => computeSignature('xyz', base)).toThrow(TypeError);
  });
});

describe('verifyWebhook', () => {
  const key = PROVIDER_KEY;

  it('returns the typed message for a genuine delivery, from a string or from bytes', () => {
    const d = delivery(base, key, { additionalData: { eventType: 'Capture', originalPayfacReference: '21135253155' } });
    const m: WebhookMessage = verifyWebhook({ ...d, apiKey: API_KEY, hmacKey: key });
    expect(m).toMatchObject({ payfacReference: '21135253156', merchantReference: '9990QQAZ1221', amount: '48900', currency: 'ISK', success: 'true' });
    expect(m.additionalData?.eventType).toBe('Capture');
    expect(m.additionalData?.originalPayfacReference).toBe('21135253155');
    expect(verifyWebhook({ rawBody: Buffer.from(d.rawBody, 'utf8'), headers: d.headers, apiKey: API_KEY, hmacKey: key }).payfacReference).toBe('21135253156');
    expect(verifyWebhook({ rawBody: new TextEncoder().encode(d.rawBody), headers: new Headers(d.headers), apiKey: API_KEY, hmacKey: key }).amount).toBe(
      '48900',
    );
  });

  it('reads the Authorization header in any case, and only the raw key (no Bearer)', () => {
    const d = delivery(base, key);
    expect(() => verifyWebhook({ rawBody: d.rawBody, headers: { Authorization: API_KEY }, apiKey: API_KEY, hmacKey: key })).not.toThrow();
    expect(failure(() => verifyWebhook({ rawBody: d.rawBody, headers: { authorization: `Bearer ${API_KEY}` }, apiKey: API_KEY, hmacKey: key })).reason).toBe(
      'invalid_authorization',
    );
  });

  it('says which check failed: missing or wrong Authorization', () => {
    const d = delivery(base, key);
    expect(failure(() => verifyWebhook({ rawBody: d.rawBody, headers: {}, apiKey: API_KEY, hmacKey: key })).reason).toBe('missing_authorization');
    expect(failure(() => verifyWebhook({ rawBody: d.rawBody, headers: { authorization: '' }, apiKey: API_KEY, hmacKey: key })).reason).toBe(
      'missing_authorization',
    );
    expect(failure(() => verifyWebhook({ ...d, apiKey: 'whk_other', hmacKey: key })).reason).toBe('invalid_authorization');
    expect(failure(() => verifyWebhook({ ...d, apiKey: `${API_KEY}x`, hmacKey: key })).reason).toBe('invalid_authorization');
  });

  it('rejects the wrong HMAC key', () => {
    const d = delivery(base, key);
    const e = failure(() => verifyWebhook({ ...d, apiKey: API_KEY, hmacKey: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff' }));
    expect(e.reason).toBe('invalid_signature');
    expect(e).toBeInstanceOf(WebhookVerificationError);
  });

  const tampered: [keyof SignedFields, string | null][] = [
    ['checkoutReference', 'cs_other'],
    ['payfacReference', '21135253157'],
    ['merchantReference', '9990QQAZ1222'],
    ['amount', '48901'],
    ['currency', 'EUR'],
    ['reason', 'Refused'],
    ['success', 'false'],
  ];
  for (const [field, value] of tampered) {
    it(`rejects a tampered ${field}`, () => {
      const d = delivery(base, key);
      const body = { ...(JSON.parse(d.rawBody) as Record<string, unknown>), [field]: value };
      expect(failure(() => verifyWebhook({ rawBody: JSON.stringify(body), headers: d.headers, apiKey: API_KEY, hmacKey: key })).reason).toBe(
        'invalid_signature',
      );
    });
  }

  it('rejects two signed values swapped, and a changed signature', () => {
    const m: SignedFields = { ...base, checkoutReference: 'a', merchantReference: 'b' };
    const d = delivery(m, key);
    const body = JSON.parse(d.rawBody) as Record<string, unknown>;
    const swapped = { ...body, checkoutReference: 'b', merchantReference: 'a' };
    expect(failure(() => verifyWebhook({ rawBody: JSON.stringify(swapped), headers: d.headers, apiKey: API_KEY, hmacKey: key })).reason).toBe(
      'invalid_signature',
    );
    const sig = body.hmacSignature as string;
    const other = { ...body, hmacSignature: `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}` };
    expect(failure(() => verifyWebhook({ rawBody: JSON.stringify(other), headers: d.headers, apiKey: API_KEY, hmacKey: key })).reason).toBe(
      'invalid_signature',
    );
  });

  it('accepts changes outside the seven values (additionalData is not signed, 5.2)', () => {
    const d = delivery(base, key);
    const body = { ...(JSON.parse(d.rawBody) as Record<string, unknown>), additionalData: { eventType: 'Refund' } };
    expect(verifyWebhook({ rawBody: JSON.stringify(body), headers: d.headers, apiKey: API_KEY, hmacKey: key }).additionalData?.eventType).toBe('Refund');
  });

  it('says the body is malformed: not JSON, not an object, a field missing or of the wrong type', () => {
    const d = delivery(base, key);
    const body = JSON.parse(d.rawBody) as Record<string, unknown>;
    const bad = [
      'not json',
      '[]',
      'null',
      JSON.stringify({ ...body, hmacSignature: undefined }),
      JSON.stringify({ ...body, amount: 48900 }),
      JSON.stringify({ ...body, success: true }),
      JSON.stringify({ ...body, reason: 5 }),
      JSON.stringify({ ...body, additionalData: { eventType: 1 } }),
      JSON.stringify({ ...body, payfacReference: undefined }),
    ];
    for (const rawBody of bad) {
      const e = failure(() => verifyWebhook({ rawBody, headers: d.headers, apiKey: API_KEY, hmacKey: key }));
      expect(e.reason, rawBody).toBe('malformed_body');
    }
  });

  it('checks the Authorization header before it reads the body', () => {
    expect(failure(() => verifyWebhook({ rawBody: 'not json', headers: { authorization: 'nope' }, apiKey: API_KEY, hmacKey: key })).reason).toBe(
      'invalid_authorization',
    );
  });
});
