-- Per webhook (§Deliveries: limits): the attempts it may have in flight at once (null: the operator's
-- PAYLINKS_WEBHOOK_MAX_IN_FLIGHT) and an optional rate limit in deliveries per second, kept as a token
-- bucket (rate_tokens at rate_at; it holds at most one second of deliveries) that the claim spends.
ALTER TABLE webhooks ADD COLUMN max_in_flight integer CHECK (max_in_flight BETWEEN 1 AND 100);
ALTER TABLE webhooks ADD COLUMN rate_limit integer CHECK (rate_limit BETWEEN 1 AND 1000);
ALTER TABLE webhooks ADD COLUMN rate_tokens double precision;
ALTER TABLE webhooks ADD COLUMN rate_at timestamptz;

-- The claim reads every rate-limited webhook's bucket; few webhooks have one.
CREATE INDEX webhooks_rate_limited_idx ON webhooks (id) WHERE rate_limit IS NOT NULL;
