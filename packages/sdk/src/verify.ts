import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { PaylinksError } from './errors.js';
import type { SignedFields, WebhookAdditionalData, WebhookMessage } from './types.js';

// The receiver's two checks of the webhook signature rule: the Authorization header (the webhook's API key,
// raw, no Bearer) proves the caller; hmacSignature over the seven values proves the body. Both
// comparisons are constant-time (docs/style.md, Sign the bytes that are sent).

export type WebhookVerificationFailure =
  /** No Authorization header. */
  | 'missing_authorization'
  /** An Authorization header that is not the webhook's API key. */
  | 'invalid_authorization'
  /** Not JSON, not an object, or a field of the webhook message missing or of the wrong type. */
  | 'malformed_body'
  /** hmacSignature does not match the seven values under the HMAC key. */
  | 'invalid_signature'
  /** A Standard Webhooks header (webhook-id, webhook-timestamp, webhook-signature) is missing. */
  | 'missing_standard_headers'
  /** webhook-timestamp is further from now than the tolerance: a replay, or a clock far off. */
  | 'timestamp_out_of_tolerance'
  /** No v1 signature in webhook-signature matches under the secret(s). */
  | 'invalid_standard_signature';

export class WebhookVerificationError extends PaylinksError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Node's IncomingHttpHeaders (Fastify, Express, node:http) or a fetch `Headers`. */
export type HeadersLike = Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifyWebhookInput {
  /** The request body exactly as received (string or bytes), before any JSON parsing. */
  rawBody: string | Uint8Array;
  headers: HeadersLike;
  /** The webhook's apiKey from register/rotateSecrets; during a rotation, the new and the old one. */
  apiKey: string | readonly string[];
  /** The webhook's hmacKey from register/rotateSecrets (hex); during a rotation, the new and the old one. */
  hmacKey: string | readonly string[];
}

/** The string that is signed: the seven values in order, null as "", joined by ":" (5.2). */
export function signaturePayload(m: SignedFields): string {
  return [m.checkoutReference, m.payfacReference, m.merchantReference, m.amount, m.currency, m.reason, m.success].map((v) => v ?? '').join(':');
}

/**
 * The key's hex text as it is decoded, two characters per byte: an odd length gets one "0" appended
 * first (5.2). Keys go to node:crypto as text with their encoding, not as a Buffer: for a Buffer key
 * Node 24's createHmac throws and catches an error each time to learn it is no KeyObject, several
 * times the cost of the signature itself.
 */
function keyHex(hmacKey: string): string {
  const even = hmacKey.length % 2 === 1 ? `${hmacKey}0` : hmacKey;
  if (!/^[0-9a-fA-F]*$/.test(even)) throw new TypeError('the HMAC key must be a hexadecimal string');
  return even;
}

/**
 * base64(HMAC-SHA256(hex-decoded key, UTF-8 payload)) of the webhook signature rule. For a merchant's own
 * tests: sign a message the way the service does.
 */
export function computeSignature(hmacKey: string, message: SignedFields): string {
  return createHmac('sha256', keyHex(hmacKey), { encoding: 'hex' }).update(signaturePayload(message), 'utf8').digest('base64');
}

/** Constant-time string equality: equal-length digests, so neither length nor content leaks. */
function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const h = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(h).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : h[key];
  return Array.isArray(v) ? v[0] : v;
}

/** The body as the typed message of the webhook message, or the first reason it is not one. */
function parseMessage(rawBody: string | Uint8Array): WebhookMessage | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8'));
  } catch {
    return 'the body is not JSON';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'the body is not a JSON object';
  const o = parsed as Record<string, unknown>;
  for (const f of ['payfacReference', 'amount', 'currency', 'success', 'hmacSignature'] as const) {
    if (typeof o[f] !== 'string') return `${f} must be a string`;
  }
  for (const f of ['checkoutReference', 'merchantReference', 'reason'] as const) {
    if (o[f] !== undefined && o[f] !== null && typeof o[f] !== 'string') return `${f} must be a string or null`;
  }
  const ad = o.additionalData;
  if (ad !== undefined && ad !== null) {
    if (typeof ad !== 'object' || Array.isArray(ad)) return 'additionalData must be an object';
    for (const [k, v] of Object.entries(ad)) if (typeof v !== 'string') return `additionalData.${k} must be a string`;
  }
  return {
    ...o,
    checkoutReference: (o.checkoutReference as string | null | undefined) ?? null,
    payfacReference: o.payfacReference as string,
    merchantReference: (o.merchantReference as string | null | undefined) ?? null,
    amount: o.amount as string,
    currency: o.currency as string,
    reason: (o.reason as string | null | undefined) ?? null,
    success: o.success as string,
    hmacSignature: o.hmacSignature as string,
    ...(ad !== undefined && ad !== null ? { additionalData: ad as WebhookAdditionalData } : {}),
  };
}

/**
 * Performs both checks of the webhook signature rule and returns the typed message, or throws
 * WebhookVerificationError whose `reason` names the check that failed. Answer 200 only after this
 * returns; answer 401 (or any non-200) when it throws.
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookMessage {
  const auth = header(input.headers, 'authorization');
  if (auth === undefined || auth === '') throw new WebhookVerificationError('missing_authorization', 'the request has no Authorization header');
  const apiKeys = typeof input.apiKey === 'string' ? [input.apiKey] : input.apiKey;
  if (!apiKeys.some((k) => safeEqual(auth, k)))
    throw new WebhookVerificationError('invalid_authorization', "the Authorization header is not the webhook's API key");
  const message = parseMessage(input.rawBody);
  if (typeof message === 'string') throw new WebhookVerificationError('malformed_body', message);
  const hmacKeys = typeof input.hmacKey === 'string' ? [input.hmacKey] : input.hmacKey;
  if (!hmacKeys.some((k) => safeEqual(computeSignature(k, message), message.hmacSignature))) {
    throw new WebhookVerificationError('invalid_signature', 'hmacSignature does not match the message under the HMAC key');
  }
  return message;
}

export interface VerifyStandardWebhookInput {
  /** The request body exactly as received (string or bytes), before any JSON parsing. */
  rawBody: string | Uint8Array;
  headers: HeadersLike;
  /** The webhook's signingSecret (whsec_...); several while an old secret is still accepted. */
  secret: string | readonly string[];
  /** How far webhook-timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, for tests (default the system clock). */
  now?: Date;
}

/** The key of a Standard Webhooks secret (`whsec_` and base64): its base64 text, decoded by createHmac (see keyHex). */
function standardKey(secret: string): string {
  return secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
}

/**
 * Verifies the Standard Webhooks headers the service sends beside its own (webhook-id,
 * webhook-timestamp, webhook-signature: v1 HMAC-SHA256 over "{id}.{timestamp}.{body}") and returns the
 * typed message. A timestamp outside the tolerance is refused, so a captured delivery cannot be
 * replayed later; remember webhook-id (the same on every attempt of one delivery) to drop repeats.
 */
export function verifyStandardWebhook(input: VerifyStandardWebhookInput): WebhookMessage {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing_standard_headers', 'webhook-id, webhook-timestamp and webhook-signature are needed');
  const seconds = Number(timestamp);
  const now = (input.now ?? new Date()).getTime() / 1000;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now - seconds) > (input.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', 'webhook-timestamp is too far from now');
  }
  const body = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : Buffer.from(input.rawBody);
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  const given = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3));
  const ok = secrets.some((secret) => {
    const expected = createHmac('sha256', standardKey(secret), { encoding: 'base64' }).update(`${id}.${timestamp}.`, 'utf8').update(body).digest('base64');
    return given.some((g) => safeEqual(g, expected));
  });
  if (!ok) throw new WebhookVerificationError('invalid_standard_signature', 'no webhook-signature matches under the signing secret');
  const message = parseMessage(input.rawBody);
  if (typeof message === 'string') throw new WebhookVerificationError('malformed_body', message);
  return message;
}
