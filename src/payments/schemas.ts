import { Type, type Static } from 'typebox';
import { WithEnvelope } from '../http/envelope.js';
import { CASE_INSENSITIVE } from '../validation.js';
import { CURRENCIES, MAX_AMOUNT, RECURRING_MODELS, TerminalIdentifier } from '../paymentLinks/schemas.js';

// Modifications and token payments (§Modifications and saved cards, §Clients in the field): request and response schemas, with the examples the
// OpenAPI document shows. Rules that need the stored payment or token live in the services.

export const REFUND_REASONS = ['OTHER', 'RETURN', 'DUPLICATE', 'FRAUD', 'CUSTOMER REQUEST'] as const;
const RESULT_CODES = ['Authorised', 'Refused', 'RedirectShopper'] as const;

const oneOf = (values: readonly string[], description?: string) => Type.String({ enum: [...values], ...(description ? { description } : {}) });

const Reference = Type.String({ minLength: 1, maxLength: 200, description: "the merchant's own reference (e.g. the order number)" });
const PayfacReference = Type.String({ minLength: 1, maxLength: 100, description: 'the payfacReference of the payment (its Authorization webhook)' });
const Amount = Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'minor units; a string of digits is accepted too' });
const Currency = oneOf(CURRENCIES, "upper-case ISO 4217 code; must be the payment's");

export const CaptureBody = Type.Object(
  { reference: Reference, payfacReference: PayfacReference, amount: Amount, currency: Currency },
  { additionalProperties: false, examples: [{ reference: 'order-1042', payfacReference: '1234567890123456', amount: 12345, currency: 'EUR' }] },
);

export const RefundBody = Type.Object(
  {
    reference: Reference,
    payfacReference: PayfacReference,
    amount: Amount,
    currency: Currency,
    refundReason: Type.Optional(
      Type.String({ enum: [...REFUND_REASONS], description: 'why the money goes back; matched without regard to case', [CASE_INSENSITIVE]: true }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ reference: 'order-1042', payfacReference: '1234567890123456', amount: 5000, currency: 'EUR', refundReason: 'CUSTOMER REQUEST' }],
  },
);

export const ReverseBody = Type.Object(
  { reference: Reference, payfacReference: PayfacReference },
  { additionalProperties: false, examples: [{ reference: 'order-1042', payfacReference: '1234567890123456' }] },
);

export const AdjustBody = Type.Object(
  {
    reference: Reference,
    payfacReference: PayfacReference,
    amount: Type.Integer({
      minimum: 1,
      maximum: MAX_AMOUNT,
      description: 'the new authorised amount, higher or lower, in minor units; a string of digits is accepted too',
    }),
    currency: Currency,
  },
  { additionalProperties: false, examples: [{ reference: 'order-1042', payfacReference: '1234567890123456', amount: 15000, currency: 'EUR' }] },
);

export const ModificationResponse = WithEnvelope({
  status: Type.Literal('Received', { description: 'accepted; the outcome arrives as a Capture, Refund or Adjustment webhook' }),
  payfacReference: Type.String({
    description: "the modification's own reference; the webhook carries the payment's as additionalData.originalPayfacReference",
  }),
});

export const TokenPaymentBody = Type.Object(
  {
    terminalIdentifier: TerminalIdentifier("a terminal of the key's merchant"),
    amount: Amount,
    currency: oneOf(CURRENCIES, 'upper-case ISO 4217 code'),
    reference: Reference,
    returnUrl: Type.String({ description: 'absolute http(s) URL, at most 2048 characters (else INVALID_RETURN_URL)' }),
    channel: Type.String({
      minLength: 1,
      maxLength: 20,
      description: 'where the payment is made: Web, iOS, Android (recorded; the model decides who is present)',
    }),
    shopperIp: Type.Optional(Type.String({ maxLength: 45, description: "the shopper's IP address, when the shopper is present" })),
    origin: Type.Optional(Type.String({ maxLength: 2048, description: 'the shop origin' })),
    tokenDetails: Type.Object(
      {
        tokenValue: Type.String({ minLength: 1, maxLength: 200, description: 'additionalData.token of the Tokenization webhook' }),
        recurringProcessingModel: oneOf(
          RECURRING_MODELS,
          'CardOnFile: the shopper is present (any saved card). Subscription, UnscheduledCardOnFile: merchant-initiated, only for a card saved for that model',
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        terminalIdentifier: 'A1B2C3D4E5F6',
        amount: 4900,
        currency: 'EUR',
        reference: 'subscription-77-2026-12',
        returnUrl: 'https://shop.example/return',
        channel: 'Web',
        shopperIp: '203.0.113.7',
        origin: 'https://shop.example',
        tokenDetails: { tokenValue: 'tok_8Zq1ExampleToken', recurringProcessingModel: 'Subscription' },
      },
    ],
  },
);
export type TokenPaymentRequest = Static<typeof TokenPaymentBody>;

export const TokenPaymentResponse = WithEnvelope({
  resultCode: oneOf(RESULT_CODES),
  payfacReference: Type.String({ description: 'the payment; the Authorization webhook carries the same' }),
  redirect: Type.Optional(Type.Object({ url: Type.String() }, { description: 'only with RedirectShopper' })),
  refusalReason: Type.Optional(Type.String({ description: 'only with Refused: the reason of the Authorization webhook' })),
});

export const DisableTokenBody = Type.Object(
  { tokenValue: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false, examples: [{ tokenValue: 'tok_8Zq1ExampleToken' }] },
);

export const DisableTokenResponse = WithEnvelope({ success: Type.Literal(true) });
