import { createHmac } from 'node:crypto';

// The body signature of interface §5.2. Pure and dependency-free so the SDK can reuse it verbatim.

/** The seven signed values of a webhook message, in the order 5.2 fixes. */
export interface SignedFields {
  checkoutReference: string | null;
  payfacReference: string;
  merchantReference: string | null;
  amount: string;
  currency: string;
  reason: string | null;
  success: string;
}

/** The joined string that is signed: the seven values in order, null as "", joined by ":". */
export function signaturePayload(m: SignedFields): string {
  return [m.checkoutReference, m.payfacReference, m.merchantReference, m.amount, m.currency, m.reason, m.success].map((v) => v ?? '').join(':');
}

/** Key bytes: hex, two characters per byte; an odd length gets one "0" appended first (5.2). */
export function hmacKeyBytes(hexKey: string): Buffer {
  const even = hexKey.length % 2 === 1 ? `${hexKey}0` : hexKey;
  if (!/^[0-9a-fA-F]*$/.test(even)) throw new Error('the HMAC key must be hexadecimal');
  return Buffer.from(even, 'hex');
}

/** base64(HMAC-SHA256(key, UTF-8 payload)), standard alphabet with padding. */
export function hmacSignature(hexKey: string, m: SignedFields): string {
  return createHmac('sha256', hmacKeyBytes(hexKey)).update(signaturePayload(m), 'utf8').digest('base64');
}

// Standard Webhooks (standardwebhooks.com) headers, sent beside the interface's own so that receivers
// using a Standard Webhooks library can verify a delivery and reject replays:
//   webhook-id         the delivery's id: the same on every attempt of one delivery
//   webhook-timestamp  seconds since the epoch when the attempt was sent
//   webhook-signature  v1,<base64 HMAC-SHA256 over "{id}.{timestamp}.{body}">
// The key is the webhook's hmacKey (its bytes), handed to merchants as the Standard Webhooks secret
// whsec_<base64 of those bytes> at registration and rotation; the interface's hmacSignature and
// Authorization are unchanged.

/** The webhook's Standard Webhooks secret: its HMAC key's bytes, base64, after "whsec_". */
export function signingSecretOf(hexKey: string): string {
  return `whsec_${hmacKeyBytes(hexKey).toString('base64')}`;
}

/**
 * The three Standard Webhooks headers of one attempt. While a rotation's overlap lasts, the signature
 * header carries one signature under each key, the new one first (space-separated, as the standard has it).
 * Each key is its hex text, or its bytes as hmacKeyBytes answers them.
 */
export function standardWebhookHeaders(
  hexKey: string | Buffer,
  deliveryId: string,
  sentAt: Date,
  body: string | Buffer,
  previousHexKey: string | Buffer | null = null,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  // A key may be given as its bytes already (hmacKeyBytes), as the worker keeps them per webhook.
  const sign = (key: string | Buffer) =>
    `v1,${createHmac('sha256', typeof key === 'string' ? hmacKeyBytes(key) : key)
      .update(`${deliveryId}.${timestamp}.`, 'utf8')
      .update(body)
      .digest('base64')}`;
  const signatures = previousHexKey === null ? sign(hexKey) : `${sign(hexKey)} ${sign(previousHexKey)}`;
  return { 'webhook-id': deliveryId, 'webhook-timestamp': timestamp, 'webhook-signature': signatures };
}
