-- A payment link's optional texts for the shopper and its terms (docs/api.md, Messages and terms):
-- completion_message is shown on the receipt after a payment, inactive_message on the page of a
-- disabled, expired or used-up link instead of the generic sentence, and terms_url is the address
-- of the terms the shopper accepts before paying. Null is "not set": the link behaves as before.
-- Only widens: a process of the previous release keeps working on a database that has it.
ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS completion_message text CHECK (char_length(completion_message) BETWEEN 1 AND 500);
ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS inactive_message text CHECK (char_length(inactive_message) BETWEEN 1 AND 500);
ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS terms_url text CHECK (char_length(terms_url) BETWEEN 1 AND 2048);
