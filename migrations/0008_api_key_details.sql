-- What an operator needs to tell API keys apart without their secrets: a short display form of the key
-- (its first and last characters; the key itself is stored only as a SHA-256 hash), and when it was
-- last used. last_used_at is written at most about once a minute per key and process, in batches, never
-- on the request path. Keys created before this migration have no display form.
ALTER TABLE api_keys ADD COLUMN display_prefix text;
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
CREATE INDEX api_keys_merchant_idx ON api_keys (merchant_id, created_at) WHERE merchant_id IS NOT NULL;
CREATE INDEX api_keys_partner_idx ON api_keys (partner_id, created_at) WHERE partner_id IS NOT NULL;
