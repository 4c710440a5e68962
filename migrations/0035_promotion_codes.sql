-- Promotion codes (docs/api.md, Promotion codes): a merchant's codes, a percentage or a fixed amount in
-- one currency off a link's total, with an optional expiry and an optional cap on redemptions. A code is
-- unique per merchant whatever its case. redemption_count counts the successful payments that used the
-- code; it is raised in the payment's own transaction, on the code's locked row, so it never passes
-- max_redemptions (the CHECK is the last guard).
-- A link allows codes only when allow_promotion_codes; a payment records the code it used and what it
-- took off, and a 3-D Secure step keeps the code until the shopper finishes it.
-- Only widens: a process of the previous release keeps working on a database that has it.
CREATE TABLE IF NOT EXISTS promotion_codes (
  id               text PRIMARY KEY,
  merchant_id      text NOT NULL REFERENCES merchants(id),
  code             text NOT NULL CHECK (char_length(code) BETWEEN 1 AND 40),
  percent_off      integer CHECK (percent_off BETWEEN 1 AND 100),
  amount_off       bigint CHECK (amount_off >= 1),
  currency         text,
  expires_at       timestamptz,
  max_redemptions  integer CHECK (max_redemptions >= 1),
  redemption_count integer NOT NULL DEFAULT 0 CHECK (redemption_count >= 0),
  active           boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CHECK ((percent_off IS NULL) <> (amount_off IS NULL)),
  CHECK ((amount_off IS NULL) = (currency IS NULL)),
  CHECK (max_redemptions IS NULL OR redemption_count <= max_redemptions)
);
CREATE UNIQUE INDEX IF NOT EXISTS promotion_codes_merchant_code ON promotion_codes (merchant_id, lower(code));
CREATE INDEX IF NOT EXISTS promotion_codes_merchant_created ON promotion_codes (merchant_id, created_at DESC, id DESC);

ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS allow_promotion_codes boolean NOT NULL DEFAULT false;
ALTER TABLE payments ADD COLUMN IF NOT EXISTS promotion_code text;
ALTER TABLE payments ADD COLUMN IF NOT EXISTS discount_amount bigint;
ALTER TABLE three_d_challenges ADD COLUMN IF NOT EXISTS promotion_code text;
