-- Webhooks (§Webhooks), events (§Events) and their deliveries with every attempt (§Deliveries).

-- A webhook belongs to a merchant or to a partner; a partner's webhook covers its linked merchants
-- (interface §6.2). Deleting is soft so that its deliveries stay traceable.
CREATE TABLE webhooks (
  id               text PRIMARY KEY,
  merchant_id      text REFERENCES merchants (id),
  partner_id       text REFERENCES partners (id),
  url              text NOT NULL,
  -- Empty means every event type (§Webhooks).
  event_types      text[] NOT NULL DEFAULT '{}',
  description      text NOT NULL DEFAULT '',
  enabled          boolean NOT NULL DEFAULT true,
  -- The two secrets must be usable for sending, so they are stored recoverably. They pass through
  -- src/webhooks/secrets.ts (seal/open), the seam where encryption at rest will go.
  api_key_sealed   text NOT NULL,
  hmac_key_sealed  text NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  deleted_at       timestamptz,
  CHECK ((merchant_id IS NULL) <> (partner_id IS NULL))
);
CREATE INDEX webhooks_merchant_idx ON webhooks (merchant_id, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX webhooks_partner_idx ON webhooks (partner_id, created_at DESC) WHERE deleted_at IS NULL;

-- One payment event (§Events). `message` holds the interface §2.8 fields without the signature, so a
-- redelivery can sign again with the webhook's current key.
CREATE TABLE webhook_events (
  id               text PRIMARY KEY,
  merchant_id      text NOT NULL REFERENCES merchants (id),
  event_type       text NOT NULL,
  payfac_reference text NOT NULL,
  message          jsonb NOT NULL,
  created_at       timestamptz NOT NULL
);

-- One event for one webhook (§Deliveries). `body` is the exact text sent by every attempt.
-- While Pending, `next_attempt_at` is when a worker may claim it; a claim moves it to the end of the
-- lease and sets `claim_token`, so a worker that dies leaves a row that becomes due again by itself.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  event_id         text NOT NULL REFERENCES webhook_events (id),
  webhook_id       text NOT NULL REFERENCES webhooks (id),
  event_type       text NOT NULL,
  payfac_reference text NOT NULL,
  body             text NOT NULL,
  state            text NOT NULL CHECK (state IN ('Pending', 'Delivered', 'Failed')),
  attempt_count    integer NOT NULL DEFAULT 0 CHECK (attempt_count BETWEEN 0 AND 5),
  next_attempt_at  timestamptz,
  claim_token      uuid,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CHECK ((state = 'Pending') = (next_attempt_at IS NOT NULL))
);
-- The claim scans only this index: its size is the number of pending deliveries, never the
-- delivered/failed history.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'Pending';
-- Attempts in flight per endpoint (the per-endpoint limit): a handful of rows at any time.
CREATE INDEX webhook_deliveries_claimed_idx ON webhook_deliveries (webhook_id) WHERE state = 'Pending' AND claim_token IS NOT NULL;
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC);
CREATE INDEX webhook_deliveries_payfac_idx ON webhook_deliveries (payfac_reference);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
  delivery_id      text NOT NULL REFERENCES webhook_deliveries (id),
  attempt_number   integer NOT NULL CHECK (attempt_number BETWEEN 1 AND 5),
  correlation_id   uuid NOT NULL,
  sent_at          timestamptz NOT NULL,
  response_status  integer,
  -- The first 64 KiB of the response, as text.
  response_body    text,
  duration_ms      integer NOT NULL,
  error_kind       text CHECK (error_kind IN ('timeout', 'connection', 'tls', 'status')),
  PRIMARY KEY (delivery_id, attempt_number)
);
CREATE INDEX webhook_attempts_correlation_idx ON webhook_attempts (correlation_id);
