import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { ApiError } from '../errors.js';
import { isSealed, type Sealer } from '../sealing.js';
import * as sql from './sql.js';

// Idempotent create (§Idempotent creates). The key is recorded in the same transaction as the thing it creates: a
// second request with the same key waits on the primary key until the first commits, then finds the
// stored response. So there is no "in progress" state to expire, and a crash between creating and
// recording cannot happen (both commit or neither does).

const WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

interface IdempotencyContext {
  ownerId: string;
  key: string | undefined;
  operation: string;
  body: unknown;
}

/** Stable hash of a JSON value: object keys sorted, so key order does not make two bodies differ. */
export function hashRequest(operation: string, body: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  // The hash is taken before validation (earlierResponse), so it must survive any body (§Hardening's
  // fuzzer): no body hashes like an empty one, and a body nested too deep to walk gets a hash no
  // valid body has (such a body never validates, and under a used key it is another body: 409).
  let text: string;
  try {
    text = JSON.stringify(canonical(body)) ?? '';
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    text = '\0unhashable';
  }
  return createHash('sha256').update(operation).update('\0').update(text).digest('base64url');
}

export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (v === undefined) return undefined;
  if (v.length < 1 || v.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(v)) {
    throw new ApiError('VALIDATION_FAILED', 'Idempotency-Key must be 1 to 255 visible ASCII characters', [
      { field: 'Idempotency-Key', code: 'FORMAT', message: 'must be 1 to 255 visible ASCII characters' },
    ]);
  }
  return v;
}

/**
 * A stored response may carry secrets (a webhook registration's apiKey and hmacKey, shown again on a
 * replay), so it is kept sealed like them (§Hardening): `{"sealed": "v1:..."}`. Rows stored before
 * (a plain object) are replayed as they are.
 */
function sealResponse(sealer: Sealer, body: Record<string, unknown>): Record<string, unknown> {
  return { sealed: sealer.seal(JSON.stringify(body)) };
}

function openStoredResponse(sealer: Sealer, stored: Record<string, unknown>): Record<string, unknown> {
  const sealed = stored.sealed;
  if (Object.keys(stored).length === 1 && isSealed(sealed)) return JSON.parse(sealer.open(sealed)) as Record<string, unknown>;
  return stored;
}

class Replay extends Error {
  constructor(readonly body: Record<string, unknown>) {
    super('idempotent replay');
  }
}

/**
 * The first response for this key and body, when there is one (§Idempotent creates), looked up before the request is
 * validated: a retry must get the first answer even when the same body would no longer validate
 * (its expiresAt has passed, the terminal was moved, the webhook's host no longer resolves). Another
 * body under the same key: 409 IDEMPOTENCY_KEY_REUSED. No key, or a key not seen: undefined, and
 * the create goes on (idempotentCreate checks again inside its transaction, for concurrent twins).
 */
/** What keeping answers needs: the database, the clock (the 24-hour window) and the sealer (answers are kept sealed). */
export interface IdempotencyDeps {
  db: Database;
  clock: Clock;
  sealer: Sealer;
}

export async function earlierResponse(deps: IdempotencyDeps, ctx: IdempotencyContext): Promise<Record<string, unknown> | undefined> {
  const { db, clock } = deps;
  if (ctx.key === undefined) return undefined;
  const stored = await sql.findIdempotencyKey(db.pool, ctx.ownerId, ctx.key);
  if (!stored || stored.createdAt.getTime() < clock.now().getTime() - WINDOW_MS) return undefined;
  if (stored.requestHash !== hashRequest(ctx.operation, ctx.body) || stored.operation !== ctx.operation) {
    throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with another request in the last 24 hours');
  }
  return openStoredResponse(deps.sealer, stored.responseBody);
}

/**
 * Runs `create` in a transaction; with a key, records its response there too, or returns the first
 * response for the same key and body (409 IDEMPOTENCY_KEY_REUSED for another body).
 */
export async function idempotentCreate<T extends Record<string, unknown>>(
  deps: IdempotencyDeps,
  ctx: IdempotencyContext,
  create: (tx: pg.PoolClient) => Promise<T>,
): Promise<{ body: T; replayed: boolean }> {
  const { db, clock, sealer } = deps;
  if (ctx.key === undefined) return { body: await withTransaction(db, create), replayed: false };
  const key = ctx.key;
  const requestHash = hashRequest(ctx.operation, ctx.body);
  const now = clock.now();
  const check = (stored: sql.StoredResponse): Replay => {
    if (stored.requestHash !== requestHash || stored.operation !== ctx.operation) {
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with another request in the last 24 hours');
    }
    return new Replay(openStoredResponse(sealer, stored.responseBody));
  };
  try {
    const body = await withTransaction(db, async (tx) => {
      await sql.deleteExpiredIdempotencyKey(tx, ctx.ownerId, key, new Date(now.getTime() - WINDOW_MS));
      const earlier = await sql.findIdempotencyKey(tx, ctx.ownerId, key);
      if (earlier) throw check(earlier);
      const result = await create(tx);
      const taken = await sql.insertIdempotencyKey(tx, {
        ownerId: ctx.ownerId,
        key,
        operation: ctx.operation,
        requestHash,
        status: 200,
        body: sealResponse(sealer, result),
        createdAt: now,
      });
      if (!taken) {
        // A concurrent request with the same key committed first: undo ours, answer with theirs.
        const first = await sql.findIdempotencyKey(tx, ctx.ownerId, key);
        if (first) throw check(first);
        throw new ApiError('INTERNAL');
      }
      return result;
    });
    return { body, replayed: false };
  } catch (err) {
    if (err instanceof Replay) return { body: err.body as T, replayed: true };
    throw err;
  }
}
