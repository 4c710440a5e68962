import { ListAnswer, PagedQuery } from '../http/paging.js';
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { WithEnvelope } from '../http/envelope.js';
import { CASE_INSENSITIVE } from '../validation.js';
import { MAX_ADJUSTABLE_QUANTITY } from './quantities.js';

// The Payment Links API schemas (interface §2.2–2.7, 4.1–4.5; §Creating a link, §Updating a link, §Disabling a link, §Lists). They validate the
// request (Ajv, all errors), shape the response and feed the OpenAPI document. Rules that need more
// than one field or the stored link live in rules.ts and are reported together with these.

export const LINK_TYPES = ['PayByLink', 'TokenizeByLink'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export const RECURRING_MODELS = ['CardOnFile', 'Subscription', 'UnscheduledCardOnFile'] as const;
export const CULTURES = ['is', 'en'] as const;
export const SHOPPER_FIELDS = ['Ssn', 'FullName', 'Address', 'PostCode', 'City', 'Country', 'Telephone', 'EmailAddress', 'Comments'] as const;
export const REQUIREMENT_TYPES = ['Hidden', 'Optional', 'Required', 'Prefilled'] as const;

/** Upper-case ISO 4217 codes the service takes (§Creating a link: ISK, EUR, USD, GBP, DKK, SEK, NOK, PLN at least). */
/** A terminal's identifier as a body names it: 12 letters and digits (which terminal it may be is the service's rule). */
export const TerminalIdentifier = (description: string) =>
  Type.String({ minLength: 12, maxLength: 12, pattern: '^[A-Za-z0-9]*$', 'x-pattern': 'must be letters and digits only', description });

export const CURRENCIES = ['ISK', 'EUR', 'USD', 'GBP', 'DKK', 'SEK', 'NOK', 'PLN', 'CHF', 'CZK', 'CAD', 'AUD'] as const;

export const LINK_STATUSES = ['Active', 'Expired', 'Used', 'Disabled', 'Completed'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/** §Creating a link: amount of a PayByLink, minor units. */
export const MAX_AMOUNT = 100_000_000_000;
export const MAX_ITEMS = 200;
/** Not in the documents: a bound that keeps unitPrice × quantity exact in a JavaScript number. */
const MAX_QUANTITY = 1_000_000;
const MAX_SALES_COUNT = 1_000_000_000;

const oneOf = (values: readonly string[], description?: string) => Type.String({ enum: [...values], ...(description ? { description } : {}) });

/** A field the update may set to null (§Updating a link: null clears); OpenAPI 3.0's `nullable`, which Ajv knows. */
function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

const Amount = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'minor units' });

/** docs/rules.md, §Adjustable quantities: the range the shopper chooses an item's quantity from on the payment page. */
export const AdjustableQuantitySchema = Type.Object(
  {
    minimum: Type.Integer({ minimum: 0, maximum: MAX_ADJUSTABLE_QUANTITY, description: '0 lets the shopper drop the item' }),
    maximum: Type.Integer({ minimum: 1, maximum: MAX_ADJUSTABLE_QUANTITY }),
  },
  {
    additionalProperties: false,
    description: `PayByLink only: the shopper may change the quantity on the payment page, minimum ≤ quantity ≤ maximum ≤ ${MAX_ADJUSTABLE_QUANTITY}; amount ÷ quantity must be whole (ending in 00 for ISK)`,
  },
);

export const ItemSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 500, description: 'name or description of the product' }),
    quantity: Type.Integer({ minimum: 1, maximum: MAX_QUANTITY, description: 'number of units' }),
    unitPrice: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'price per unit, minor units' }),
    amountWithoutDiscount: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'unitPrice × quantity, minor units' }),
    amount: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'payable after discount: 0 ≤ amount ≤ amountWithoutDiscount' }),
    adjustableQuantity: Type.Optional(AdjustableQuantitySchema),
  },
  { additionalProperties: false },
);

const ShopperInfoSchema = Type.Object(
  {
    field: oneOf(SHOPPER_FIELDS, 'shopper data field requested; each at most once'),
    requirementType: oneOf(REQUIREMENT_TYPES),
    prefilledValue: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 500, description: 'required with Prefilled, forbidden otherwise' }))),
  },
  { additionalProperties: false },
);

const Items = Type.Array(ItemSchema, {
  maxItems: MAX_ITEMS,
  description: 'at least one for PayByLink; empty for TokenizeByLink; amounts add up to the link amount',
});
const ShopperInfos = Type.Array(ShopperInfoSchema, { maxItems: SHOPPER_FIELDS.length });
const Description = Type.String({ maxLength: 500, description: 'default ""' });
const ThemeKey = Type.String({ minLength: 1, maxLength: 64 });
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
const Reference = Type.String({ minLength: 1, maxLength: 100 });
/** A text the shopper reads on a page of the link (§Creating a link description's rule: no control characters but line breaks and tabs). */
const ShopperText = (description: string) => Type.String({ minLength: 1, maxLength: 500, description });
const COMPLETION_MESSAGE =
  'plain text shown on the receipt page after a payment, 1–500 characters; the receipt then waits for the shopper instead of returning to returnUrl by itself';
const INACTIVE_MESSAGE = 'plain text shown on the page of the link when it is Disabled, Expired or Used, instead of the generic sentence; 1–500 characters';
const ALLOW_PROMOTION_CODES = 'PayByLink only: the payment page takes the merchant’s promotion codes (docs/api.md, Promotion codes); default false';
const EMAIL_RECEIPTS = 'whether the payment page e-mails the shopper a receipt to the address typed in its EmailAddress field (docs/mail.md); default true';
const TERMS_URL = 'absolute http(s) URL of the terms, at most 2048 characters; the payment page then asks the shopper to accept them before paying';

// Custom fields (docs/api.md, Custom fields): up to 3 questions of the merchant's on the payment page.
export const CUSTOM_FIELD_TYPES = ['Text', 'Number', 'Dropdown'] as const;
export const MAX_CUSTOM_FIELDS = 3;
export const MAX_TEXT_LENGTH = 255;
export const MAX_OPTIONS = 10;
const CustomLabel = (description: string) => Type.String({ minLength: 1, maxLength: 50, description });

const CustomFieldSchema = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 30,
      pattern: '^[A-Za-z][A-Za-z0-9_-]*$',
      'x-pattern': 'must start with a letter, then only letters, digits, _ or -',
      description: 'identifier of the field in the answers: a letter, then letters, digits, _ or -; 1–30 characters; unique in the link (any case)',
    }),
    type: Type.String({ enum: [...CUSTOM_FIELD_TYPES], [CASE_INSENSITIVE]: true, description: 'Text, Number (a whole number) or Dropdown' }),
    label: CustomLabel('what the page asks, 1–50 characters; shown in Icelandic, and in English too unless labelEn is given'),
    labelEn: Type.Optional(nullable(CustomLabel('the label on the English page, 1–50 characters'))),
    required: Type.Boolean({ description: 'whether the shopper must answer' }),
    maxLength: Type.Optional(
      nullable(
        Type.Integer({ minimum: 1, maximum: MAX_TEXT_LENGTH, description: `Text only: the longest answer, 1–${MAX_TEXT_LENGTH}; default ${MAX_TEXT_LENGTH}` }),
      ),
    ),
    options: Type.Optional(
      nullable(
        Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
          minItems: 1,
          maxItems: MAX_OPTIONS,
          description: `Dropdown only, and required there: 1–${MAX_OPTIONS} distinct choices of 1–100 characters each`,
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
const CUSTOM_FIELDS = `up to ${MAX_CUSTOM_FIELDS} questions on the payment page, answered with the payment; an empty list is none`;
const CustomFields = Type.Array(CustomFieldSchema, { maxItems: MAX_CUSTOM_FIELDS, description: CUSTOM_FIELDS });

/** A custom field as a link reads: maxLength on a Text, options on a Dropdown, labelEn only when set. */
const CustomFieldRead = Type.Object({
  key: Type.String(),
  type: oneOf(CUSTOM_FIELD_TYPES),
  label: Type.String(),
  labelEn: Type.Optional(Type.String()),
  required: Type.Boolean(),
  maxLength: Type.Optional(Type.Integer()),
  options: Type.Optional(Type.Array(Type.String())),
});

// ---------------------------------------------------------------- create (4.3, §Creating a link)

export const CreateBody = Type.Object(
  {
    type: oneOf(LINK_TYPES),
    terminalIdentifier: TerminalIdentifier("12 characters [A-Za-z0-9]; a terminal of the key's merchant"),
    amount: { ...Amount, description: 'minor units; 1–100,000,000,000 for PayByLink, 0 for TokenizeByLink; ISK amounts end in 00' },
    currency: oneOf(CURRENCIES, 'upper-case ISO 4217 code'),
    items: Type.Optional(Items),
    recurringProcessingModel: Type.Optional(oneOf(RECURRING_MODELS, 'required for TokenizeByLink, forbidden for PayByLink')),
    culture: Type.Optional(oneOf(CULTURES, 'default "is"')),
    themeKey: Type.Optional(ThemeKey),
    expiresAt: Type.Optional({ ...Timestamp, description: 'ISO 8601 UTC, strictly in the future; becomes validUntil' }),
    description: Type.Optional(Description),
    returnUrl: Type.Optional(Type.String({ description: 'absolute http(s) URL, at most 2048 characters (else INVALID_RETURN_URL)' })),
    exactSalesCount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SALES_COUNT, description: 'becomes maxSalesCount; default unlimited' })),
    shopperInfo: Type.Optional(ShopperInfos),
    shopperInfos: Type.Optional({ ...ShopperInfos, description: 'synonym of shopperInfo (send one of them)' }),
    completionMessage: Type.Optional(ShopperText(COMPLETION_MESSAGE)),
    inactiveMessage: Type.Optional(ShopperText(INACTIVE_MESSAGE)),
    termsUrl: Type.Optional(Type.String({ description: TERMS_URL })),
    customFields: Type.Optional(CustomFields),
    allowPromotionCodes: Type.Optional(Type.Boolean({ description: ALLOW_PROMOTION_CODES })),
    emailReceipts: Type.Optional(Type.Boolean({ description: EMAIL_RECEIPTS })),
  },
  { additionalProperties: false },
);

export const CreateResponse = WithEnvelope({
  paymentLinkReference: Type.String(),
  url: Type.String({ description: 'shareable link: {publicBaseUrl}/pay/{paymentLinkReference}' }),
});

// ---------------------------------------------------------------- update (4.4, §Updating a link)

export const UpdateBody = Type.Object(
  {
    paymentLinkReference: Reference,
    terminalIdentifier: Type.Optional(Type.String({ description: 'immutable' })),
    type: Type.Optional(Type.String({ description: 'immutable' })),
    url: Type.Optional(Type.String({ description: 'immutable' })),
    createdAt: Type.Optional(Type.String({ description: 'immutable' })),
    visitCount: Type.Optional(Type.Integer({ description: 'immutable' })),
    salesCount: Type.Optional(Type.Integer({ description: 'immutable' })),
    recurringProcessingModel: Type.Optional(nullable(Type.String({ description: 'immutable' }))),
    status: Type.Optional(Type.String({ description: 'read only: changes by Disable, expiry and sales; may be sent unchanged' })),
    description: Type.Optional(Description),
    themeKey: Type.Optional(nullable(ThemeKey)),
    returnUrl: Type.Optional(nullable(Type.String({ description: 'absolute http(s) URL, at most 2048 characters' }))),
    culture: Type.Optional(oneOf(CULTURES)),
    validUntil: Type.Optional(nullable({ ...Timestamp, description: 'ISO 8601 UTC; a new value must be in the future; null: no expiry' })),
    maxSalesCount: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: MAX_SALES_COUNT, description: 'never below salesCount; null: unlimited' }))),
    shopperInfos: Type.Optional(ShopperInfos),
    amount: Type.Optional({ ...Amount, description: 'only while salesCount is 0' }),
    currency: Type.Optional(oneOf(CURRENCIES, 'only while salesCount is 0')),
    items: Type.Optional({ ...Items, description: 'only while salesCount is 0' }),
    completionMessage: Type.Optional(nullable(ShopperText(`${COMPLETION_MESSAGE}; null: none`))),
    inactiveMessage: Type.Optional(nullable(ShopperText(`${INACTIVE_MESSAGE}; null: none`))),
    termsUrl: Type.Optional(nullable(Type.String({ description: `${TERMS_URL}; null: none` }))),
    customFields: Type.Optional(nullable({ ...CustomFields, description: `${CUSTOM_FIELDS}; replaces the link's list; null or []: none` })),
    allowPromotionCodes: Type.Optional(Type.Boolean({ description: ALLOW_PROMOTION_CODES })),
    emailReceipts: Type.Optional(Type.Boolean({ description: EMAIL_RECEIPTS })),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------- disable (§Disabling a link)

export const DisableBody = Type.Object({ paymentLinkReference: Reference }, { additionalProperties: false });

// ---------------------------------------------------------------- details (4.2)

const SubmissionSchema = Type.Object({
  answers: Type.Array(Type.Object({ field: Type.String(), value: Type.String() })),
  completed: Type.Boolean(),
  amount: Type.Integer(),
  currency: Type.String(),
  token: nullable(Type.String()),
  payfacReference: nullable(Type.String()),
  customFieldAnswers: Type.Optional(
    Type.Array(Type.Object({ key: Type.String(), value: Type.String() }), {
      description: 'present only when the link had custom fields at the payment: the answers given (an unanswered optional field is left out)',
    }),
  ),
  items: Type.Optional(
    Type.Array(Type.Object({ name: Type.String(), quantity: Type.Integer(), amount: Type.Integer() }), {
      description: 'present only when the link has an adjustable quantity: each item at the quantity the shopper chose, and its amount at it',
    }),
  ),
});

export const PaymentLinkSchema = Type.Object({
  terminalIdentifier: Type.String(),
  themeKey: nullable(Type.String()),
  paymentLinkReference: Type.String(),
  description: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  returnUrl: nullable(Type.String()),
  status: oneOf(LINK_STATUSES, 'Active, Expired, Used, Disabled; Completed for a tokenize-by-link after its tokenisation'),
  culture: Type.String(),
  type: oneOf(LINK_TYPES),
  url: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  validUntil: nullable(Type.String({ format: 'date-time' })),
  recurringProcessingModel: nullable(Type.String()),
  visitCount: Type.Integer(),
  salesCount: Type.Integer(),
  maxSalesCount: nullable(Type.Integer()),
  items: Type.Array(
    Type.Object({
      name: Type.String(),
      quantity: Type.Integer(),
      amountWithoutDiscount: Type.Integer(),
      amount: Type.Integer(),
      unitPrice: Type.Integer(),
      adjustableQuantity: Type.Optional({ ...AdjustableQuantitySchema, description: 'present only when set' }),
    }),
  ),
  shopperInfos: Type.Array(Type.Object({ field: Type.String(), requirementType: Type.String(), prefilledValue: nullable(Type.String()) })),
  submissions: Type.Array(SubmissionSchema),
  // Present only when set: a link made without them reads as it always has.
  completionMessage: Type.Optional(Type.String({ description: 'present only when set' })),
  inactiveMessage: Type.Optional(Type.String({ description: 'present only when set' })),
  termsUrl: Type.Optional(Type.String({ description: 'present only when set' })),
  customFields: Type.Optional(Type.Array(CustomFieldRead, { description: 'present only when set' })),
  allowPromotionCodes: Type.Optional(Type.Literal(true, { description: 'present only when true' })),
  emailReceipts: Type.Optional(Type.Literal(false, { description: 'present only when false' })),
});

export const DetailsParams = Type.Object({ reference: Type.String({ minLength: 1, description: 'paymentLinkReference' }) });
export const DetailsResponse = WithEnvelope({ paymentLink: PaymentLinkSchema });

// ---------------------------------------------------------------- list (4.1, §Lists)

export const ListQuery = PagedQuery({});

export const ListEntrySchema = Type.Object({
  paymentLinkReference: Type.String(),
  description: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  type: oneOf(LINK_TYPES),
  createdAt: Type.String({ format: 'date-time' }),
});

export const ListResponse = ListAnswer(ListEntrySchema, 'all links of the merchant');
