-- The merchant portal's people (§The portal): users who sign in with an e-mail address and a
-- password, separate from API keys. A user belongs to one merchant, or to a partner (and then sees
-- every merchant linked to that partner), with one role.
CREATE TABLE portal_users (
  id                   text PRIMARY KEY,
  email                text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  merchant_id          text REFERENCES merchants (id),
  partner_id           text REFERENCES partners (id),
  role                 text NOT NULL CHECK (role IN ('owner', 'developer', 'staff')),
  -- argon2id in its PHC string form; null until the user sets a password (a sign-in link or an invite).
  password_hash        text,
  language             text NOT NULL DEFAULT 'en' CHECK (language IN ('is', 'en')),
  created_at           timestamptz NOT NULL,
  created_by           text,
  last_sign_in_at      timestamptz,
  removed_at           timestamptz,
  CHECK ((merchant_id IS NULL) <> (partner_id IS NULL))
);
-- One live account per address; a removed user's address may be invited again.
CREATE UNIQUE INDEX portal_users_email_key ON portal_users (email) WHERE removed_at IS NULL;
CREATE INDEX portal_users_merchant_idx ON portal_users (merchant_id) WHERE merchant_id IS NOT NULL;

-- Sessions: the cookie carries a random token, the table its SHA-256 only, so a copy of the table
-- signs nobody in. Idle and absolute expiry are checked on every request.
CREATE TABLE portal_sessions (
  token_hash           bytea PRIMARY KEY,
  user_id              text NOT NULL REFERENCES portal_users (id),
  -- The merchant the user is working on (a partner's user switches between linked merchants).
  merchant_id          text NOT NULL REFERENCES merchants (id),
  created_at           timestamptz NOT NULL,
  last_seen_at         timestamptz NOT NULL,
  expires_at           timestamptz NOT NULL
);
CREATE INDEX portal_sessions_user_idx ON portal_sessions (user_id);

-- One-time links: the sign-in link the operator's CLI prints, and an owner's invitation. Stored as
-- hashes; used once; they expire.
CREATE TABLE portal_tokens (
  token_hash           bytea PRIMARY KEY,
  user_id              text NOT NULL REFERENCES portal_users (id),
  purpose              text NOT NULL CHECK (purpose IN ('sign-in', 'invite')),
  created_at           timestamptz NOT NULL,
  expires_at           timestamptz NOT NULL,
  used_at              timestamptz
);
CREATE INDEX portal_tokens_user_idx ON portal_tokens (user_id);

-- Failed sign-ins, counted per account and per address over a window, so that guessing is slow for
-- every process of a deployment alike.
CREATE TABLE portal_sign_in_failures (
  throttle_key         text PRIMARY KEY,
  failures             integer NOT NULL CHECK (failures >= 0),
  window_started_at    timestamptz NOT NULL
);

-- Who did what in the portal (§The portal's audit log), newest first per merchant.
CREATE TABLE audit_log (
  id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  merchant_id          text NOT NULL REFERENCES merchants (id),
  actor_user_id        text,
  actor_email          text,
  action               text NOT NULL,
  target               text,
  details              jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
  created_at           timestamptz NOT NULL
);
CREATE INDEX audit_log_merchant_idx ON audit_log (merchant_id, id DESC);
