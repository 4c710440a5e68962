-- Portal users' addresses are also compared under Unicode's compatibility mapping (src/users/email.ts):
-- a ligature "ﬀ" is "ff", a fullwidth "ｓ" is "s". Such addresses are refused from this release on,
-- and a sign-in with one is looked up by its NFKC form. Addresses stored before are put in that form
-- here, as migration 0024 did for form C: of several live addresses with the same NFKC form, the
-- oldest, and only when no live user has that form already. The others are look-alike copies, which
-- nobody can sign in to any more, and which an owner removes.
-- normalize() needs a UTF8 database; in any other encoding no such character can be stored.
DO $$
BEGIN
  IF current_setting('server_encoding') = 'UTF8' THEN
    WITH changed AS (
      SELECT id, lower(normalize(email, NFKC)) AS folded,
             row_number() OVER (PARTITION BY lower(normalize(email, NFKC)) ORDER BY created_at, id) AS nth
        FROM portal_users
       WHERE removed_at IS NULL AND email <> lower(normalize(email, NFKC))
    )
    UPDATE portal_users u SET email = c.folded
      FROM changed c
     WHERE u.id = c.id
       AND c.nth = 1
       AND NOT EXISTS (SELECT 1 FROM portal_users o WHERE o.removed_at IS NULL AND o.email = c.folded);
  END IF;
END
$$;
