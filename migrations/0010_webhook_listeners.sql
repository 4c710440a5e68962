-- Listener webhooks: a webhook that delivers to `paylinks listen` on a developer's machine, over a
-- stream the CLI opens to the service, instead of to a URL. The ordinary delivery workers never send a
-- listener's deliveries (they have nowhere to send them): the service process holding the listener's
-- stream claims them, with the same lease, attempts and retry schedule.

ALTER TABLE webhooks ADD COLUMN kind text NOT NULL DEFAULT 'url' CHECK (kind IN ('url', 'listener'));
-- When a listener's stream was last seen open (refreshed while it is): a listener left behind by a CLI
-- that died without cleaning up is reused by the next `listen` of the same owner.
ALTER TABLE webhooks ADD COLUMN listener_seen_at timestamptz;
CREATE INDEX webhooks_listeners_idx ON webhooks (merchant_id, partner_id, created_at DESC) WHERE kind = 'listener' AND deleted_at IS NULL;

-- Copied from the webhook's kind when the delivery is created (a webhook never changes kind).
ALTER TABLE webhook_deliveries ADD COLUMN via_listener boolean NOT NULL DEFAULT false;

-- The workers' claim reads the due index in order; it must not walk listener deliveries waiting for a
-- CLI to connect (they could fill its scan window), so the index leaves them out ...
DROP INDEX webhook_deliveries_due_idx;
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'Pending' AND NOT via_listener;
-- ... and a listener's claim reads its own.
CREATE INDEX webhook_deliveries_listener_due_idx ON webhook_deliveries (webhook_id, next_attempt_at) WHERE state = 'Pending' AND via_listener;
