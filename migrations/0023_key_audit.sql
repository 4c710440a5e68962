-- The audit log names an API key as the actor of what a call made with it changed (§The portal's
-- audit log): the key's id and its first and last characters, never the key itself. A portal user's
-- entries keep actor_user_id and actor_email; an entry made with a key has these two instead.
ALTER TABLE audit_log ADD COLUMN actor_key_id text;
ALTER TABLE audit_log ADD COLUMN actor_key_display text;
