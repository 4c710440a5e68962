import { randomBytes } from 'node:crypto';
import { open, seal } from '../sealing.js';

// Webhook secrets (§Webhooks). Unlike API keys they cannot be stored as hashes: the worker must send the
// apiKey and sign with the hmacKey. seal/open is the seam of encryption at rest: AES-256-GCM under
// PAYLINKS_SECRET_KEY (src/sealing.ts, §Hardening); rows written before it ("v0:", plain) still open.

export function sealSecret(plain: string): string {
  return seal(plain);
}

export function openSecret(sealed: string): string {
  return open(sealed);
}

/** The webhook's Authorization value: a random secret of 32 bytes. */
export function newWebhookApiKey(): string {
  return `whk_${randomBytes(32).toString('base64url')}`;
}

/** 64 hex characters (§Webhooks; always even, §Clients in the field). */
export function newHmacKey(): string {
  return randomBytes(32).toString('hex');
}
