-- A webhook's health: when a delivery to it last succeeded, since when its deliveries have failed with
-- no success in between, and how many deliveries ended Failed since the last success. The worker
-- disables a webhook that has failed for PAYLINKS_WEBHOOK_DISABLE_AFTER_DAYS; disabled_reason says it
-- did (null: disabled by a person, or enabled), disabled_at when.
ALTER TABLE webhooks ADD COLUMN last_success_at timestamptz;
ALTER TABLE webhooks ADD COLUMN failing_since timestamptz;
ALTER TABLE webhooks ADD COLUMN failed_deliveries integer NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN disabled_reason text CHECK (disabled_reason IN ('failing'));
ALTER TABLE webhooks ADD COLUMN disabled_at timestamptz;

-- The worker's sweep reads the enabled webhooks that are failing; few are.
CREATE INDEX webhooks_failing_idx ON webhooks (failing_since) WHERE failing_since IS NOT NULL AND enabled AND deleted_at IS NULL;
