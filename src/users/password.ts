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

export type PasswordProblem = 'tooShort' | 'tooLong' | 'sameAsEmail' | 'common';

/**
 * The least zxcvbn score a new password must reach: 3 is "safely unguessable" in its terms, about
 * 10^8 guesses or more. Common passwords and their variants ("password1234"), repeats
 * ("aaaaaaaaaaaa"), sequences ("123456789012") and keyboard runs score 0 to 2.
 */
export const PASSWORD_MIN_SCORE = 3;

type Strength = (password: string, userInputs: string[]) => number;

let strength: Promise<Strength> | undefined;

/**
 * zxcvbn-ts (@zxcvbn-ts/core with its common and English dictionaries) estimates how many guesses a
 * password takes from the lists of passwords, names and words attackers try first, and from the
 * patterns people use (repeats, sequences, keyboard runs, dates, leetspeak). It is maintained, typed,
 * has no native code, and answers in milliseconds. Its dictionaries take about a quarter of a second
 * to load, so they are read once, the first time a password is chosen, and never at start-up.
 */
function loadStrength(): Promise<Strength> {
  strength ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    const zxcvbn = new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
    });
    return (password, userInputs) => zxcvbn.check(password, userInputs).score;
  })();
  return strength;
}

/** What a password must not be built from: the user's address and the merchant's name, as the strength check takes them. */
export interface PasswordContext {
  email: string;
  /** The merchant the user signs in to (its name's words are what a guesser who knows the shop tries first). */
  merchantName?: string | null;
}

/** The words of the address and the merchant's name that a guesser would try, longest first. */
function wordsOf(context: PasswordContext): string[] {
  const email = context.email.toLowerCase();
  const name = (context.merchantName ?? '').toLowerCase();
  const words = [email, ...email.split(/[@.+_-]/), name, ...name.split(/[^\p{L}\p{N}]+/u)].filter((w) => [...w].length >= 3);
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/**
 * Why a new password is refused, or null: too short or too long (length is what counts most, NIST
 * SP 800-63B; no composition rules), the e-mail address itself, or common or trivial (a password
 * attackers try early, or one built from the address or the merchant's name). zxcvbn-ts counts a
 * word from its user inputs as 50 guesses, so two of them and a digit ("ownersandbox1" for
 * owner@sandbox.example) just reach its score 3; what is left of the password once those words are
 * taken out must reach the score on its own.
 */
export async function passwordProblem(password: string, context: PasswordContext): Promise<PasswordProblem | null> {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'tooShort';
  if (length > PASSWORD_MAX_LENGTH) return 'tooLong';
  if (password.trim().toLowerCase() === context.email.toLowerCase()) return 'sameAsEmail';
  const words = wordsOf(context);
  const score = await loadStrength();
  if (score(password, words) < PASSWORD_MIN_SCORE) return 'common';
  let rest = password.toLowerCase();
  for (const word of words) rest = rest.split(word).join(' ');
  if (rest !== password.toLowerCase() && score(rest.trim(), words) < PASSWORD_MIN_SCORE) return 'common';
  return null;
}
