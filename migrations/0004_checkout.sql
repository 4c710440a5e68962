-- Hosted checkout sessions (§Hosted checkout), payments and their outcomes (§Link status, §The simulated acquirer, §Events), saved cards, and the
-- state the shopper pages keep between two requests (3-D Secure step, page-signing secret).
-- No column here ever holds a full card number or a CVC (§The simulated acquirer): only the masked number, the last four
-- digits, the brand and the expiry.

CREATE TABLE checkout_sessions (
  reference                  text PRIMARY KEY,
  merchant_id                text NOT NULL REFERENCES merchants (id),
  terminal_identifier        text NOT NULL REFERENCES terminals (terminal_identifier),
  amount                     bigint NOT NULL CHECK (amount >= 0),
  currency                   text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  return_url                 text NOT NULL,
  -- The merchant's own reference, echoed byte for byte as merchantReference (§Hosted checkout).
  merchant_reference         text NOT NULL,
  culture                    text NOT NULL,
  is_manual_capture          boolean NOT NULL DEFAULT false,
  -- Null when manual capture is set (§Hosted checkout: manual capture wins) or no delay was asked for.
  capture_hours_delay        integer CHECK (capture_hours_delay BETWEEN 1 AND 672),
  is_pre_auth                boolean NOT NULL DEFAULT false,
  expires_at                 timestamptz NOT NULL,
  merchant_shopper_reference text,
  -- Display lines {name, amount, quantity, unitPrice}; read and written whole.
  items                      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(items) = 'array'),
  theme_key                  text,
  shopper_email              text,
  recurring_processing_model text,
  abandon_url                text,
  -- Set once, by the one successful payment (§Hosted checkout: a session is paid at most once).
  completed_at               timestamptz,
  payfac_reference           text,
  created_at                 timestamptz NOT NULL,
  CHECK ((completed_at IS NULL) = (payfac_reference IS NULL))
);
CREATE INDEX checkout_sessions_merchant_idx ON checkout_sessions (merchant_id, created_at DESC);

-- One row per payment attempt that reached the acquirer (authorised, refused or tokenised).
CREATE TABLE payments (
  payfac_reference           text PRIMARY KEY,
  merchant_id                text NOT NULL REFERENCES merchants (id),
  terminal_identifier        text NOT NULL,
  -- Exactly one of the two is set: a session payment or a link payment.
  checkout_reference         text REFERENCES checkout_sessions (reference),
  payment_link_reference     text REFERENCES payment_links (reference),
  merchant_reference         text,
  amount                     bigint NOT NULL CHECK (amount >= 0),
  currency                   text NOT NULL,
  success                    boolean NOT NULL,
  reason                     text,
  -- Masked card data only: 424242******4242, 4242, visa, 12/2030.
  card_masked                text NOT NULL,
  card_summary               text NOT NULL CHECK (card_summary ~ '^[0-9]{4}$'),
  card_expiry                text NOT NULL CHECK (card_expiry ~ '^[0-9]{2}/[0-9]{4}$'),
  payment_method             text NOT NULL,
  three_d_authenticated      boolean NOT NULL,
  auth_code                  text,
  is_pre_auth                boolean NOT NULL DEFAULT false,
  token                      text,
  -- Capture: Captured now, Scheduled at capture_due_at (captureHoursDelay), Manual (isManualCapture
  -- or isPreAuth: the merchant captures, §Modifications and saved cards), None (refused, or a zero-amount card save).
  capture_state              text NOT NULL CHECK (capture_state IN ('Captured', 'Scheduled', 'Manual', 'None')),
  captured_amount            bigint NOT NULL DEFAULT 0 CHECK (captured_amount >= 0),
  capture_due_at             timestamptz,
  created_at                 timestamptz NOT NULL,
  CHECK ((checkout_reference IS NULL) <> (payment_link_reference IS NULL)),
  CHECK ((capture_state = 'Scheduled') = (capture_due_at IS NOT NULL))
);
CREATE INDEX payments_merchant_idx ON payments (merchant_id, created_at DESC);
CREATE INDEX payments_session_idx ON payments (checkout_reference) WHERE checkout_reference IS NOT NULL;
CREATE INDEX payments_link_idx ON payments (payment_link_reference) WHERE payment_link_reference IS NOT NULL;
-- The delayed captures that are due ( executes them): a handful of rows at any time.
CREATE INDEX payments_capture_due_idx ON payments (capture_due_at) WHERE capture_state = 'Scheduled';

-- Saved cards (TokenizeByLink, sessions with recurringProcessingModel); charged by §Modifications and saved cards's token payment.
CREATE TABLE payment_tokens (
  token                      text PRIMARY KEY,
  merchant_id                text NOT NULL REFERENCES merchants (id),
  payfac_reference           text NOT NULL REFERENCES payments (payfac_reference),
  recurring_processing_model text NOT NULL,
  merchant_shopper_reference text,
  card_masked                text NOT NULL,
  card_summary               text NOT NULL,
  card_expiry                text NOT NULL,
  payment_method             text NOT NULL,
  created_at                 timestamptz NOT NULL,
  disabled_at                timestamptz
);
CREATE INDEX payment_tokens_merchant_idx ON payment_tokens (merchant_id, created_at DESC);

-- A 3-D Secure step in progress (§The simulated acquirer): what the acquirer needs to finish it, masked card data only.
-- Used once; a confirm after expires_at or a second confirm is refused.
CREATE TABLE three_d_challenges (
  id                         text PRIMARY KEY,
  target_kind                text NOT NULL CHECK (target_kind IN ('link', 'session')),
  target_reference           text NOT NULL,
  answers                    jsonb NOT NULL DEFAULT '[]',
  acquirer_state             jsonb NOT NULL,
  created_at                 timestamptz NOT NULL,
  expires_at                 timestamptz NOT NULL,
  used_at                    timestamptz
);

-- The key that signs the pages' CSRF and receipt tokens. Kept in the database so that every instance
-- of the service and every restart signs alike; created by the first instance that needs it.
CREATE TABLE page_signing_keys (
  id                         integer PRIMARY KEY CHECK (id = 1),
  secret                     text NOT NULL
);
