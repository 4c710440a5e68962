-- Payment links (interface §2.2–2.6, §Creating a link to §Lists) and the shopper submissions made on them.

CREATE TABLE payment_links (
  reference                  text PRIMARY KEY,
  merchant_id                text NOT NULL REFERENCES merchants (id),
  terminal_identifier        text NOT NULL REFERENCES terminals (terminal_identifier),
  type                       text NOT NULL CHECK (type IN ('PayByLink', 'TokenizeByLink')),
  description                text NOT NULL DEFAULT '',
  theme_key                  text,
  amount                     bigint NOT NULL CHECK (amount >= 0),
  currency                   text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  return_url                 text,
  culture                    text NOT NULL,
  valid_until                timestamptz,
  recurring_processing_model text,
  visit_count                bigint NOT NULL DEFAULT 0,
  sales_count                bigint NOT NULL DEFAULT 0 CHECK (sales_count >= 0),
  max_sales_count            bigint CHECK (max_sales_count >= 1),
  -- Items and shopper infos are value lists that are always read and replaced whole (§Updating a link update
  -- replaces the list), so they live in the row as JSON arrays rather than in child tables.
  items                      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(items) = 'array'),
  shopper_infos              jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(shopper_infos) = 'array'),
  -- Status is computed at read time (§Link status) from these and the clock, never stored: an expiry shows
  -- the instant validUntil passes without any job running.
  disabled_at                timestamptz,
  -- Set by checkout when a TokenizeByLink's one tokenisation succeeds (status Completed).
  completed_at               timestamptz CHECK (completed_at IS NULL OR type = 'TokenizeByLink'),
  created_at                 timestamptz NOT NULL,
  updated_at                 timestamptz NOT NULL,
  -- No oversell past maxSalesCount (§Link status), whatever the application does.
  CHECK (max_sales_count IS NULL OR sales_count <= max_sales_count)
);
-- Get Payment Links (§Lists): a merchant's links, newest first.
CREATE INDEX payment_links_merchant_created_idx ON payment_links (merchant_id, created_at DESC, reference DESC);

-- Submission attempts on a link (interface §2.5), written by the checkout pages.
CREATE TABLE payment_link_submissions (
  id                     text PRIMARY KEY,
  payment_link_reference text NOT NULL REFERENCES payment_links (reference),
  -- [{"field": "Ssn", "value": "..."}] (interface §2.6)
  answers                jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(answers) = 'array'),
  completed              boolean NOT NULL DEFAULT false,
  amount                 bigint NOT NULL CHECK (amount >= 0),
  currency               text NOT NULL,
  token                  text,
  payfac_reference       text,
  created_at             timestamptz NOT NULL
);
CREATE INDEX payment_link_submissions_link_idx ON payment_link_submissions (payment_link_reference, created_at);
