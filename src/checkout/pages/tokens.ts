import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { randomToken } from '../../ids.js';
import { pageSigningKey } from '../sql.js';

// Signed tokens for the pages: the CSRF token of a form (double submit: a random nonce in a cookie,
// and in the form the HMAC of that nonce bound to the page's reference) and the token that opens a
// receipt. The key lives in the database so that every instance and restart signs alike.

export const CSRF_COOKIE = 'paylinks_csrf';

export class PageSigner {
  #key: Promise<Buffer> | undefined;

  constructor(private readonly db: Database) {}

  private key(): Promise<Buffer> {
    this.#key ??= pageSigningKey(this.db.pool, randomToken(32)).then((s) => Buffer.from(s, 'utf8'));
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

export function newNonce(): string {
  return randomToken(16);
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      const v = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{16,64}$/.test(v) ? v : undefined;
    }
  }
  return undefined;
}
