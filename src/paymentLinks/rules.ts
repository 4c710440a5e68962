import type { FieldError } from '../errors.js';
import { ApiError, validationError } from '../errors.js';
import { LINK_TYPES, MAX_AMOUNT, type LinkType } from './schemas.js';
import { customFieldErrors } from './customFields.js';
import { unitAmount, type QuantityItem } from './quantities.js';

// The rules of §Creating a link/§Updating a link that a JSON schema cannot say: across fields, by link type, against the clock.
// They run on the body even when the schema has already failed, so that one answer names every
// failing field (§Errors); each rule therefore looks only at values of the right type and leaves wrong
// types to the schema's own error.

/** A link's item; its `adjustableQuantity` absent: the shopper pays the quantity as given (docs/rules.md, §Adjustable quantities). */
export type Item = QuantityItem;

export interface ShopperInfo {
  field: string;
  requirementType: string;
  prefilledValue: string | null;
}

const MAX_RETURN_URL_LENGTH = 2048;

type Json = Record<string, unknown>;

/** Whether the schema has already reported the field at this path (§Errors path, `items[3].amount`). */
export type Failed = (path: string) => boolean;
const NONE_FAILED: Failed = () => false;

export function failedFields(errors: readonly FieldError[]): Failed {
  const paths = new Set(errors.map((e) => e.field));
  return (path) => paths.has(path);
}

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

export function linkTypeOf(body: unknown): LinkType | undefined {
  if (!isRecord(body)) return undefined;
  const t = body.type;
  return (LINK_TYPES as readonly unknown[]).includes(t) ? (t as LinkType) : undefined;
}

/** amount, currency and items together (§Creating a link): the rules create applies and update re-applies (§Updating a link). */
export function moneyErrors(v: { type: LinkType; amount: unknown; currency: unknown; items: unknown }, failed: Failed = NONE_FAILED): FieldError[] {
  const errors: FieldError[] = [];
  const { type, currency, items } = v;
  // A value the schema already refused takes no part in the sums: one mistake, one error.
  const amount = failed('amount') ? undefined : v.amount;
  if (isInt(amount)) {
    if (type === 'PayByLink' && amount < 1) {
      errors.push({ field: 'amount', code: 'RANGE', message: `must be from 1 to ${MAX_AMOUNT} for PayByLink` });
    }
    if (type === 'TokenizeByLink' && amount !== 0) {
      errors.push({ field: 'amount', code: 'RANGE', message: 'must be 0 for TokenizeByLink' });
    }
    if (currency === 'ISK' && amount % 100 !== 0) {
      errors.push({ field: 'amount', code: 'NOT_MULTIPLE_OF_100', message: 'must end in 00 for ISK' });
    }
  }
  if (items === undefined) {
    if (type === 'PayByLink') errors.push({ field: 'items', code: 'REQUIRED', message: 'is required for PayByLink' });
    return errors;
  }
  if (!Array.isArray(items)) return errors;
  if (type === 'PayByLink' && items.length === 0) {
    errors.push({ field: 'items', code: 'COUNT', message: 'must have at least one item for PayByLink' });
  }
  if (type === 'TokenizeByLink' && items.length > 0) {
    errors.push({ field: 'items', code: 'COUNT', message: 'must be empty for TokenizeByLink' });
  }
  let sum = 0;
  let summable = true;
  // The total at every adjustable item's maximum, which must stay a payable amount.
  let most = 0;
  items.forEach((item: unknown, i) => {
    if (!isRecord(item)) {
      summable = false;
      return;
    }
    const usable = (k: string) => (failed(`items[${i}].${k}`) ? undefined : item[k]);
    const [quantity, unitPrice, awd, itemAmount] = [usable('quantity'), usable('unitPrice'), usable('amountWithoutDiscount'), usable('amount')];
    if (isInt(quantity) && isInt(unitPrice) && isInt(awd) && awd !== unitPrice * quantity) {
      errors.push({
        field: `items[${i}].amountWithoutDiscount`,
        code: 'NOT_UNIT_PRICE_TIMES_QUANTITY',
        message: `must be unitPrice × quantity (${unitPrice * quantity})`,
      });
    }
    if (isInt(itemAmount) && isInt(awd) && itemAmount > awd) {
      errors.push({ field: `items[${i}].amount`, code: 'ABOVE_AMOUNT_WITHOUT_DISCOUNT', message: 'cannot be higher than amountWithoutDiscount' });
    }
    if (isInt(itemAmount)) sum += itemAmount;
    else summable = false;
    const range = adjustableErrors(item, i, { quantity, itemAmount, currency, failed });
    errors.push(...range.errors);
    if (range.most !== undefined) most += range.most;
    else if (isInt(itemAmount)) most += itemAmount;
  });
  if (type === 'PayByLink' && items.length > 0 && summable && isInt(amount) && sum !== amount) {
    errors.push({ field: 'items', code: 'SUM_MISMATCH', message: `the item amounts add up to ${sum}, not to the link amount ${amount}` });
  }
  if (summable && most > MAX_AMOUNT) {
    errors.push({ field: 'items', code: 'RANGE', message: `at the highest quantities the items would add up to ${most}, above ${MAX_AMOUNT}` });
  }
  return errors;
}

/**
 * docs/rules.md, §Adjustable quantities: 0 ≤ minimum ≤ quantity ≤ maximum ≤ 99, and a whole price per
 * unit (amount ÷ quantity; ending in 00 for ISK, so every total the shopper can choose is one the
 * currency can be paid in). Answers the item's amount at its maximum when the range is usable.
 */
function adjustableErrors(
  item: Json,
  i: number,
  v: { quantity: unknown; itemAmount: unknown; currency: unknown; failed: Failed },
): { errors: FieldError[]; most?: number } {
  const range = item.adjustableQuantity;
  const path = `items[${i}].adjustableQuantity`;
  if (!isRecord(range) || v.failed(path)) return { errors: [] };
  const errors: FieldError[] = [];
  const { minimum, maximum } = range;
  if (!isInt(minimum) || !isInt(maximum) || v.failed(`${path}.minimum`) || v.failed(`${path}.maximum`) || !isInt(v.quantity)) return { errors };
  if (minimum > v.quantity || v.quantity > maximum) {
    errors.push({ field: path, code: 'RANGE', message: `must have minimum ≤ quantity ≤ maximum (quantity is ${v.quantity})` });
  }
  if (!isInt(v.itemAmount)) return { errors };
  const unit = unitAmount({ name: '', quantity: v.quantity, unitPrice: 0, amountWithoutDiscount: 0, amount: v.itemAmount });
  if (!Number.isInteger(unit)) {
    errors.push({
      field: `items[${i}].amount`,
      code: 'NOT_WHOLE_PER_UNIT',
      message: 'must be a whole number of minor units per unit (amount ÷ quantity) when the quantity is adjustable',
    });
    return { errors };
  }
  if (v.currency === 'ISK' && unit % 100 !== 0) {
    errors.push({
      field: `items[${i}].amount`,
      code: 'NOT_MULTIPLE_OF_100',
      message: 'must end in 00 per unit (amount ÷ quantity) for ISK when the quantity is adjustable',
    });
  }
  return { errors, most: unit * maximum };
}

/** §Creating a link shopperInfo: prefilledValue with Prefilled only, each field at most once. */
export function shopperInfoErrors(list: unknown, path: string, failed: Failed = NONE_FAILED): FieldError[] {
  if (!Array.isArray(list)) return [];
  const errors: FieldError[] = [];
  const seen = new Set<unknown>();
  list.forEach((entry: unknown, i) => {
    if (!isRecord(entry) || failed(`${path}[${i}].requirementType`)) return;
    const prefilled = entry.prefilledValue;
    if (entry.requirementType === 'Prefilled' && (prefilled === undefined || prefilled === null)) {
      errors.push({ field: `${path}[${i}].prefilledValue`, code: 'REQUIRED', message: 'is required when requirementType is Prefilled' });
    }
    if (typeof entry.requirementType === 'string' && entry.requirementType !== 'Prefilled' && prefilled !== undefined && prefilled !== null) {
      errors.push({ field: `${path}[${i}].prefilledValue`, code: 'NOT_ALLOWED', message: 'is allowed only when requirementType is Prefilled' });
    }
    if (typeof entry.field === 'string') {
      if (seen.has(entry.field)) errors.push({ field: `${path}[${i}].field`, code: 'DUPLICATE', message: `${entry.field} is requested more than once` });
      seen.add(entry.field);
    }
  });
  return errors;
}

/** §Creating a link returnUrl: absolute http(s), at most 2048 characters. */
export function returnUrlError(v: unknown, field = 'returnUrl'): FieldError | undefined {
  if (typeof v !== 'string') return undefined;
  const bad = { field, code: 'INVALID_RETURN_URL', message: `must be an absolute http or https URL of at most ${MAX_RETURN_URL_LENGTH} characters` };
  if (v.length > MAX_RETURN_URL_LENGTH || !/^https?:\/\/[^\s]+$/i.test(v)) return bad;
  try {
    const u = new URL(v);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return bad;
  } catch {
    return bad;
  }
  return undefined;
}

/** An absolute http(s) address of at most 2048 characters (the terms' address; returnUrl has an error code of its own). */
export function urlError(v: unknown, field: string): FieldError | undefined {
  const bad = returnUrlError(v, field);
  return bad && { field, code: 'INVALID_URL', message: bad.message };
}

/** Control characters but the line breaks and the tab a multi-line text may hold. */
const CONTROL_CHARACTER = /(?![\t\n\r])\p{Cc}/u;

/**
 * §Creating a link description: the shopper reads it on the payment page and the merchant in lists and
 * exports, where a control character (an escape, a backspace, a stray C1 code from a wrong encoding)
 * would show as nothing or as garbage; lines and tabs are text.
 */
export function descriptionError(v: unknown, failed: Failed = NONE_FAILED): FieldError | undefined {
  // A NUL has the schema's own error already (failed): one mistake, one error.
  if (typeof v !== 'string' || failed('description') || !CONTROL_CHARACTER.test(v)) return undefined;
  return { field: 'description', code: 'FORMAT', message: 'must not contain control characters other than line breaks and tabs' };
}

/** The link's own texts for the shopper, and the address of its terms (docs/api.md, Messages and terms). */
export const SHOPPER_TEXTS = ['completionMessage', 'inactiveMessage'] as const;

/**
 * A message the shopper reads on the link's receipt or on its page once it cannot be paid: plain text
 * under description's rule (no control characters but line breaks and tabs), and not only spaces,
 * which would show the shopper an empty box where the generic sentence would have said something.
 */
export function shopperTextError(v: unknown, field: string, failed: Failed = NONE_FAILED): FieldError | undefined {
  if (typeof v !== 'string' || failed(field)) return undefined;
  if (CONTROL_CHARACTER.test(v)) return { field, code: 'FORMAT', message: 'must not contain control characters other than line breaks and tabs' };
  if (v.trim() === '') return { field, code: 'BLANK', message: 'must contain more than white space' };
  return undefined;
}

/** A promotion code takes money off; a TokenizeByLink charges nothing (docs/api.md, Promotion codes). */
export const PROMOTION_CODES_PAY_ONLY = { field: 'allowPromotionCodes', code: 'NOT_ALLOWED', message: 'is allowed only for PayByLink' } as const;

/** The messages and the terms' address of a create, or of an update's new values (null clears, and is always fine). */
export function messagesAndTermsErrors(body: Json, failed: Failed = NONE_FAILED): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of SHOPPER_TEXTS) {
    const bad = shopperTextError(body[field], field, failed);
    if (bad) errors.push(bad);
  }
  const terms = urlError(body.termsUrl, 'termsUrl');
  if (terms) errors.push(terms);
  return errors;
}

/**
 * An ISO 8601 UTC timestamp (§Creating a link, §Timestamps and identifiers). The schema checks the date-time format; this adds UTC and,
 * when asked, "strictly in the future". Returns the instant when the value is usable.
 */
export function timestampRule(v: unknown, field: string, opts: { now: Date; future: boolean }): { errors: FieldError[]; at?: Date } {
  if (typeof v !== 'string') return { errors: [] };
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return { errors: [] }; // the schema's FORMAT error says it
  if (!/(Z|[+-]00:?00)$/i.test(v)) {
    return { errors: [{ field, code: 'FORMAT', message: 'must be a UTC timestamp (ending in Z)' }] };
  }
  if (opts.future && ms <= opts.now.getTime()) {
    return { errors: [{ field, code: 'RANGE', message: 'must be in the future' }] };
  }
  return { errors: [], at: new Date(ms) };
}

/** The create rules of §Creating a link beyond the schema (the terminal's owner is checked by the service). */
export function createRuleErrors(body: unknown, now: Date, failed: Failed = NONE_FAILED): FieldError[] {
  if (!isRecord(body)) return [];
  const errors: FieldError[] = [];
  const type = linkTypeOf(body);
  if (type) {
    errors.push(...moneyErrors({ type, amount: body.amount, currency: body.currency, items: body.items }, failed));
    if (type === 'TokenizeByLink' && body.recurringProcessingModel === undefined) {
      errors.push({ field: 'recurringProcessingModel', code: 'REQUIRED', message: 'is required for TokenizeByLink' });
    }
    if (type === 'PayByLink' && body.recurringProcessingModel !== undefined) {
      errors.push({ field: 'recurringProcessingModel', code: 'NOT_ALLOWED', message: 'is allowed only for TokenizeByLink' });
    }
  }
  errors.push(...timestampRule(body.expiresAt, 'expiresAt', { now, future: true }).errors);
  const url = returnUrlError(body.returnUrl);
  if (url) errors.push(url);
  const description = descriptionError(body.description, failed);
  if (description) errors.push(description);
  if (body.shopperInfo !== undefined && body.shopperInfos !== undefined) {
    errors.push({ field: 'shopperInfos', code: 'DUPLICATE_FIELD', message: 'shopperInfo and shopperInfos are the same field; send one of them' });
  }
  errors.push(...shopperInfoErrors(body.shopperInfo, 'shopperInfo', failed), ...shopperInfoErrors(body.shopperInfos, 'shopperInfos', failed));
  errors.push(...messagesAndTermsErrors(body, failed), ...customFieldErrors(body.customFields, failed));
  if (type === 'TokenizeByLink' && body.allowPromotionCodes === true) errors.push(PROMOTION_CODES_PAY_ONLY);
  return errors;
}

/** Schema errors and rule errors as one list, without saying the same thing twice. */
export function mergeErrors(...lists: readonly (readonly FieldError[])[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of lists.flat()) {
    const key = `${e.field}|${e.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

// Field codes that have an operation-level code of their own in §Errors: when they are the only problem,
// the answer carries that code (a client switching on TERMINAL_NOT_FOUND sees it); mixed with other
// failures, the answer is VALIDATION_FAILED and the field entry keeps the specific code.
const OWN_CODES = ['TERMINAL_NOT_FOUND', 'INVALID_RETURN_URL'] as const;

/** The one §Errors error for a list of failing fields. */
export function fieldErrors(errors: readonly FieldError[]): ApiError {
  for (const code of OWN_CODES) {
    if (errors.length > 0 && errors.every((e) => e.code === code)) {
      const detail = errors.length === 1 ? `${errors[0]?.field}: ${errors[0]?.message}` : `${errors.length} fields are invalid`;
      return new ApiError(code, detail, errors);
    }
  }
  return validationError(errors);
}

export function normalizeItems(items: readonly Item[]): Item[] {
  return items.map((i) => ({
    name: i.name,
    quantity: i.quantity,
    unitPrice: i.unitPrice,
    amountWithoutDiscount: i.amountWithoutDiscount,
    amount: i.amount,
    // Only when set, so that an item without it is stored and read as it always has been.
    ...(i.adjustableQuantity !== undefined ? { adjustableQuantity: { minimum: i.adjustableQuantity.minimum, maximum: i.adjustableQuantity.maximum } } : {}),
  }));
}

export function normalizeShopperInfos(list: readonly { field: string; requirementType: string; prefilledValue?: string | null }[]): ShopperInfo[] {
  return list.map((s) => ({ field: s.field, requirementType: s.requirementType, prefilledValue: s.prefilledValue ?? null }));
}
