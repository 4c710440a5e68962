// Card data as the shopper types it, and the only forms of it that may travel further (§The simulated acquirer): the
// masked number, the last four digits, the brand and the expiry. The full number and the CVC live in a
// CardInput for the length of one request and are never stored, logged or echoed.

export interface CardInput {
  /** Digits only, 12–19 of them. */
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly cvc: string;
}

/** What may be stored and shown about a card. */
export interface CardSummary {
  /** `424242******4242` */
  masked: string;
  /** Last four digits. */
  last4: string;
  /** `MM/YYYY` */
  expiry: string;
  /** The provider's payment method names: visa, mc, amex, maestro, diners, discover, jcb, card. */
  paymentMethod: string;
}

type CardFieldError = 'cardNumber' | 'expiryDate' | 'cvc';

/** The card number's check digit (Luhn); also sent to the shopper's browser as the payment form's check (checkout/pages/assets.ts). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function paymentMethodOf(digits: string): string {
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return 'mc';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^3(0[0-5]|[68])/.test(digits)) return 'diners';
  if (/^6(011|5)/.test(digits)) return 'discover';
  if (/^35/.test(digits)) return 'jcb';
  if (/^(50|5[6-9]|6)/.test(digits)) return 'maestro';
  return 'card';
}

/** `424242******4242`: the first six and last four, as the provider masks (§The simulated acquirer). */
export function maskCardNumber(digits: string): string {
  return `${digits.slice(0, 6)}${'*'.repeat(Math.max(0, digits.length - 10))}${digits.slice(-4)}`;
}

export function summarize(card: CardInput): CardSummary {
  return {
    masked: maskCardNumber(card.number),
    last4: card.number.slice(-4),
    expiry: `${String(card.expiryMonth).padStart(2, '0')}/${card.expiryYear}`,
    paymentMethod: paymentMethodOf(card.number),
  };
}

/**
 * Parses the three card fields of the form. Returns the card, or the names of the fields that are
 * wrong (never their values). Expiry is `MM/YY` or `MM/YYYY` and must not have passed; the CVC is 3
 * digits (4 for American Express).
 */
export function parseCard(
  raw: { cardNumber: string; expiryDate: string; cvc: string },
  now: Date,
): { card: CardInput; errors: [] } | { card: null; errors: CardFieldError[] } {
  const errors: CardFieldError[] = [];
  const number = raw.cardNumber.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) errors.push('cardNumber');

  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(raw.expiryDate);
  let expiryMonth = 0;
  let expiryYear = 0;
  if (m) {
    expiryMonth = Number(m[1]);
    expiryYear = m[2]?.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  }
  // A card is valid through the last day of its expiry month (UTC here; a day's slack either way is
  // the acquirer's business, not the form's).
  const endOfMonth = Date.UTC(expiryYear, expiryMonth, 1);
  if (!m || expiryMonth < 1 || expiryMonth > 12 || endOfMonth <= now.getTime() || expiryYear > now.getUTCFullYear() + 30) {
    errors.push('expiryDate');
  }
  const cvcLength = paymentMethodOf(number) === 'amex' ? 4 : 3;
  const cvc = raw.cvc.trim();
  if (cvc.length !== cvcLength || !/^\d+$/.test(cvc)) errors.push('cvc');
  if (errors.length > 0) return { card: null, errors };
  return { card: { number, expiryMonth, expiryYear, cvc }, errors: [] };
}
