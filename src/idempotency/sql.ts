import type { Queryable } from '../db/database.js';

export interface StoredResponse {
  operation: string;
  requestHash: string;
  responseStatus: number;
  responseBody: Record<string, unknown>;
  createdAt: Date;
}

/** Returns true when this (owner, key) was free and is now taken by the caller's transaction. */
export async function insertIdempotencyKey(
  db: Queryable,
  args: { ownerId: string; key: string; operation: string; requestHash: string; status: number; body: unknown; createdAt: Date },
): Promise<boolean> {
  const r = await db.query({
    name: 'idempotency.insertKey',
    text: `INSERT INTO idempotency_keys (owner_id, idempotency_key, operation, request_hash, response_status, response_body, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    values: [args.ownerId, args.key, args.operation, args.requestHash, args.status, JSON.stringify(args.body), args.createdAt],
  });
  return (r.rowCount ?? 0) > 0;
}

export async function findIdempotencyKey(db: Queryable, ownerId: string, key: string): Promise<StoredResponse | undefined> {
  const { rows } = await db.query<StoredResponse>({
    name: 'idempotency.findKey',
    text: `SELECT operation, request_hash AS "requestHash", response_status AS "responseStatus", response_body AS "responseBody", created_at AS "createdAt"
       FROM idempotency_keys WHERE owner_id = $1 AND idempotency_key = $2`,
    values: [ownerId, key],
  });
  return rows[0];
}

export async function deleteExpiredIdempotencyKey(db: Queryable, ownerId: string, key: string, before: Date): Promise<void> {
  await db.query({
    name: 'idempotency.deleteExpiredKey',
    text: 'DELETE FROM idempotency_keys WHERE owner_id = $1 AND idempotency_key = $2 AND created_at < $3',
    values: [ownerId, key, before],
  });
}
