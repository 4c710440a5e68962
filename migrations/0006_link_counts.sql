-- Get Payment Links (§Lists) answers totalCount with every page. Counting a merchant's links at each call
-- grew with the merchant: 200 ms at 190,000 links (docs/performance.md). The count is kept instead, per merchant,
-- by statement triggers in the transaction that adds or removes links, so it is exact and is read
-- from the same snapshot as the page it goes with.

-- No link may be added between the backfill below and the triggers' creation, or it would never be
-- counted (another instance may still be serving during a rolling deploy): inserts wait until this
-- migration commits.
LOCK TABLE payment_links IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE merchant_link_counts (
  merchant_id text PRIMARY KEY REFERENCES merchants (id),
  links       bigint NOT NULL CHECK (links >= 0)
);

INSERT INTO merchant_link_counts (merchant_id, links)
SELECT merchant_id, count(*) FROM payment_links GROUP BY merchant_id;

CREATE FUNCTION payment_links_counted_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Ordered by merchant, so that two statements touching the same merchants lock their rows in one order.
  INSERT INTO merchant_link_counts (merchant_id, links)
  SELECT merchant_id, count(*) FROM added GROUP BY merchant_id ORDER BY merchant_id
  ON CONFLICT (merchant_id) DO UPDATE SET links = merchant_link_counts.links + EXCLUDED.links;
  RETURN NULL;
END $$;

CREATE FUNCTION payment_links_counted_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE merchant_link_counts c SET links = c.links - r.n
    FROM (SELECT merchant_id, count(*) AS n FROM removed GROUP BY merchant_id) r
   WHERE c.merchant_id = r.merchant_id;
  RETURN NULL;
END $$;

CREATE TRIGGER payment_links_count_in AFTER INSERT ON payment_links
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION payment_links_counted_in();
CREATE TRIGGER payment_links_count_out AFTER DELETE ON payment_links
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION payment_links_counted_out();
