import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes } from 'node:crypto';

// Encryption at rest of the secrets the service must be able to read back (§Hardening): each webhook's
// apiKey and hmacKey (the worker sends and signs with them) and the responses stored for idempotent
// replay (a webhook registration's response carries both). API keys are not here: they are stored
// only as hashes (§Authentication).
//
// AES-256-GCM under PAYLINKS_SECRET_KEY (config.ts). A sealed value is `v1:{keyId}:{base64(iv|tag|ct)}`:
// the key id (first 8 hex characters of the key's SHA-256) tells "wrong key" from "tampered", and is
// where a key rotation would pick the key from. `v0:` values (plain text, written before encryption
// existed) still open, so old rows keep working.
//
// The sealer is a dependency like the clock: each process builds one from its configuration
// (createSealer(config.secretKey), in the composition root) and hands it to what seals or opens.

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealingError extends Error {
  override readonly name = 'SealingError';
}

export interface Sealer {
  readonly keyId: string;
  seal(plain: string): string;
  open(sealed: string): string;
}

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function createSealer(key: Buffer): Sealer {
  if (key.length !== 32) throw new SealingError('the sealing key must be 32 bytes');
  const keyId = keyIdOf(key);
  const prefix = `v1:${keyId}:`;
  // A KeyObject, not the Buffer, is handed to the ciphers: for a Buffer key Node 24 throws and catches
  // an error in each createCipheriv to learn that it is no KeyObject (src/webhooks/delivery/sign.ts).
  const secret = createSecretKey(key);
  return {
    keyId,
    seal(plain: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', secret, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${prefix}${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
    },
    open(sealed: string): string {
      if (sealed.startsWith('v0:')) return sealed.slice(3);
      if (!sealed.startsWith('v1:')) throw new SealingError('unknown sealed value format');
      if (!sealed.startsWith(prefix)) throw new SealingError('sealed under another key: is PAYLINKS_SECRET_KEY the one these rows were written with?');
      const raw = Buffer.from(sealed.slice(prefix.length), 'base64');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new SealingError('sealed value is truncated');
      try {
        const decipher = createDecipheriv('aes-256-gcm', secret, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SealingError('sealed value failed authentication (altered, or another key)');
      }
    },
  };
}

/** Whether a stored value is sealed (v1), as opposed to a plain value or a v0 one. */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('v1:');
}
