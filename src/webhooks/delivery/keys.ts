import { Kept } from '../../kept.js';
import type { Sealer } from '../../sealing.js';
import type { KeyObject } from 'node:crypto';
import { hmacSecretKey } from './sign.js';

/**
 * Webhook keys a worker opened from their sealed form, by sealed form: opening one per attempt
 * (AES-GCM) cost about 45 µs of each attempt (docs/performance.md). A rotated key is a new sealed
 * form, so a new entry. HMAC keys are kept as KeyObjects too, decoded from their hex once per key
 * rather than once per attempt (src/webhooks/delivery/sign.ts says why not as a Buffer).
 */
export class OpenedKeys {
  private readonly opened = new Kept<string, string>(10_000);
  private readonly secrets = new Kept<string, KeyObject>(10_000);

  constructor(private readonly sealer: Sealer) {}

  /** A webhook secret opened from its sealed form. */
  open(sealed: string): string {
    return this.opened.get(sealed, () => this.sealer.open(sealed));
  }

  /** An HMAC key (hex) as a KeyObject of its bytes. */
  secretOf(hexKey: string): KeyObject {
    return this.secrets.get(hexKey, () => hmacSecretKey(hexKey));
  }
}
