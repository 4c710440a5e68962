-- Every event of a payment carries a checkout reference: shop plugins look their order up by it and
-- refuse an event without one. A session's payment keeps its session's reference; a payment made on a
-- payment link (each paying visit is a checkout of its own) and a charge of a saved card get a
-- reference of their own. Modifications of a payment and the TokenDisabled event of a card carry the
-- reference of the payment they belong to.
ALTER TABLE payments ADD COLUMN event_checkout_reference text;

-- Payments made before this: a session's its session's reference, the others a new one in the form
-- the service makes (cs_ and 22 URL-safe base64 characters of a random UUID). Deliveries already
-- created keep the bytes they were created with.
UPDATE payments SET event_checkout_reference = coalesce(
  checkout_reference,
  'cs_' || translate(rtrim(encode(decode(replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '='), '+/', '-_')
);

ALTER TABLE payments ALTER COLUMN event_checkout_reference SET NOT NULL;
ALTER TABLE payments ADD CONSTRAINT payments_event_checkout_reference_of_session
  CHECK (checkout_reference IS NULL OR event_checkout_reference = checkout_reference);
