-- Adjusting an authorisation (docs/api.md, Adjust an authorisation): a payment with manual capture or a
-- pre-authorisation, not yet fully captured, can have its authorised amount raised or lowered. The
-- amount the shopper authorised stays in payments.amount; adjusted_amount is the authorised amount
-- after the last adjustment that succeeded (null: never adjusted), and the ledger is held against it.
-- Only widens: a process of the previous release keeps working on a database that has it.
ALTER TABLE payments ADD COLUMN IF NOT EXISTS adjusted_amount bigint CHECK (adjusted_amount > 0);
ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_ledger_check;
ALTER TABLE payments ADD CONSTRAINT payments_ledger_check CHECK (captured_amount <= COALESCE(adjusted_amount, amount) AND refunded_amount <= captured_amount);

ALTER TABLE modifications DROP CONSTRAINT IF EXISTS modifications_kind_check;
ALTER TABLE modifications ADD CONSTRAINT modifications_kind_check CHECK (kind IN ('Capture', 'Refund', 'Reversal', 'Adjustment'));
ALTER TABLE modifications DROP CONSTRAINT IF EXISTS modifications_outcome_check;
ALTER TABLE modifications ADD CONSTRAINT modifications_outcome_check CHECK (outcome IN ('Captured', 'Refunded', 'Cancelled', 'Adjusted'));
