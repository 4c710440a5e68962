-- A payment link's custom fields and the shopper's answers to them (docs/api.md, Custom fields):
-- payment_links.custom_fields holds up to 3 field definitions; the answers are kept with the
-- submission (the link's details), with the payment (the portal's payment page and CSV export), and
-- on a 3-D Secure step until the payment it finishes is recorded. Null: the link asked for none.
-- Only widens: a process of the previous release keeps working on a database that has it.
ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS custom_fields jsonb
  CHECK (custom_fields IS NULL OR (jsonb_typeof(custom_fields) = 'array' AND jsonb_array_length(custom_fields) BETWEEN 1 AND 3));
ALTER TABLE payment_link_submissions ADD COLUMN IF NOT EXISTS custom_field_answers jsonb
  CHECK (custom_field_answers IS NULL OR jsonb_typeof(custom_field_answers) = 'array');
ALTER TABLE payments ADD COLUMN IF NOT EXISTS custom_field_answers jsonb
  CHECK (custom_field_answers IS NULL OR jsonb_typeof(custom_field_answers) = 'array');
ALTER TABLE three_d_challenges ADD COLUMN IF NOT EXISTS custom_field_answers jsonb;
