import { randomBytes } from 'node:crypto';

// Webhook secrets (§Webhooks). Unlike API keys they cannot be stored as hashes: the worker must send the
// apiKey and sign with the hmacKey, so they are stored sealed (AES-256-GCM under PAYLINKS_SECRET_KEY:
// the Sealer each process builds, src/sealing.ts, §Hardening).

/** The webhook's Authorization value: a random secret of 32 bytes. */
export function newWebhookApiKey(): string {
  return `whk_${randomBytes(32).toString('base64url')}`;
}

/** 64 hex characters (§Webhooks; always even, §Clients in the field). */
export function newHmacKey(): string {
  return randomBytes(32).toString('hex');
}
