-- A charge of a saved card with the shopper present on the web (CardOnFile, channel Web) may need a
-- 3-D Secure step. The charge then waits here, under the checkout reference it was given, until the
-- shopper confirms or cancels the step on the service's page; the payment and its events are
-- recorded at that moment, with the payfacReference the API answer already gave. The card number is
-- never here: acquirer_state is what the acquirer needs to finish the step.
CREATE TABLE token_charge_challenges (
  checkout_reference          text PRIMARY KEY,
  payfac_reference            text NOT NULL UNIQUE,
  merchant_id                 text NOT NULL REFERENCES merchants (id),
  terminal_identifier         text NOT NULL,
  charged_token               text NOT NULL REFERENCES payment_tokens (token),
  recurring_processing_model  text NOT NULL,
  channel                     text NOT NULL,
  merchant_reference          text NOT NULL,
  amount                      bigint NOT NULL,
  currency                    text NOT NULL,
  return_url                  text NOT NULL,
  acquirer_state              jsonb NOT NULL,
  created_at                  timestamptz NOT NULL,
  expires_at                  timestamptz NOT NULL,
  completed_at                timestamptz
);
