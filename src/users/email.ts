import { hasInvisible, isEmailAddress } from '../emailAddress.js';

// A portal user's e-mail address as it is stored and compared (docs/portal.md, "Signing in").
//
// Two addresses that look the same to a person must not be two users. Every address that enters (an
// invitation, the operator's CLI, the sign-in form, a new sign-in link) goes through `checkEmail`:
// it is put in Unicode normal form C (so a decomposed "é" is the same as a composed one) and in lower
// case, then refused if it carries anything a reader cannot see or that reorders what they see
// (zero-width characters, direction controls, other format characters), if it is not an address by
// the service's one rule (src/emailAddress.ts), or if a part of it mixes Latin letters with Cyrillic
// or Greek ones ("pаypal" with a Cyrillic "а"). A whole part in one of those scripts is allowed: it is
// a real name in that script, not a disguise.

/** Scripts whose letters are easily taken for one another; one part of an address keeps to one of them. */
const CONFUSABLE_SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Cyrillic}/u, /\p{Script=Greek}/u] as const;

function mixesScripts(part: string): boolean {
  return CONFUSABLE_SCRIPTS.filter((script) => script.test(part)).length > 1;
}

export type EmailCheck = { ok: true; email: string } | { ok: false; problem: 'invalid' | 'lookalike' };

/** The address as stored (NFC, lower case, trimmed), or why it cannot be one. */
export function checkEmail(raw: string): EmailCheck {
  const e = raw.trim().normalize('NFC').toLowerCase().normalize('NFC');
  if (hasInvisible(e)) return { ok: false, problem: 'lookalike' };
  if (!isEmailAddress(e)) return { ok: false, problem: 'invalid' };
  const at = e.lastIndexOf('@');
  const parts = [e.slice(0, at), ...e.slice(at + 1).split('.')];
  if (parts.some(mixesScripts)) return { ok: false, problem: 'lookalike' };
  return { ok: true, email: e };
}

/** The address as stored; undefined when it cannot be one. */
export function normalizeEmail(raw: string): string | undefined {
  const c = checkEmail(raw);
  return c.ok ? c.email : undefined;
}

/**
 * What a sign-in attempt is counted and looked up under: the stored form when the address is one,
 * else the same normal form without the checks (it matches no user, and its failures still count).
 */
export function signInKeyOf(raw: string): string {
  return normalizeEmail(raw) ?? raw.trim().normalize('NFC').toLowerCase().slice(0, 254);
}
