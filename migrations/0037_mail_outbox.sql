-- The e-mails the service sends (docs/mail.md): a receipt to the shopper and a "you were paid" notice
-- to the owners who asked for one. Each message is written here, rendered, in the transaction that
-- records the payment, and a sender claims it under a lease, sends it and marks it sent; a failed
-- attempt is tried again later, and after the last one the message is Failed.
--
-- Expand only: a new table, and a column with a default that the code before it never reads.
CREATE TABLE mail_outbox (
  id               text PRIMARY KEY,
  merchant_id      text NOT NULL REFERENCES merchants (id),
  kind             text NOT NULL CHECK (kind IN ('receipt', 'paid')),
  payfac_reference text NOT NULL,
  recipient        text NOT NULL,
  lang             text NOT NULL CHECK (lang IN ('is', 'en')),
  subject          text NOT NULL,
  text_body        text NOT NULL,
  html_body        text NOT NULL,
  state            text NOT NULL DEFAULT 'Pending' CHECK (state IN ('Pending', 'Sent', 'Failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  claim_token      uuid,
  claimed_until    timestamptz,
  last_error       text,
  sent_at          timestamptz,
  created_at       timestamptz NOT NULL
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE state = 'Pending';
CREATE INDEX mail_outbox_failed_idx ON mail_outbox (created_at) WHERE state = 'Failed';
CREATE INDEX mail_outbox_merchant_idx ON mail_outbox (merchant_id, created_at DESC, id DESC);

-- An owner's choice to be told by e-mail of each payment to the merchant; off until they turn it on.
ALTER TABLE portal_memberships ADD COLUMN notify_paid boolean NOT NULL DEFAULT false;
