-- The status of a checkout reference that is not a session's (a link payment's checkout, a saved-card
-- charge's) is read by the reference its events carry: an index for that read. Only adds, so a
-- process of the previous release keeps working on a database that has it.
CREATE INDEX IF NOT EXISTS payments_event_checkout_idx ON payments (merchant_id, event_checkout_reference);
