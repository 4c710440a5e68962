-- Portal users' addresses are compared in Unicode normal form C and lower case (src/users/email.ts):
-- an address typed or pasted in another form (a decomposed "é") must find the same user. Addresses
-- stored before were trimmed and in lower case but not normalised; this puts them in form C.
-- An address whose normal form is already another live user's is left as it is: it is a look-alike
-- copy of that user, which nobody can sign in to any more, and which an owner removes.
-- normalize() needs a UTF8 database; in any other encoding no address can be decomposed.
DO $$
BEGIN
  IF current_setting('server_encoding') = 'UTF8' THEN
    UPDATE portal_users u SET email = normalize(u.email, NFC)
     WHERE u.removed_at IS NULL
       AND u.email IS NOT NFC NORMALIZED
       AND NOT EXISTS (SELECT 1 FROM portal_users o WHERE o.removed_at IS NULL AND o.email = normalize(u.email, NFC));
  END IF;
END
$$;
