import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { randomToken } from '../../ids.js';
import { pageSigningKey } from '../sql.js';

// The signature in a receipt's address (/pay/{reference}/receipt?p=…&s=…): it opens the receipt of
// that payment on that page only, so a payment reference alone shows nothing. Forms are not signed
// here: their tokens are the web layer's (src/web/formTokens.ts). The key lives in the database so
// that every instance and restart signs alike.

export class ReceiptSigner {
  #key: Promise<KeyObject> | undefined;

  constructor(private readonly db: Database) {}

  private key(): Promise<KeyObject> {
    this.#key ??= pageSigningKey(this.db.pool, randomToken(32)).then((s) => createSecretKey(Buffer.from(s, 'utf8')));
    // A failed load (database down) must not be remembered.
    this.#key.catch(() => {
      this.#key = undefined;
    });
    return this.#key;
  }

  async sign(purpose: string, ...parts: string[]): Promise<string> {
    return createHmac('sha256', await this.key())
      .update([purpose, ...parts].join('\0'))
      .digest('base64url');
  }

  async verify(token: string | undefined, purpose: string, ...parts: string[]): Promise<boolean> {
    if (token === undefined || token.length > 100) return false;
    const expected = Buffer.from(await this.sign(purpose, ...parts));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
