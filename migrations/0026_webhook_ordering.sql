-- Ordered delivery per webhook (§Deliveries: ordering). A webhook with ordering 'fifo' has its
-- deliveries attempted one at a time, in the order their events were recorded: the one recorded first
-- and not finished (the head) blocks the later ones until it is Delivered or Failed.
ALTER TABLE webhooks ADD COLUMN ordering text NOT NULL DEFAULT 'unordered' CHECK (ordering IN ('unordered', 'fifo'));
-- The claim reads every fifo webhook's head; few webhooks are fifo.
CREATE INDEX webhooks_fifo_idx ON webhooks (id) WHERE ordering = 'fifo';

-- Every delivery takes a place, `seq`, from one sequence when it is made, so that a webhook made fifo
-- later orders the deliveries already waiting as their events were recorded. A pending delivery of a
-- fifo webhook is `ordered`; its place was taken after the webhook's order lock, so that places follow
-- the order in which the events were committed.
CREATE SEQUENCE webhook_deliveries_seq;
ALTER TABLE webhook_deliveries ADD COLUMN ordered boolean NOT NULL DEFAULT false;
ALTER TABLE webhook_deliveries ADD COLUMN seq bigint;
-- Pending deliveries made before this migration take places in the order they were made; finished ones
-- need none.
UPDATE webhook_deliveries d SET seq = p.seq
  FROM (SELECT id, nextval('webhook_deliveries_seq') AS seq FROM (SELECT id FROM webhook_deliveries WHERE state = 'Pending' ORDER BY created_at, id) o) p
 WHERE d.id = p.id;
ALTER TABLE webhook_deliveries ALTER COLUMN seq SET DEFAULT nextval('webhook_deliveries_seq');

-- Ordered deliveries leave the due index the workers scan in due order: a fifo webhook's backlog behind
-- its head would otherwise fill the scan window (or make it walk the backlog) on every claim. Each fifo
-- webhook's head is found through its own index instead, one index probe per fifo webhook.
DROP INDEX webhook_deliveries_due_idx;
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'Pending' AND NOT via_listener AND NOT ordered;
CREATE INDEX webhook_deliveries_ordered_idx ON webhook_deliveries (webhook_id, seq) WHERE state = 'Pending' AND ordered;
