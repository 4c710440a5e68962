import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { WithEnvelope } from '../http/envelope.js';
import { PagingQuery } from '../http/paging.js';
import { CURRENCIES, MAX_AMOUNT } from '../paymentLinks/schemas.js';
import { CODE_PATTERN } from './rules.js';

// The Promotion codes API (docs/api.md, Promotion codes): a merchant's codes, made, listed, read and
// changed. Money in minor units. Rules across fields are in rules.ts and reported with these.

function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

const MAX_REDEMPTIONS = 1_000_000_000;
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
const Code = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: CODE_PATTERN,
  'x-pattern': 'must be letters, digits, - and _ only',
  description: 'what the shopper types: letters, digits, - and _, 1–40 characters; unique per merchant without regard to case',
});

export const CreateBody = Type.Object(
  {
    code: Code,
    percentOff: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'a percentage off the total; send this or amountOff' })),
    amountOff: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AMOUNT,
        description: 'a fixed amount off, minor units, with currency (ISK ends in 00); send this or percentOff',
      }),
    ),
    currency: Type.Optional(Type.String({ enum: [...CURRENCIES], description: 'the currency of amountOff: the code applies to payments in it only' })),
    expiresAt: Type.Optional({ ...Timestamp, description: 'ISO 8601 UTC, in the future; default never' }),
    maxRedemptions: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_REDEMPTIONS, description: 'how many payments may use the code; default unlimited' })),
    active: Type.Optional(Type.Boolean({ description: 'default true; an inactive code is refused' })),
  },
  { additionalProperties: false },
);
export type CreateInput = Static<typeof CreateBody>;

export const UpdateBody = Type.Object(
  {
    active: Type.Optional(Type.Boolean()),
    expiresAt: Type.Optional(nullable({ ...Timestamp, description: 'ISO 8601 UTC, in the future; null: never' })),
    maxRedemptions: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: MAX_REDEMPTIONS, description: 'not below redemptionCount; null: unlimited' }))),
  },
  { additionalProperties: false },
);
export type UpdateInput = Static<typeof UpdateBody>;

export const PromotionCodeSchema = Type.Object({
  promotionCodeId: Type.String({ description: 'promo_…' }),
  code: Type.String({ description: 'as the merchant wrote it' }),
  percentOff: nullable(Type.Integer()),
  amountOff: nullable(Type.Integer({ description: 'minor units' })),
  currency: nullable(Type.String({ description: 'the currency of amountOff; null for a percentage' })),
  expiresAt: nullable(Type.String({ format: 'date-time' })),
  maxRedemptions: nullable(Type.Integer()),
  redemptionCount: Type.Integer({ description: 'successful payments that used the code' }),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});
export type PromotionCodeView = Static<typeof PromotionCodeSchema>;

export const ListQuery = Type.Object({ ...PagingQuery });
export const ListResponse = WithEnvelope({ data: Type.Array(PromotionCodeSchema), totalCount: Type.Integer({ description: 'all codes of the merchant' }) });
export const CodeParams = Type.Object({ promotionCodeId: Type.String({ minLength: 1, maxLength: 100 }) });
export const CodeResponse = WithEnvelope({ promotionCode: PromotionCodeSchema });
