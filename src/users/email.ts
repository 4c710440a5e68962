import { isEmailAddress } from '../emailAddress.js';
import { hasInvisible } from '../text.js';

// A portal user's e-mail address as it is stored and compared (docs/portal.md, "Signing in").
//
// Two addresses that look the same to a person must not be two users. Every address that enters (an
// invitation, the operator's CLI, the sign-in form, a new sign-in link) goes through `checkEmail`:
// it is put in Unicode normal form C (so a decomposed "é" is the same as a composed one) and in lower
// case, then refused as a look-alike if
// - it carries anything a reader cannot see or that reorders what they see (zero-width characters,
//   direction controls, other format characters, spaces, the braille blank);
// - Unicode's compatibility mapping (NFKC) changes it: a ligature "ﬀ" for "ff", a fullwidth "ｓ",
//   a superscript; the address stored is then always its own NFKC form, so two stored addresses that
//   compare the same under NFKC and lower case are one address;
// - a part of it carries a combining mark that did not join its letter ("staf̣f", "ex̣ample"): a
//   mark that belongs to the letter is composed into it by normal form C;
// - a part of it mixes Latin letters with Cyrillic or Greek ones ("pаypal" with a Cyrillic "а").
// and refused as invalid if it is not an address by the service's one rule (src/emailAddress.ts:
// no trailing dot in the domain, no empty or leading or trailing dot in the local part). A whole part
// in one script is allowed: it is a real name in that script, not a disguise.

/** Scripts whose letters are easily taken for one another; one part of an address keeps to one of them. */
const CONFUSABLE_SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Cyrillic}/u, /\p{Script=Greek}/u] as const;

function mixesScripts(part: string): boolean {
  return CONFUSABLE_SCRIPTS.filter((script) => script.test(part)).length > 1;
}

/** A combining mark in a part written in those scripts: one that normal form C could not join to its letter. */
function strayMark(part: string): boolean {
  return /\p{M}/u.test(part) && CONFUSABLE_SCRIPTS.some((script) => script.test(part));
}

export type EmailCheck = { ok: true; email: string } | { ok: false; problem: 'invalid' | 'lookalike' };

/** The form an address is compared in: trimmed, normal form C, lower case. */
function foldOf(raw: string): string {
  return raw.trim().normalize('NFC').toLowerCase().normalize('NFC');
}

/** The address as stored (NFC, lower case, trimmed), or why it cannot be one. */
export function checkEmail(raw: string): EmailCheck {
  const e = foldOf(raw);
  if (hasInvisible(e)) return { ok: false, problem: 'lookalike' };
  if (foldOf(e.normalize('NFKC')) !== e) return { ok: false, problem: 'lookalike' };
  if (!isEmailAddress(e)) return { ok: false, problem: 'invalid' };
  const at = e.lastIndexOf('@');
  const parts = [e.slice(0, at), ...e.slice(at + 1).split('.')];
  if (parts.some((part) => strayMark(part) || mixesScripts(part))) return { ok: false, problem: 'lookalike' };
  return { ok: true, email: e };
}

/** The address as stored; undefined when it cannot be one. */
export function normalizeEmail(raw: string): string | undefined {
  const c = checkEmail(raw);
  return c.ok ? c.email : undefined;
}

/**
 * What a sign-in attempt is counted and looked up under: the stored form when the address is one, or
 * when its NFKC form is one ("staﬀ@" is counted and looked up as "staff@"), else the same normal
 * form without the checks (it matches no user, and its failures still count).
 */
export function signInKeyOf(raw: string): string {
  return normalizeEmail(raw) ?? normalizeEmail(raw.normalize('NFKC')) ?? foldOf(raw).slice(0, 254);
}
