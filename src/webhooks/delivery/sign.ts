import { createHmac, createSecretKey, type Hmac, type KeyObject } from 'node:crypto';

// The body signature of interface §5.2. Pure and dependency-free so the SDK can reuse it verbatim.
//
// Keys reach node:crypto as hex text with its encoding, or as a KeyObject, never as a Buffer: for a
// Buffer key Node 24's createHmac first asks whether it is a KeyObject or a CryptoKey by throwing and
// catching an error each time, about 11 µs a signature against 2 µs for a string or a KeyObject (Node
// 22 and 26 take all three alike; docs/performance.md, "On the maintained Node lines").

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

/** The key's hex text as it is decoded: an odd length gets one "0" appended first (5.2). */
function evenHex(hexKey: string): string {
  const even = hexKey.length % 2 === 1 ? `${hexKey}0` : hexKey;
  if (!/^[0-9a-fA-F]*$/.test(even)) throw new Error('the HMAC key must be hexadecimal');
  return even;
}

/** Key bytes: hex, two characters per byte; an odd length gets one "0" appended first (5.2). */
export function hmacKeyBytes(hexKey: string): Buffer {
  return Buffer.from(evenHex(hexKey), 'hex');
}

/** The key as a KeyObject, for a caller that signs with it many times (the worker keeps one per webhook). */
export function hmacSecretKey(hexKey: string): KeyObject {
  return createSecretKey(hmacKeyBytes(hexKey));
}

/** An HMAC-SHA256 under a key given as its hex text or as a KeyObject. */
function hmacOf(key: string | KeyObject): Hmac {
  return typeof key === 'string' ? createHmac('sha256', evenHex(key), { encoding: 'hex' }) : createHmac('sha256', key);
}

/** base64(HMAC-SHA256(key, UTF-8 payload)), standard alphabet with padding. */
export function hmacSignature(hexKey: string, m: SignedFields): string {
  return hmacOf(hexKey).update(signaturePayload(m), 'utf8').digest('base64');
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
 * Each key is its hex text, or a KeyObject of its bytes (hmacSecretKey), as the worker keeps them per webhook.
 */
export function standardWebhookHeaders(
  hexKey: string | KeyObject,
  deliveryId: string,
  sentAt: Date,
  body: string | Buffer,
  previousHexKey: string | KeyObject | null = null,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const sign = (key: string | KeyObject) => `v1,${hmacOf(key).update(`${deliveryId}.${timestamp}.`, 'utf8').update(body).digest('base64')}`;
  const signatures = previousHexKey === null ? sign(hexKey) : `${sign(hexKey)} ${sign(previousHexKey)}`;
  return { 'webhook-id': deliveryId, 'webhook-timestamp': timestamp, 'webhook-signature': signatures };
}
