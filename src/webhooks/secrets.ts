import { randomBytes } from 'node:crypto';

// Webhook secrets (D13). Unlike API keys they cannot be stored as hashes: the worker must send the
// apiKey and sign with the hmacKey. seal/open is the one seam where encryption at rest will go (a
// later issue); today a sealed value is the plain value behind a version prefix, so encrypted values
// ("v1:...") can be introduced later and old rows still read.

const PLAIN = 'v0:';

export function sealSecret(plain: string): string {
  return `${PLAIN}${plain}`;
}

export function openSecret(sealed: string): string {
  if (sealed.startsWith(PLAIN)) return sealed.slice(PLAIN.length);
  throw new Error('unknown sealed secret format');
}

/** The webhook's Authorization value: a random secret of 32 bytes. */
export function newWebhookApiKey(): string {
  return `whk_${randomBytes(32).toString('base64url')}`;
}

/** 64 hex characters (D13; always even, D18). */
export function newHmacKey(): string {
  return randomBytes(32).toString('hex');
}
