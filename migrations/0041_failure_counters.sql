-- One table of failure counters for every throttle (src/throttle/): the portal's sign-in keys
-- ("account:…", "address:…") and, from this release, the pay page's promotion-code keys ("code-…"),
-- each kind's limits decided by the module that counts them.
--
-- The expand step: the sign-in counters are copied here and the old table stays, so that the release
-- before this one, rolling beside it, goes on counting in its own (for the few minutes of a roll, a
-- guesser's failures are split between the two). A later release drops portal_sign_in_failures.
CREATE TABLE failure_counters (
  throttle_key         text PRIMARY KEY,
  failures             integer NOT NULL CHECK (failures >= 0),
  window_started_at    timestamptz NOT NULL
);
-- Counters whose window ended long ago are removed a few at a time as new failures are counted.
CREATE INDEX failure_counters_window_idx ON failure_counters (window_started_at);

INSERT INTO failure_counters (throttle_key, failures, window_started_at)
SELECT throttle_key, failures, window_started_at FROM portal_sign_in_failures;
