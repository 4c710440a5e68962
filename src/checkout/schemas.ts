import { Type } from 'typebox';
import { WithEnvelope } from '../http/envelope.js';
import { CULTURES, CURRENCIES, TerminalIdentifier, MAX_AMOUNT, MAX_ITEMS, RECURRING_MODELS } from '../paymentLinks/schemas.js';

// Hosted checkout API schemas (interface §4.6, §Hosted checkout, §Clients in the field). Rules across fields and against the
// clock live in rules.ts and are reported together with these.

const SESSION_STATUSES = ['New', 'Completed', 'Expired'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

const MAX_CAPTURE_HOURS_DELAY = 672;
export const MAX_EXPIRY_MS = 24 * 60 * 60 * 1000;
/**
 * Room for clock skew: shops compute "24 hours from now" on their own clock, which may run ahead of
 * ours. An expiresAt up to this much beyond 24 hours is accepted and clamped to 24 hours.
 */
export const EXPIRY_SKEW_MS = 5 * 60 * 1000;

/** The session's expiry: the one asked for, at most 24 hours from now; 24 hours when none was asked. */
export function sessionExpiry(requested: string | undefined, now: Date): Date {
  const latest = now.getTime() + MAX_EXPIRY_MS;
  return new Date(requested === undefined ? latest : Math.min(new Date(requested).getTime(), latest));
}

const oneOf = (values: readonly string[], description?: string) => Type.String({ enum: [...values], ...(description ? { description } : {}) });

const Email = Type.String({ format: 'email', maxLength: 320 });

/** §Hosted checkout display line: amount may be negative (a discount), quantity may be fractional. */
const CheckoutItemSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 500 }),
    amount: Type.Integer({ minimum: -MAX_AMOUNT, maximum: MAX_AMOUNT, description: 'minor units; negative for a discount line' }),
    // Some plugins send the quantity as a string ("1", "0.5").
    quantity: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 }), Type.String({ pattern: '^\\d{1,7}(\\.\\d{1,6})?$' })], {
        description: 'may be fractional',
      }),
    ),
    unitPrice: Type.Optional(Type.Integer({ minimum: -MAX_AMOUNT, maximum: MAX_AMOUNT, description: 'minor units' })),
  },
  { additionalProperties: false },
);

export const CreateCheckoutBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'minor units; ISK amounts end in 00; 0 only with recurringProcessingModel' }),
    currency: oneOf(CURRENCIES, 'upper-case ISO 4217 code'),
    returnUrl: Type.String({ description: 'absolute http(s) URL, at most 2048 characters (else INVALID_RETURN_URL)' }),
    reference: Type.String({ minLength: 1, maxLength: 200, description: "the merchant's own reference, echoed as merchantReference" }),
    terminalIdentifier: TerminalIdentifier("a terminal of the key's merchant"),
    culture: Type.Optional(oneOf(CULTURES, 'default "is"')),
    isManualCapture: Type.Optional(Type.Boolean({ description: 'default false; true authorises only, and the merchant captures later' })),
    captureHoursDelay: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_CAPTURE_HOURS_DELAY, description: 'capture this many hours after authorisation; ignored with isManualCapture' }),
    ),
    isPreAuth: Type.Optional(Type.Boolean({ description: 'default false; a pre-authorisation, not captured automatically' })),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'ISO 8601 UTC, in the future, at most 24 hours ahead (up to 5 minutes more is taken as 24 hours); default 24 hours',
      }),
    ),
    merchantShopperReference: Type.Optional(Type.String({ minLength: 3, maxLength: 200 })),
    items: Type.Optional(Type.Array(CheckoutItemSchema, { maxItems: MAX_ITEMS, description: 'display lines; need not add up to amount' })),
    themeKey: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    shopperContact: Type.Optional(
      Type.Union([Email, Type.Object({ email: Email }, { additionalProperties: false })], { description: 'an e-mail address, as a string or {"email": ...}' }),
    ),
    recurringProcessingModel: Type.Optional(oneOf(RECURRING_MODELS, 'save the card for later payments')),
    abandonUrl: Type.Optional(Type.String({ description: 'absolute http(s) URL the shopper is sent to on cancel' })),
  },
  { additionalProperties: false },
);

export const CreateCheckoutResponse = WithEnvelope({
  checkoutReference: Type.String(),
  url: Type.String({ description: '{publicBaseUrl}/checkout/{checkoutReference}' }),
});

export const StatusParams = Type.Object({ checkoutReference: Type.String({ minLength: 1, maxLength: 200 }) });

export const StatusResponse = WithEnvelope({
  status: oneOf(SESSION_STATUSES),
  payfacReference: Type.Union([Type.String(), Type.Null()], { description: 'null until Completed' }),
});
