-- The portal's payments page (§The portal): the merchant's payments newest first, paged by keyset on
-- (created_at, payfac_reference), and found by the merchant's own reference. The keyset index takes
-- over from payments_merchant_idx, which it covers.
CREATE INDEX payments_merchant_keyset_idx ON payments (merchant_id, created_at DESC, payfac_reference DESC);
DROP INDEX payments_merchant_idx;
CREATE INDEX payments_merchant_reference_idx ON payments (merchant_id, merchant_reference) WHERE merchant_reference IS NOT NULL;
-- The overview's refunds of a period, by when they completed.
CREATE INDEX modifications_merchant_completed_idx ON modifications (merchant_id, completed_at) WHERE state = 'Succeeded';
