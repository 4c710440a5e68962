-- Rotation with overlap: after rotate-secrets the webhook's previous HMAC key stays valid until
-- previous_secrets_until. Meanwhile each attempt's Standard Webhooks signature header carries a
-- signature under the old key beside the new one, so a receiver still holding the old secret keeps
-- accepting deliveries while it is updated.
ALTER TABLE webhooks ADD COLUMN previous_hmac_key_sealed text;
ALTER TABLE webhooks ADD COLUMN previous_secrets_until timestamptz;
