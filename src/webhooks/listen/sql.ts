import type { Queryable } from '../../db/database.js';
import type { Owner } from '../sql.js';

// Listener webhooks (`paylinks listen`): reuse of a listener left behind, liveness, and the claim of a
// listener's deliveries by the process holding its stream.

interface ListenerRow {
  id: string;
  eventTypes: string[];
  apiKeySealed: string;
  hmacKeySealed: string;
  previousHmacKeySealed: string | null;
}

/**
 * A listener of this owner, for these event types, whose stream nobody has had open since
 * `staleBefore` (a CLI that died without removing it): taken for reuse, so its secrets carry over.
 */
export async function takeStaleListener(
  db: Queryable,
  owner: Owner,
  eventTypes: readonly string[],
  staleBefore: Date,
  now: Date,
): Promise<ListenerRow | undefined> {
  const { rows } = await db.query<ListenerRow>(
    `UPDATE webhooks w SET listener_seen_at = $5, updated_at = $5
      WHERE w.id = (
        SELECT id FROM webhooks
         WHERE kind = 'listener' AND deleted_at IS NULL AND enabled AND (merchant_id = $1 OR partner_id = $2)
           AND event_types = $3::text[] AND (listener_seen_at IS NULL OR listener_seen_at < $4)
         ORDER BY created_at DESC LIMIT 1
         FOR UPDATE SKIP LOCKED)
     RETURNING w.id, w.event_types AS "eventTypes", w.api_key_sealed AS "apiKeySealed", w.hmac_key_sealed AS "hmacKeySealed"`,
    [owner.merchantId, owner.partnerId, eventTypes, staleBefore, now],
  );
  return rows[0];
}

export async function touchListener(db: Queryable, webhookId: string, now: Date): Promise<void> {
  await db.query("UPDATE webhooks SET listener_seen_at = $2 WHERE id = $1 AND kind = 'listener'", [webhookId, now]);
}

interface ListenerDelivery {
  id: string;
  body: string;
  attemptCount: number;
  eventType: string;
  payfacReference: string;
  apiKeySealed: string;
  hmacKeySealed: string;
  previousHmacKeySealed: string | null;
}

/** Claims up to `limit` of a listener's due deliveries for `claimToken` until `leaseUntil`. */
export async function claimListenerDeliveries(
  db: Queryable,
  args: { webhookId: string; now: Date; leaseUntil: Date; claimToken: string; limit: number },
): Promise<ListenerDelivery[]> {
  const { rows } = await db.query<ListenerDelivery>(
    `UPDATE webhook_deliveries d SET next_attempt_at = $3, claim_token = $4
       FROM webhooks w
      WHERE d.id IN (
              SELECT id FROM webhook_deliveries
               WHERE webhook_id = $1 AND state = 'Pending' AND via_listener AND next_attempt_at <= $2
               ORDER BY next_attempt_at, id LIMIT $5
               FOR UPDATE SKIP LOCKED)
        AND w.id = d.webhook_id AND w.enabled AND w.deleted_at IS NULL
     RETURNING d.id, d.body, d.attempt_count AS "attemptCount", d.event_type AS "eventType", d.payfac_reference AS "payfacReference",
               w.api_key_sealed AS "apiKeySealed", w.hmac_key_sealed AS "hmacKeySealed",
               CASE WHEN w.previous_secrets_until > $2 THEN w.previous_hmac_key_sealed END AS "previousHmacKeySealed"`,
    [args.webhookId, args.now, args.leaseUntil, args.claimToken, args.limit],
  );
  return rows;
}
