-- A place held on a payment link or a checkout session while the acquirer answers a payment on it
-- (src/checkout/shopper.ts): a payment decides on its link, code and place in one short transaction,
-- calls the acquirer with no transaction open, and records what the acquirer answered in another. A
-- link with maxSalesCount counts its sales and its live holds against the cap; a promotion code with
-- maxRedemptions its redemptions and the live holds of payments using it; a session holds its one
-- place. A hold is taken out when its payment is recorded, or released when the call fails; one left
-- by a process that died counts no more once it expires, and the upkeep removes it later.
--
-- The hold's id is the idempotency key the acquirer call carries: the same payment asked twice is
-- authorised once.
--
-- A new table: nothing of the previous release reads or writes it (expand only).
CREATE TABLE payment_holds (
  id                text PRIMARY KEY,
  target_kind       text NOT NULL CHECK (target_kind IN ('link', 'session')),
  target_reference  text NOT NULL,
  promotion_code_id text,
  created_at        timestamptz NOT NULL,
  expires_at        timestamptz NOT NULL
);
CREATE INDEX payment_holds_target_idx ON payment_holds (target_kind, target_reference, expires_at);
CREATE INDEX payment_holds_code_idx ON payment_holds (promotion_code_id, expires_at) WHERE promotion_code_id IS NOT NULL;
CREATE INDEX payment_holds_expiry_idx ON payment_holds (expires_at);
