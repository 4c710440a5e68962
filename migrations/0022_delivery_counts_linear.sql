-- The kept delivery counts (0021): an update statement's moves between states were found by joining
-- its old and new rows by id. PostgreSQL has no statistics for those transition tables and joined
-- them row by row against row, which the worker paid on every claim, lease renewal and record (a few
-- milliseconds for a hundred rows, growing with the square of their number), even though claims and
-- renewals move nothing. The same change is the old rows' states taken away and the new rows' added,
-- per webhook and state: one pass over each, and a group whose changes cancel (no state moved) is not
-- written at all.
CREATE OR REPLACE FUNCTION webhook_deliveries_counted_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_delivery_counts (webhook_id, state, n)
  SELECT webhook_id, state, sum(n) FROM (
    SELECT webhook_id, state, -1 AS n FROM before_rows
    UNION ALL
    SELECT webhook_id, state, 1 AS n FROM after_rows
  ) moved GROUP BY webhook_id, state HAVING sum(n) <> 0;
  RETURN NULL;
END $$;
