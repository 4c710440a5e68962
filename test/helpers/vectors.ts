import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SignedFields } from '../../src/webhooks/delivery/sign.js';

// The HMAC vectors of ../shared/fixtures/hmac-vectors.json (the first is the provider's own). A copy
// lives in test/fixtures so the suite runs wherever the repository is cloned; when the shared folder
// is beside the repository (as in CI), the copy must equal it, so the two cannot drift apart.

export interface HmacVector {
  name: string;
  key: string;
  message: SignedFields;
  payload: string;
  hmacSignature: string;
}

export const VECTORS_COPY = fileURLToPath(new URL('../fixtures/hmac-vectors.json', import.meta.url));
export const VECTORS_SHARED = fileURLToPath(new URL('../../../shared/fixtures/hmac-vectors.json', import.meta.url));

export function loadHmacVectors(): HmacVector[] {
  return (JSON.parse(readFileSync(VECTORS_COPY, 'utf8')) as { vectors: HmacVector[] }).vectors;
}

export function sharedVectorsIfPresent(): string | undefined {
  return existsSync(VECTORS_SHARED) ? readFileSync(VECTORS_SHARED, 'utf8') : undefined;
}
