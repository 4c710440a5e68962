-- Authorisations waiting for capture (docs/api.md, Authorisations expire): a payment with manual capture
-- or a pre-authorisation not yet captured in full is capture_state 'Manual'. Whether one has expired is
-- computed from created_at and the configured number of days, never stored, so these indexes hold the
-- Manual payments only and every reader scans the range of those not yet expired:
-- the metrics' gauges across merchants by created_at, the portal's overview and list per merchant,
-- newest first by (created_at, payfac_reference) like the payments list.
CREATE INDEX IF NOT EXISTS payments_waiting_idx ON payments (created_at) WHERE capture_state = 'Manual';
CREATE INDEX IF NOT EXISTS payments_merchant_waiting_idx ON payments (merchant_id, created_at, payfac_reference) WHERE capture_state = 'Manual';
