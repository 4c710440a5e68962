import isEmailModule from 'validator/lib/isEmail.js';
import { hasInvisible } from './text.js';

// The one rule for an e-mail address, wherever the service takes one: a shopper's answer on the pay
// page, a session's shopperContact in the API, a receipt's recipient, a portal user's address. They
// all give the same answer, so an address the pay page takes is one a receipt is sent to.
//
// The format is validator.js's isEmail, maintained and used across the field (RFC 5321's local part
// and a domain with a top-level part), with what a recipient of ours must not have on top: a quoted
// local part (it may hold a comma or a space, which a header would read as two addresses), and any
// character a reader does not see or that reorders what they see (src/text.ts). The portal's users add their own
// check on top (src/users/email.ts: two addresses that look the same must not be two users).

/** At most this long, as SMTP's path limit allows (RFC 5321, 4.5.3.1.3). */
export const EMAIL_MAX_LENGTH = 254;

// The package is CommonJS: Node hands its module.exports (the function, which names itself as its
// own `default`) as the default import, and its types describe the module, so `default` is read.
const isEmail = isEmailModule.default;

const OPTIONS = { allow_display_name: false, require_tld: true, allow_ip_domain: false, allow_underscores: false, ignore_max_length: false } as const;

/** Whether `value` is one e-mail address, exactly (no surrounding spaces, no name, no second address). */
export function isEmailAddress(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && !value.includes('"') && !hasInvisible(value) && isEmail(value, OPTIONS);
}
