-- Memberships (docs/portal.md, "Users"): a person signs in once and may belong to several merchants,
-- each with its own role. An owner's invitation of an address that has an account already becomes a
-- pending membership which that person accepts or declines after signing in, so that the invitation
-- answers the same whether or not the address is known anywhere else.
--
-- Expand only: portal_users keeps merchant_id and role, and the users module keeps them mirroring the
-- person's first live membership, so that a process still running the code before this migration
-- (which reads only those columns) goes on working during a rolling deploy. A later migration may drop
-- them once no such process runs.
CREATE TABLE portal_memberships (
  id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id              text NOT NULL REFERENCES portal_users (id),
  merchant_id          text NOT NULL REFERENCES merchants (id),
  role                 text NOT NULL CHECK (role IN ('owner', 'developer', 'staff')),
  created_at           timestamptz NOT NULL,
  created_by           text,
  -- Null while the invitation waits for the person's answer.
  accepted_at          timestamptz,
  removed_at           timestamptz,
  -- The invitation of a person who has an account already: the hash of the link shown to the owner
  -- (it signs nobody in and sets no password) and when it runs out. Kept here, not in portal_tokens,
  -- so that an older process never takes it for a sign-in link.
  invite_token_hash    bytea,
  invite_expires_at    timestamptz
);
-- One live membership per person and merchant; a removed or declined one may be invited again.
CREATE UNIQUE INDEX portal_memberships_live_key ON portal_memberships (user_id, merchant_id) WHERE removed_at IS NULL;
CREATE INDEX portal_memberships_merchant_idx ON portal_memberships (merchant_id) WHERE removed_at IS NULL;
CREATE UNIQUE INDEX portal_memberships_invite_key ON portal_memberships (invite_token_hash) WHERE invite_token_hash IS NOT NULL;

-- Every merchant's user is a member of that merchant with the role they have; one who has chosen a
-- password has accepted (an invitation not yet used is pending, and is accepted when it is used).
INSERT INTO portal_memberships (user_id, merchant_id, role, created_at, created_by, accepted_at)
SELECT id, merchant_id, role, created_at, created_by, CASE WHEN password_hash IS NOT NULL THEN created_at END
  FROM portal_users
 WHERE merchant_id IS NOT NULL AND removed_at IS NULL
    ON CONFLICT (user_id, merchant_id) WHERE removed_at IS NULL DO NOTHING;
