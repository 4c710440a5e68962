import type { Actor, Operation } from '../actor.js';
import { changedFields, recordAudit } from '../audit/service.js';
import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { ApiError, notFound, validationError, type FieldError } from '../errors.js';
import { prefixedId } from '../ids.js';
import { idempotentCreate } from '../idempotency/service.js';
import { timestampRule } from '../paymentLinks/rules.js';
import type { Sealer } from '../sealing.js';
import { schemaCheck, checkInput } from '../validation.js';
import { applyDiscount, type DiscountTerms } from './discount.js';
import { discountErrors, isPlausibleCode, normalizeTypedCode, refusalOf, type PromotionRefusal } from './rules.js';
import { CreateBody, UpdateBody, type CreateInput, type PromotionCodeView } from './schemas.js';
import * as sql from './sql.js';

// Promotion codes (docs/api.md, Promotion codes): the merchant makes, lists, reads and changes its codes
// (the API, the portal's pages and through the API the CLI call these), and a link's payment page quotes,
// locks and redeems them (the checkout module calls these inside the payment's transaction).

export { applyDiscount, minimumCharge } from './discount.js';
export type { PromotionRefusal } from './rules.js';
export type { PromotionCodeView } from './schemas.js';

interface Deps {
  db: Database;
  clock: Clock;
  sealer: Sealer;
  actor: Actor;
}

/** The operation name under which create's Idempotency-Keys are kept (§Idempotent creates). */
export const CREATE_OPERATION = 'promotioncodes.create';

function present(c: sql.CodeRow): PromotionCodeView {
  const { id, merchantId: _merchant, expiresAt, createdAt, ...fields } = c;
  return { promotionCodeId: id, ...fields, expiresAt: expiresAt ? expiresAt.toISOString() : null, createdAt: createdAt.toISOString() };
}

const DUPLICATE_CODE: FieldError = {
  field: 'code',
  code: 'DUPLICATE',
  message: 'the merchant has a code of this name already (codes are matched without regard to case)',
};

function isDuplicateCode(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown };
  return e.code === '23505' && (e.constraint === sql.UNIQUE_CODE_CONSTRAINT || e.constraint === undefined);
}

/**
 * A create's answer as kept under its Idempotency-Key. Releases before this one kept the bare code
 * (`{ promotionCodeId, code, ... }`) where the route answers `{ promotionCode }`; such a key, kept up
 * to 24 hours before an upgrade, is answered in the route's shape too.
 */
export function keptCreateAnswer(answer: Record<string, unknown>): { promotionCode: PromotionCodeView } {
  if ('promotionCode' in answer) return answer as { promotionCode: PromotionCodeView };
  return { promotionCode: answer as unknown as PromotionCodeView };
}

/** Makes a code; every failing field at once. A name the merchant has already (in any case) is refused on `code`. */
export async function createPromotionCode(deps: Deps, merchantId: string, input: unknown, idempotencyKey: string | undefined): Promise<PromotionCodeView> {
  const now = deps.clock.now();
  const { value, errors } = schemaCheck(CreateBody, input, { nullMeansAbsent: true });
  const failed = new Set(errors.map((e) => e.field));
  const body = (typeof value === 'object' && value !== null ? value : {}) as Partial<CreateInput>;
  errors.push(...discountErrors(body).filter((e) => !failed.has(e.field)));
  const expiry = failed.has('expiresAt') ? { errors: [] } : timestampRule(body.expiresAt, 'expiresAt', { now, future: true });
  errors.push(...expiry.errors);
  if (errors.length > 0) throw validationError(errors);
  const b = body as CreateInput;
  try {
    const { body: made, replayed } = await idempotentCreate(
      deps,
      { ownerId: merchantId, key: idempotencyKey, operation: CREATE_OPERATION, body: b },
      async (q) => {
        const row: sql.NewCode = {
          id: prefixedId('promo'),
          merchantId,
          code: b.code,
          percentOff: b.percentOff ?? null,
          amountOff: b.amountOff ?? null,
          currency: b.amountOff !== undefined ? (b.currency ?? null) : null,
          expiresAt: expiry.at ?? null,
          maxRedemptions: b.maxRedemptions ?? null,
          active: b.active ?? true,
          createdAt: now,
        };
        await sql.insertCode(q, row);
        const discount = row.percentOff !== null ? { percentOff: row.percentOff } : { amountOff: row.amountOff, currency: row.currency };
        await recordAudit(q, deps, { merchantId, action: 'promotion.create', target: row.id, details: { code: row.code, ...discount } });
        // Kept under the Idempotency-Key as the route answers it: a retry's first answer is sent as it was.
        return { promotionCode: present({ ...row, redemptionCount: 0 }) };
      },
    );
    // A concurrent twin's answer, kept under the key, may be an earlier release's.
    return (replayed ? keptCreateAnswer(made) : made).promotionCode;
  } catch (err) {
    if (isDuplicateCode(err)) throw validationError([DUPLICATE_CODE]);
    throw err;
  }
}

/** A page of the merchant's codes, newest first. */
export async function listPromotionCodes(deps: { db: Database }, merchantId: string, page: number, pageSize: number) {
  const { rows, total } = await sql.listCodes(deps.db.pool, merchantId, page * pageSize, pageSize);
  return { data: rows.map(present), totalCount: total };
}

/** One code of the merchant; another merchant's is not found. */
export async function getPromotionCode(deps: { db: Database }, merchantId: string, id: string): Promise<PromotionCodeView> {
  const row = await sql.findCode(deps.db.pool, merchantId, id);
  if (!row) throw notFound('promotion code');
  return present(row);
}

/**
 * Changes whether a code is active, its expiry (null: never) and its cap (null: unlimited; never below
 * the redemptions it has); a field left out keeps its value. The code and its discount never change:
 * shoppers may have been given them.
 */
export async function updatePromotionCode(deps: Operation, merchantId: string, id: string, input: unknown): Promise<PromotionCodeView> {
  const body = checkInput(UpdateBody, input, { nullMeansAbsent: false });
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    const row = await sql.findCode(tx, merchantId, id, { forUpdate: true });
    if (!row) throw notFound('promotion code');
    const errors: FieldError[] = [];
    let expiresAt = row.expiresAt;
    if (body.expiresAt === null) expiresAt = null;
    else if (body.expiresAt !== undefined && Date.parse(body.expiresAt) !== row.expiresAt?.getTime()) {
      const t = timestampRule(body.expiresAt, 'expiresAt', { now, future: true });
      errors.push(...t.errors);
      if (t.at) expiresAt = t.at;
    }
    const maxRedemptions = body.maxRedemptions !== undefined ? body.maxRedemptions : row.maxRedemptions;
    if (maxRedemptions !== null && maxRedemptions < row.redemptionCount) {
      errors.push({ field: 'maxRedemptions', code: 'RANGE', message: `cannot be below redemptionCount (${row.redemptionCount})` });
    }
    if (errors.length > 0) throw validationError(errors);
    const updated = await sql.updateCode(tx, merchantId, id, { active: body.active ?? row.active, expiresAt, maxRedemptions, now });
    if (!updated) throw notFound('promotion code');
    // What changed, by name.
    const changed = changedFields(['active', 'expiresAt', 'maxRedemptions'] as const, row, updated);
    if (changed.length > 0) await recordAudit(tx, deps, { merchantId, action: 'promotion.update', target: id, details: { code: row.code, changed } });
    return present(updated);
  });
}

// ---------------------------------------------------------------- the shopper's side

/** A code that applies to a payment: what it takes off and what is left to pay. */
export interface AppliedPromotion {
  promotionCodeId: string;
  /** The code as the merchant wrote it (what the payment records). */
  code: string;
  discount: number;
  total: number;
  /** What the code takes off, for a page that works out the total again as the shopper changes the order. */
  terms: DiscountTerms;
  /** How many more payments may use it (its cap less its redemptions); null: no cap. */
  remaining: number | null;
}

export type PromotionQuote = { ok: true; applied: AppliedPromotion } | { ok: false; refusal: PromotionRefusal };

function quoteOf(row: sql.CodeRow | undefined, base: number, currency: string, now: Date): PromotionQuote {
  const refusal = refusalOf(row, currency, now);
  if (refusal !== null || !row) return { ok: false, refusal: refusal ?? 'unknown' };
  const { discount, total } = applyDiscount(base, currency, row);
  return {
    ok: true,
    applied: {
      promotionCodeId: row.id,
      code: row.code,
      discount,
      total,
      terms: { percentOff: row.percentOff, amountOff: row.amountOff },
      remaining: row.maxRedemptions === null ? null : row.maxRedemptions - row.redemptionCount,
    },
  };
}

type PromotionAsk = { merchantId: string; typed: string; base: number; currency: string; now: Date };

async function quoteTyped(q: Queryable, p: PromotionAsk, forUpdate: boolean): Promise<PromotionQuote> {
  const typed = normalizeTypedCode(p.typed);
  if (!isPlausibleCode(typed)) return { ok: false, refusal: 'unknown' };
  return quoteOf(await sql.findCodeByName(q, p.merchantId, typed, { forUpdate }), p.base, p.currency, p.now);
}

/**
 * What a code typed by a shopper does to `base` (the page's Apply), read without a lock: the payment
 * decides on the locked code (lockPromotion), by the same rule.
 */
export function quotePromotion(q: Queryable, p: PromotionAsk): Promise<PromotionQuote> {
  return quoteTyped(q, p, false);
}

/**
 * The code locked for one payment, inside the payment's transaction, and what it does to `base`:
 * payments with one code run one after another from here to their commit, so each sees the
 * redemptions committed before it and the cap holds exactly.
 */
export function lockPromotion(tx: Queryable, p: PromotionAsk): Promise<PromotionQuote> {
  return quoteTyped(tx, p, true);
}

/**
 * Counts the redemption of a successful payment whose use of the code was held while its acquirer
 * answered (src/checkout/shopper.ts), in the payment's transaction: counted whatever the count now,
 * so that an authorised payment is never left unrecorded.
 */
export async function countRedemption(tx: Queryable, applied: AppliedPromotion, now: Date): Promise<void> {
  await sql.redeem(tx, applied.promotionCodeId, now, { pastCap: true });
}

/** Counts the redemption of a successful payment, in its transaction (after lockPromotion). */
export async function redeemPromotion(tx: Queryable, applied: AppliedPromotion, now: Date): Promise<void> {
  // Under the lock taken by lockPromotion this always counts; if it did not, the payment must not commit.
  if (!(await sql.redeem(tx, applied.promotionCodeId, now))) throw new ApiError('INVALID_STATE', 'the promotion code reached its cap');
}
