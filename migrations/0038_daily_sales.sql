-- The portal's overview shows a merchant's sales, payments, refusals and refunds per day (UTC) and
-- currency over the last 7 or 30 days. Summing the payments of the period at each request grew with
-- the merchant (a process kept a summary of past minutes, and a request still made two statements of
-- its own; docs/performance.md, "The overview"). The sums are kept instead, per merchant, day and
-- currency, by statement triggers in the transaction that records a payment or completes a refund,
-- so they are exact, and a request reads at most a row per day and currency (summed over the slots).
--
-- What a row adds up is what the overview showed before: a payment counts on the day it was made
-- (its amount in `sales` when it succeeded, in `payments` when it succeeded with an amount, in
-- `refused` when it did not); a refund, and a reversal that refunded, count in `refunded` on the day
-- they completed. Captures, adjustments and cancellations change none of these.
--
-- Each transaction adds to the row of its own slot (its connection's process id, modulo 16), so that
-- payments of one merchant on one day made on different connections never wait for each other on a
-- row of this table until they commit (the delivery counts of 0021 avoid that wait too).

-- No payment or modification may be written between the backfill and the triggers' creation (another
-- instance may still be serving during a rolling deploy): writers wait until this migration commits.
LOCK TABLE payments IN SHARE ROW EXCLUSIVE MODE;
LOCK TABLE modifications IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE payment_daily_sales (
  merchant_id text NOT NULL,
  -- The day in UTC.
  day         date NOT NULL,
  currency    text NOT NULL,
  slot        smallint NOT NULL,
  -- Minor units authorised by the payments that succeeded (as first authorised).
  sales       bigint NOT NULL DEFAULT 0,
  -- Payments that succeeded with an amount (a card only saved has none).
  payments    bigint NOT NULL DEFAULT 0,
  refused     bigint NOT NULL DEFAULT 0,
  -- Minor units refunded (refunds, and reversals that refunded, by the day they completed).
  refunded    bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (merchant_id, day, currency, slot)
);

INSERT INTO payment_daily_sales (merchant_id, day, currency, slot, sales, payments, refused, refunded)
SELECT merchant_id, day, currency, 0, sum(sales), sum(payments), sum(refused), sum(refunded)
  FROM (SELECT merchant_id, (created_at AT TIME ZONE 'UTC')::date AS day, currency,
               COALESCE(sum(amount) FILTER (WHERE success), 0) AS sales,
               count(*) FILTER (WHERE success AND amount > 0) AS payments,
               count(*) FILTER (WHERE NOT success) AS refused,
               0 AS refunded
          FROM payments GROUP BY 1, 2, 3
        UNION ALL
        SELECT merchant_id, (completed_at AT TIME ZONE 'UTC')::date, currency, 0, 0, 0, sum(amount)
          FROM modifications
         WHERE state = 'Succeeded' AND amount IS NOT NULL AND (kind = 'Refund' OR (kind = 'Reversal' AND outcome = 'Refunded'))
         GROUP BY 1, 2, 3) parts
 GROUP BY merchant_id, day, currency;

-- Rows are added in the order of their key, so that two statements touching the same rows lock them
-- in one order.
CREATE FUNCTION payments_daily_sales_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_daily_sales AS s (merchant_id, day, currency, slot, sales, payments, refused)
  SELECT merchant_id, (created_at AT TIME ZONE 'UTC')::date, currency, pg_backend_pid() % 16,
         COALESCE(sum(amount) FILTER (WHERE success), 0), count(*) FILTER (WHERE success AND amount > 0), count(*) FILTER (WHERE NOT success)
    FROM added GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (merchant_id, day, currency, slot) DO UPDATE
     SET sales = s.sales + EXCLUDED.sales, payments = s.payments + EXCLUDED.payments, refused = s.refused + EXCLUDED.refused;
  RETURN NULL;
END $$;

-- No code changes what a payment adds once it is recorded (its merchant, time, currency, amount and
-- outcome); should a statement ever do so, its old sums go and its new ones come.
CREATE FUNCTION payments_daily_sales_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_daily_sales AS s (merchant_id, day, currency, slot, sales, payments, refused)
  SELECT merchant_id, day, currency, pg_backend_pid() % 16, sum(sales), sum(payments), sum(refused)
    FROM (SELECT OLD.merchant_id, (OLD.created_at AT TIME ZONE 'UTC')::date AS day, OLD.currency,
                 -CASE WHEN OLD.success THEN OLD.amount ELSE 0 END AS sales,
                 -(OLD.success AND OLD.amount > 0)::int AS payments, -(NOT OLD.success)::int AS refused
          UNION ALL
          SELECT NEW.merchant_id, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.currency,
                 CASE WHEN NEW.success THEN NEW.amount ELSE 0 END, (NEW.success AND NEW.amount > 0)::int, (NOT NEW.success)::int) parts
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (merchant_id, day, currency, slot) DO UPDATE
     SET sales = s.sales + EXCLUDED.sales, payments = s.payments + EXCLUDED.payments, refused = s.refused + EXCLUDED.refused;
  RETURN NULL;
END $$;

-- A modification's refund counts once it has succeeded: the processor's update that completes it
-- (before: Received, nothing; after: its amount). Taken as what the new rows add less what the old
-- ones added, so any other change is counted as well, without joining the two.
CREATE FUNCTION modifications_daily_refunds_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_daily_sales AS s (merchant_id, day, currency, slot, refunded)
  SELECT merchant_id, (completed_at AT TIME ZONE 'UTC')::date, currency, pg_backend_pid() % 16, sum(amount)
    FROM added
   WHERE state = 'Succeeded' AND amount IS NOT NULL AND (kind = 'Refund' OR (kind = 'Reversal' AND outcome = 'Refunded'))
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (merchant_id, day, currency, slot) DO UPDATE SET refunded = s.refunded + EXCLUDED.refunded;
  RETURN NULL;
END $$;

CREATE FUNCTION modifications_daily_refunds_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_daily_sales AS s (merchant_id, day, currency, slot, refunded)
  SELECT merchant_id, day, currency, pg_backend_pid() % 16, sum(amount)
    FROM (SELECT merchant_id, (completed_at AT TIME ZONE 'UTC')::date AS day, currency, amount
            FROM after_rows
           WHERE state = 'Succeeded' AND amount IS NOT NULL AND (kind = 'Refund' OR (kind = 'Reversal' AND outcome = 'Refunded'))
          UNION ALL
          SELECT merchant_id, (completed_at AT TIME ZONE 'UTC')::date, currency, -amount
            FROM before_rows
           WHERE state = 'Succeeded' AND amount IS NOT NULL AND (kind = 'Refund' OR (kind = 'Reversal' AND outcome = 'Refunded'))) parts
   GROUP BY 1, 2, 3 HAVING sum(amount) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (merchant_id, day, currency, slot) DO UPDATE SET refunded = s.refunded + EXCLUDED.refunded;
  RETURN NULL;
END $$;

CREATE TRIGGER payments_daily_sales_in AFTER INSERT ON payments
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION payments_daily_sales_in();
CREATE TRIGGER payments_daily_sales_moved AFTER UPDATE OF merchant_id, created_at, currency, amount, success ON payments
  FOR EACH ROW WHEN ((OLD.merchant_id, OLD.created_at, OLD.currency, OLD.amount, OLD.success)
                     IS DISTINCT FROM (NEW.merchant_id, NEW.created_at, NEW.currency, NEW.amount, NEW.success))
  EXECUTE FUNCTION payments_daily_sales_moved();
CREATE TRIGGER modifications_daily_refunds_in AFTER INSERT ON modifications
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION modifications_daily_refunds_in();
CREATE TRIGGER modifications_daily_refunds_moved AFTER UPDATE ON modifications
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION modifications_daily_refunds_moved();
