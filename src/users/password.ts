import { hash, verify } from '@node-rs/argon2';

// Portal passwords are stored as argon2id hashes (PHC strings) with the parameters OWASP's Password
// Storage Cheat Sheet gives as its first choice: 19 MiB of memory, 2 iterations, 1 lane. About 50 ms
// a hash on the 2-core machine this was measured on; sign-ins are throttled, so that cost is paid a
// few times a minute per account at most. @node-rs/argon2 ships its compiled binary inside the npm
// package (nothing is built or downloaded at install), which is why it was chosen over `argon2`.

// algorithm 2 is Argon2id (the package's const enum cannot be imported under verbatimModuleSyntax).
const PARAMS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

/** Whether `password` matches the stored hash; a malformed hash matches nothing. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;

/**
 * A hash of no one's password, verified when the e-mail address is unknown, so that an unknown
 * address and a wrong password take the same time to answer.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword('no user has this password: it only makes an unknown address cost as much as a known one');
  return dummy;
}

/** Why a new password is refused, or null. Length is what counts (NIST SP 800-63B); no composition rules. */
export function passwordProblem(password: string, email: string): 'tooShort' | 'tooLong' | 'sameAsEmail' | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'tooShort';
  if (length > PASSWORD_MAX_LENGTH) return 'tooLong';
  if (password.trim().toLowerCase() === email.toLowerCase()) return 'sameAsEmail';
  return null;
}
