import { hash, randomBytes, randomUUID } from 'node:crypto';

// Identifiers the service invents (docs/style.md, Naming): a short prefix and enough randomness to be unguessable.

// Random bytes are drawn from the system generator 4 KiB at a time and each byte is handed out once:
// one call to the generator per call cost about as much as the rest of a create's own work (docs/performance.md).
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

function pooledRandom(bytes: number): Buffer {
  if (bytes > POOL_SIZE) return randomBytes(bytes);
  if (poolOffset + bytes > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return out;
}

/** URL-safe, 128 random bits (§References and URLs asks for at least 96). */
export function randomToken(bytes = 16): string {
  return pooledRandom(bytes).toString('base64url');
}

export function prefixedId(prefix: string): string {
  return `${prefix}_${randomToken(12)}`;
}

/** paymentLinkReference / checkoutReference (§References and URLs): opaque, URL-safe, >= 96 random bits, <= 100 chars. */
export function newReference(prefix: 'pl' | 'cs'): string {
  return `${prefix}_${randomToken(16)}`;
}

/** payfacReference: digits, as the provider's are (interface §5.2 example: 21135253156). */
export function newPayfacReference(): string {
  const n = randomBytes(8).readBigUInt64BE() % 10n ** 16n;
  return (10n ** 15n + (n % (9n * 10n ** 15n))).toString();
}

export function newUuid(): string {
  return randomUUID();
}

/** API keys are random secrets of 32 bytes (§Authentication), shown once and stored only as this hash. */
export function newApiKey(): string {
  return `pk_${randomBytes(32).toString('base64url')}`;
}

/** One-shot hashing: a Hash object per call cost about 10 µs of every authenticated request (docs/performance.md). */
export function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

const TERMINAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** terminalIdentifier: 12 characters of [A-Za-z0-9] (§Authentication). */
export function newTerminalIdentifier(): string {
  const bytes = randomBytes(12);
  let out = '';
  for (const b of bytes) out += TERMINAL_ALPHABET[b % TERMINAL_ALPHABET.length];
  return out;
}
