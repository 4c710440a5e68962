-- Accounts (§Authentication, §Webhooks, §Running the service): merchants with terminals and API keys; partners linked to merchants.

CREATE TABLE merchants (
  id              text PRIMARY KEY,
  name            text NOT NULL,
  -- Browser origins allowed to call create (§Authentication); empty means any.
  allowed_origins text[] NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE terminals (
  terminal_identifier text PRIMARY KEY CHECK (terminal_identifier ~ '^[A-Za-z0-9]{12}$'),
  merchant_id         text NOT NULL REFERENCES merchants (id),
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX terminals_merchant_idx ON terminals (merchant_id);

CREATE TABLE partners (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A partner's contracts: the merchants whose events reach the partner's webhooks (interface §6.2).
CREATE TABLE partner_merchants (
  partner_id  text NOT NULL REFERENCES partners (id),
  merchant_id text NOT NULL REFERENCES merchants (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partner_id, merchant_id)
);
CREATE INDEX partner_merchants_merchant_idx ON partner_merchants (merchant_id);

-- Keys are stored only as SHA-256 of the secret (§Authentication); the secret is shown once.
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  key_hash     bytea NOT NULL UNIQUE,
  merchant_id  text REFERENCES merchants (id),
  partner_id   text REFERENCES partners (id),
  capabilities text[] NOT NULL,
  revoked_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CHECK ((merchant_id IS NULL) <> (partner_id IS NULL))
);

-- Idempotent create (§Idempotent creates): the first response to (owner, key) is kept for 24 hours.
CREATE TABLE idempotency_keys (
  owner_id        text NOT NULL,
  idempotency_key text NOT NULL,
  operation       text NOT NULL,
  request_hash    text NOT NULL,
  response_status integer NOT NULL,
  response_body   jsonb NOT NULL,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (owner_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
