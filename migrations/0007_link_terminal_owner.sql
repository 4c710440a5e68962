-- A link's terminal must be one of its merchant's (§Authentication: another's is TERMINAL_NOT_FOUND). A valid create
-- no longer looks up the terminal's owner before its INSERT (docs/performance.md): the batched INSERT joins the
-- terminals on (terminal, merchant), a keyed create's INSERT fails on this key, and either way the
-- service answers TERMINAL_NOT_FOUND. The key replaces the one on the terminal alone, which it implies.

ALTER TABLE terminals ADD CONSTRAINT terminals_identifier_merchant_key UNIQUE (terminal_identifier, merchant_id);
ALTER TABLE payment_links DROP CONSTRAINT payment_links_terminal_identifier_fkey;
ALTER TABLE payment_links ADD CONSTRAINT payment_links_terminal_owner_fkey
  FOREIGN KEY (terminal_identifier, merchant_id) REFERENCES terminals (terminal_identifier, merchant_id);
