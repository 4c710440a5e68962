// Characters a reader does not see, or that reorder what they see, in one place: an e-mail address
// must not carry them (src/emailAddress.ts), and a CSV cell that starts with them is kept as text
// (src/portal/payments/csv.ts), because a spreadsheet may skip them before a formula's sign.

/**
 * The class's members, to put inside a regular expression's brackets (flag u): controls, format
 * characters (zero-width, direction marks such as U+061C), line and paragraph separators, direction
 * controls, the code points Unicode says to ignore when drawing (U+034F, the Hangul fillers), every
 * space but the ASCII one (which an address's own rule refuses), and the braille blank U+2800, which
 * draws as a space but is a symbol to Unicode.
 */
export const INVISIBLE_CHARACTERS = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Bidi_Control}\p{Default_Ignorable_Code_Point}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800`;

const INVISIBLE = new RegExp(`[${INVISIBLE_CHARACTERS}]`, 'u');

/** Whether the text carries characters a reader does not see, or that reorder what they see. */
export function hasInvisible(value: string): boolean {
  return INVISIBLE.test(value);
}
