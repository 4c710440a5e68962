-- Bulk recovery of a webhook's failed deliveries: each window asked for is kept with how many
-- deliveries it re-queued, so asking again for the same window re-queues nothing and answers the same.
-- An open window (no end given) is kept with the end 'infinity'.
CREATE TABLE webhook_recoveries (
  webhook_id  text NOT NULL REFERENCES webhooks (id),
  since       timestamptz NOT NULL,
  until       timestamptz NOT NULL,
  requeued    integer NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (webhook_id, since, until)
);
