-- A modification is completed in two short transactions with the acquirer's answer between them, no
-- transaction open while it is awaited (src/payments/modifications/processor.ts): the first claims
-- it under a lease (claim_token, claimed_until), the second records the outcome only while the claim
-- is still its own. A processor that died leaves its claim to run out; the next one asks the acquirer
-- again with the modification's own reference as the idempotency key, so money moves once.
--
-- Two nullable columns, read by nothing of the previous release (expand only); a claim of this
-- release is still a row that release may complete, and it records the outcome in one transaction
-- as before, after which this release's second step finds the claim gone and records nothing.
ALTER TABLE modifications ADD COLUMN claim_token text;
ALTER TABLE modifications ADD COLUMN claimed_until timestamptz;
