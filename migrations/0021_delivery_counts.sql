-- The delivery list (§Deliveries) answers totalCount with every page. Counting a webhook's deliveries at
-- each call grew with its history: 380 ms at 10,000,000 deliveries (docs/performance.md). The count is
-- kept instead, per webhook and state, as insert-only changes written by statement triggers in the
-- transaction that adds, removes or moves deliveries; the worker folds each webhook's changes into one
-- row now and then. Changes are only ever inserted, so transactions that make deliveries for the same
-- webhook (payments of one merchant) never wait for each other on a counter row.

-- No delivery may be added between the backfill and the triggers' creation (another instance may
-- still be serving during a rolling deploy): writers wait until this migration commits.
LOCK TABLE webhook_deliveries IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE webhook_delivery_counts (
  webhook_id text NOT NULL,
  state      text NOT NULL,
  n          bigint NOT NULL
);
CREATE INDEX webhook_delivery_counts_idx ON webhook_delivery_counts (webhook_id, state);

INSERT INTO webhook_delivery_counts (webhook_id, state, n)
SELECT webhook_id, state, count(*) FROM webhook_deliveries GROUP BY webhook_id, state;

CREATE FUNCTION webhook_deliveries_counted_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_delivery_counts (webhook_id, state, n) SELECT webhook_id, state, count(*) FROM added GROUP BY webhook_id, state;
  RETURN NULL;
END $$;

CREATE FUNCTION webhook_deliveries_counted_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_delivery_counts (webhook_id, state, n) SELECT webhook_id, state, -count(*) FROM removed GROUP BY webhook_id, state;
  RETURN NULL;
END $$;

-- An update statement (a claim, a lease renewal, a record) moves a delivery between states only when
-- its state changed; most change none, and then nothing is written.
CREATE FUNCTION webhook_deliveries_counted_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_delivery_counts (webhook_id, state, n)
  SELECT webhook_id, state, sum(n) FROM (
    SELECT o.webhook_id, o.state, -1 AS n FROM before_rows o JOIN after_rows a ON a.id = o.id WHERE a.state <> o.state
    UNION ALL
    SELECT a.webhook_id, a.state, 1 AS n FROM before_rows o JOIN after_rows a ON a.id = o.id WHERE a.state <> o.state
  ) moved GROUP BY webhook_id, state;
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_deliveries_count_in AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_counted_in();
CREATE TRIGGER webhook_deliveries_count_out AFTER DELETE ON webhook_deliveries
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_counted_out();
CREATE TRIGGER webhook_deliveries_count_moved AFTER UPDATE ON webhook_deliveries
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_counted_moved();
