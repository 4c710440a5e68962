-- When the shopper accepted a link's terms (payment_links.terms_url, migration 0032): recorded with
-- the payment, and kept on a 3-D Secure step so that the payment it finishes records the moment the
-- shopper accepted on the payment page. Null: the link asked for no terms.
-- Only widens: a process of the previous release keeps working on a database that has it.
ALTER TABLE payments ADD COLUMN IF NOT EXISTS terms_accepted_at timestamptz;
ALTER TABLE three_d_challenges ADD COLUMN IF NOT EXISTS terms_accepted_at timestamptz;
