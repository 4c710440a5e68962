-- Portal users' addresses are also compared under Unicode's compatibility mapping (src/users/email.ts):
-- a ligature "ﬀ" is "ff", a fullwidth "ｓ" is "s". Such addresses are refused from this release on,
-- and a sign-in with one is looked up by its NFKC form. Addresses stored before are put in that form
-- here, as migration 0024 did for form C; one whose NFKC form is already another live user's is left
-- as it is: it is a look-alike copy of that user, which nobody can sign in to any more, and which an
-- owner removes.
-- normalize() needs a UTF8 database; in any other encoding no such character can be stored.
DO $$
BEGIN
  IF current_setting('server_encoding') = 'UTF8' THEN
    UPDATE portal_users u SET email = lower(normalize(u.email, NFKC))
     WHERE u.removed_at IS NULL
       AND u.email <> lower(normalize(u.email, NFKC))
       AND NOT EXISTS (SELECT 1 FROM portal_users o WHERE o.removed_at IS NULL AND o.email = lower(normalize(u.email, NFKC)));
  END IF;
END
$$;
