-- Modifications (§Modifications and saved cards): captures, refunds and reversals of a payment, accepted at once as Received and
-- completed by the acquirer afterwards; token payments (§Modifications and saved cards) charging a saved card. Never edit 0004:
-- this file widens what it declared.

-- The payment's ledger. amount (authorised) >= captured_amount >= refunded_amount always holds; a
-- reversal of an uncaptured payment moves it to capture_state 'Cancelled' (the authorisation is
-- released and nothing more can be captured).
ALTER TABLE payments ADD COLUMN refunded_amount bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0);
ALTER TABLE payments ADD CONSTRAINT payments_ledger_check CHECK (captured_amount <= amount AND refunded_amount <= captured_amount);
ALTER TABLE payments DROP CONSTRAINT payments_capture_state_check;
ALTER TABLE payments ADD CONSTRAINT payments_capture_state_check CHECK (capture_state IN ('Captured', 'Scheduled', 'Manual', 'None', 'Cancelled'));

-- A token payment belongs to neither a session nor a link: it names the token it charged, and how
-- (§Modifications and saved cards: the recurringProcessingModel asked for and the channel the merchant gave).
ALTER TABLE payments ADD COLUMN charged_token text REFERENCES payment_tokens (token);
ALTER TABLE payments ADD COLUMN recurring_processing_model text;
ALTER TABLE payments ADD COLUMN channel text;
ALTER TABLE payments DROP CONSTRAINT payments_check;
ALTER TABLE payments ADD CONSTRAINT payments_origin_check CHECK (
  (checkout_reference IS NOT NULL)::int + (payment_link_reference IS NOT NULL)::int + (charged_token IS NOT NULL)::int = 1
);
CREATE INDEX payments_token_idx ON payments (charged_token) WHERE charged_token IS NOT NULL;

CREATE TABLE modifications (
  -- The modification's own payfacReference (the one the API answers with).
  payfac_reference           text PRIMARY KEY,
  -- Order of processing: the modifications of one payment are completed one after another in this order.
  seq                        bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  merchant_id                text NOT NULL REFERENCES merchants (id),
  original_payfac_reference  text NOT NULL REFERENCES payments (payfac_reference),
  kind                       text NOT NULL CHECK (kind IN ('Capture', 'Refund', 'Reversal')),
  -- Api: a merchant's request; Scheduled: a delayed capture (captureHoursDelay, §Hosted checkout) that came due.
  source                     text NOT NULL CHECK (source IN ('Api', 'Scheduled')),
  -- The merchant's reference given with the request (null for a scheduled capture).
  reference                  text,
  -- Minor units. A reversal's amount is settled when it is processed (what is left to release or refund).
  amount                     bigint CHECK (amount > 0),
  currency                   text NOT NULL,
  refund_reason              text,
  state                      text NOT NULL CHECK (state IN ('Received', 'Succeeded', 'Failed')),
  -- A completed reversal: Cancelled (nothing was captured) or Refunded.
  outcome                    text CHECK (outcome IN ('Captured', 'Refunded', 'Cancelled')),
  reason                     text,
  created_at                 timestamptz NOT NULL,
  completed_at               timestamptz,
  CHECK ((state = 'Received') = (completed_at IS NULL)),
  CHECK (kind = 'Reversal' OR amount IS NOT NULL)
);
-- The processor's claim scans only this index: its size is the number of modifications in progress.
CREATE INDEX modifications_received_idx ON modifications (seq) WHERE state = 'Received';
CREATE INDEX modifications_payment_idx ON modifications (original_payfac_reference, seq);
