import { describe, expect, it } from 'vitest';
import { isEmailAddress } from '../../src/emailAddress.js';
import { isMailAddress } from '../../src/mail/service.js';
import { checkEmail } from '../../src/users/email.js';
import { checkShopperInfos } from '../../src/checkout/shopperInput.js';
import { schemaCheck } from '../../src/validation.js';
import { CreateCheckoutBody } from '../../src/checkout/schemas.js';

// One rule for an e-mail address (src/emailAddress.ts), and the same answer wherever the service
// takes one: a shopper's answer on the pay page, a session's shopperContact in the API, a receipt's
// recipient and a portal user's address.

const TAKEN = ['anna@example.is', 'jón.jónsson@dæmi.is', 'foo+bar@shop.co.uk', 'пример@пример.рф', 'ANNA@EXAMPLE.IS'];
const REFUSED = [
  'anna,jon@example.is',
  'anna@example.is, jon@example.is',
  'Anna <anna@example.is>',
  '"anna jon"@example.is',
  '"a,b"@example.is',
  'anna@example',
  'anna@localhost',
  'anna@1.2.3.4',
  'anna@@example.is',
  'an na@example.is',
  'anna@example.is\r\nBcc: x@y.is',
  'anna\u200b@example.is',
  'anna\u2800@example.is',
  'anna\u00a0@example.is',
  'anna@example.is.',
  'anna.@example.is',
  'anna..jon@example.is',
  `${'a'.repeat(250)}@b.is`,
  '',
];

/** Each place's answer: does it take this address? */
const places: Record<string, (address: string) => boolean> = {
  rule: isEmailAddress,
  receipt: isMailAddress,
  user: (a) => checkEmail(a).ok,
  payPage: (a) =>
    Object.keys(checkShopperInfos([{ field: 'EmailAddress', requirementType: 'Required', prefilledValue: null }], { EmailAddress: a }).problems).length === 0,
  api: (a) => {
    const body = { amount: 1000, currency: 'EUR', returnUrl: 'https://shop.example/r', reference: 'r', terminalIdentifier: 'ABCDEFGHJKLM', shopperContact: a };
    return !schemaCheck(CreateCheckoutBody, body, { nullMeansAbsent: true }).errors.some((e) => e.field === 'shopperContact');
  },
};

describe('an e-mail address', () => {
  it.each(TAKEN)('%s is taken everywhere', (address) => {
    for (const [place, takes] of Object.entries(places)) expect(takes(address), place).toBe(true);
  });
  it.each(REFUSED.map((a) => [JSON.stringify(a), a]))('%s is refused everywhere', (_, address) => {
    for (const [place, takes] of Object.entries(places)) expect(takes(address), place).toBe(false);
  });
});
