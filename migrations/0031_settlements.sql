-- Settlements (docs/api.md, Settlements): at each daily cut-off the sandbox acquirer pays out what was
-- captured, less what was refunded and less its fees, in one batch per merchant and currency.

-- A merchant's fees in one currency: hundredths of a percent of each capture plus a fixed amount in
-- minor units. No row: the defaults of docs/api.md (the settlements module holds them).
CREATE TABLE merchant_fees (
  merchant_id   text NOT NULL REFERENCES merchants (id),
  currency      text NOT NULL,
  percent_bp    integer NOT NULL CHECK (percent_bp BETWEEN 0 AND 10000),
  fixed_amount  bigint NOT NULL CHECK (fixed_amount >= 0),
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, currency)
);

CREATE TABLE settlement_batches (
  settlement_id  text PRIMARY KEY,
  -- Order of creation, for paging and for the list's newest-first order.
  seq            bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  merchant_id    text NOT NULL REFERENCES merchants (id),
  currency       text NOT NULL,
  -- What was captured or refunded before this instant is in the batch (a daily cut-off, or the moment of a sandbox run).
  cutoff_at      timestamptz NOT NULL,
  gross_amount   bigint NOT NULL,
  fee_amount     bigint NOT NULL,
  net_amount     bigint NOT NULL CHECK (net_amount = gross_amount - fee_amount),
  line_count     integer NOT NULL CHECK (line_count > 0),
  created_at     timestamptz NOT NULL
);
CREATE INDEX settlement_batches_merchant_idx ON settlement_batches (merchant_id, seq DESC);

-- One line per capture or refund. The UNIQUE on payfac_reference is what puts each in exactly one batch,
-- whatever two processes or a retried run do.
CREATE TABLE settlement_lines (
  payfac_reference           text PRIMARY KEY,
  settlement_id              text NOT NULL REFERENCES settlement_batches (settlement_id),
  original_payfac_reference  text NOT NULL,
  type                       text NOT NULL CHECK (type IN ('Capture', 'Refund')),
  -- Signed minor units: a capture adds, a refund takes away (negative).
  amount                     bigint NOT NULL CHECK ((type = 'Capture') = (amount > 0) AND amount <> 0),
  fee                        bigint NOT NULL CHECK (fee >= 0),
  booked_at                  timestamptz NOT NULL
);
CREATE INDEX settlement_lines_batch_idx ON settlement_lines (settlement_id, booked_at, payfac_reference);

-- One row: the last daily cut-off settled. A run holds it FOR UPDATE, so two processes never settle at once.
CREATE TABLE settlement_schedule (
  id             integer PRIMARY KEY CHECK (id = 1),
  settled_until  timestamptz
);
INSERT INTO settlement_schedule (id, settled_until) VALUES (1, NULL);
