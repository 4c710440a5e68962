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
  return [m.checkoutReference, m.payfacReference, m.merchantReference, m.amount, m.currency, m.reason, m.success]
    .map((v) => v ?? '')
    .join(':');
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
