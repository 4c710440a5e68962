-- Whether a payment link's pages e-mail the shopper a receipt (docs/mail.md): on unless the owner
-- turns it off for the link. Adding a column with a constant default rewrites nothing.
ALTER TABLE payment_links ADD COLUMN email_receipts boolean NOT NULL DEFAULT true;
