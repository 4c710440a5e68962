import type { FieldError } from '../../errors.js';
import { SHOPPER_FIELDS, type LinkType } from '../../paymentLinks/schemas.js';
import type { PaymentLinkView } from '../../paymentLinks/service.js';
import { wholeNumberOf, type Form } from '../http.js';
import { CORE, translator, type Lang } from '../i18n.js';
import { CODE_IS, M } from './messages.js';
import {
  blankCustomFields,
  customFieldEntriesOf,
  customFieldEntriesOfLink,
  customFieldsBody,
  placeCustomFieldErrors,
  type CustomFieldEntry,
} from './customFieldsForm.js';

// The link forms and the API's bodies. The merchant types prices in major units, as text ("4900",
// "49,90"), a quantity and a discount per row; the API takes minor units, and per item
// amountWithoutDiscount and amount, and the link's amount. This file turns the one into the other,
// and puts each error the API gives back beside the input it concerns: an error on a value the
// portal computed (an item's amount) lands beside the input it was computed from (the discount),
// and an error on a value that could not be computed (a price that is not a number) is left out,
// since the input's own error already says it. The rules themselves are the API's alone.

export type ShopperField = (typeof SHOPPER_FIELDS)[number];

/** One item row as typed. */
export interface ItemEntry {
  name: string;
  quantity: string;
  unitPrice: string;
  discount: string;
  /** The range the shopper may choose the quantity from (docs/rules.md, §Adjustable quantities); both empty: fixed. */
  minQuantity: string;
  maxQuantity: string;
}

/** One row of the shopper fields (one per field, in SHOPPER_FIELDS order); requirementType '' is not asked. */
export interface ShopperEntry {
  field: ShopperField;
  requirementType: string;
  prefilledValue: string;
}

/** What the create and edit forms hold, as typed. */
export interface LinkEntry {
  currency: string;
  description: string;
  culture: string;
  themeKey: string;
  returnUrl: string;
  /** expiresAt (create) or validUntil (edit), as a datetime-local value in UTC. */
  expiry: string;
  /** exactSalesCount (create) or maxSalesCount (edit). */
  salesCap: string;
  items: ItemEntry[];
  shopper: ShopperEntry[];
  completionMessage: string;
  inactiveMessage: string;
  termsUrl: string;
  customFields: CustomFieldEntry[];
  /** The payment page takes promotion codes (PayByLink). */
  allowPromotionCodes: boolean;
  /**
   * The payment page e-mails the shopper a receipt (PayByLink); null when the post did not carry the
   * form's box at all (its marker, EMAIL_RECEIPTS_SHOWN): an unticked box sends nothing, and only
   * the marker tells "turned off" from "not on the form".
   */
  emailReceipts: boolean | null;
}

/** A hidden field beside the receipts box: the form that posted had the box. */
export const EMAIL_RECEIPTS_SHOWN = 'emailReceiptsShown';

export interface CreateEntry extends LinkEntry {
  type: LinkType;
  terminalIdentifier: string;
  recurringProcessingModel: string;
}

/** The names of the fields that create and update call differently. */
export interface FieldNames {
  expiry: 'expiresAt' | 'validUntil';
  salesCap: 'exactSalesCount' | 'maxSalesCount';
  shopper: 'shopperInfo' | 'shopperInfos';
}

export const CREATE_NAMES: FieldNames = { expiry: 'expiresAt', salesCap: 'exactSalesCount', shopper: 'shopperInfo' };
export const UPDATE_NAMES: FieldNames = { expiry: 'validUntil', salesCap: 'maxSalesCount', shopper: 'shopperInfos' };

/** Empty rows a new form offers. */
export const NEW_ROWS = 3;
/** Rows read from a post at most (the API takes 200 items; a few more let it say so). */
const MAX_FORM_ROWS = 210;

export const blankItem = (): ItemEntry => ({ name: '', quantity: '1', unitPrice: '', discount: '', minQuantity: '', maxQuantity: '' });
const isBlankItem = (r: ItemEntry): boolean => r.name.trim() === '' && r.unitPrice.trim() === '' && r.discount.trim() === '';

/** A new link's form: its payment page starts in the language the portal's user reads. */
export function emptyEntry(lang: Lang): LinkEntry {
  return {
    currency: 'ISK',
    description: '',
    culture: lang,
    themeKey: '',
    returnUrl: '',
    expiry: '',
    salesCap: '',
    items: Array.from({ length: NEW_ROWS }, blankItem),
    shopper: SHOPPER_FIELDS.map((field) => ({ field, requirementType: '', prefilledValue: '' })),
    completionMessage: '',
    inactiveMessage: '',
    termsUrl: '',
    customFields: blankCustomFields(),
    allowPromotionCodes: false,
    emailReceipts: true,
  };
}

// ---------------------------------------------------------------- values

/** Minor units of an amount typed in major units ("489", "4.90", "4,90", "1 234"), or undefined when it is none. */
export function minorOf(text: string): number | undefined {
  const m = /^(-?)(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(text.replace(/[\s\u00a0]/g, ''));
  if (!m?.[2]) return undefined;
  const minor = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -minor : minor;
}

/** Minor units as the form shows them: 48900 → "489", 4990 → "49.90" ("49,90" in Icelandic). */
export function majorText(minor: number, lang: Lang): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const cents = abs % 100;
  const whole = String((abs - cents) / 100);
  return cents === 0 ? `${sign}${whole}` : `${sign}${whole}${lang === 'is' ? ',' : '.'}${String(cents).padStart(2, '0')}`;
}

/** A datetime-local value (UTC, as the portal shows times) as the API's timestamp; other text as typed, for the API's FORMAT error. */
export function timestampOf(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2}))?$/.exec(t);
  return m ? `${m[1]}T${m[2]}:${m[3] ?? '00'}Z` : t;
}

/** An API timestamp as a datetime-local value in UTC (to the minute, or the second when it has seconds). */
export function localInputOf(iso: string | null): string {
  if (iso === null) return '';
  const s = new Date(iso).toISOString();
  return s.slice(17, 23) === '00.000' ? s.slice(0, 16) : s.slice(0, 19);
}

// ---------------------------------------------------------------- reading a post

const ITEM_KEY = /^items\[(\d{1,3})\]\.(name|quantity|unitPrice|discount|minQuantity|maxQuantity)$/;

/** The item rows of a post, in their order (a row's inputs share its index). */
function itemEntriesOf(form: Form): ItemEntry[] {
  const rows = new Map<number, ItemEntry>();
  for (const name of form.names()) {
    const m = ITEM_KEY.exec(name);
    if (!m?.[1] || !m[2]) continue;
    const i = Number(m[1]);
    if (i >= MAX_FORM_ROWS) continue;
    let row = rows.get(i);
    if (!row) {
      row = { name: '', quantity: '', unitPrice: '', discount: '', minQuantity: '', maxQuantity: '' };
      rows.set(i, row);
    }
    row[m[2] as keyof ItemEntry] = form.text(name);
  }
  return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
}

export function entryOf(form: Form, names: FieldNames): LinkEntry {
  return {
    currency: form.text('currency'),
    description: form.text('description'),
    culture: form.text('culture'),
    themeKey: form.text('themeKey'),
    returnUrl: form.text('returnUrl'),
    expiry: form.text(names.expiry),
    salesCap: form.text(names.salesCap),
    items: itemEntriesOf(form),
    shopper: SHOPPER_FIELDS.map((field, i) => ({
      field,
      requirementType: form.text(`${names.shopper}[${i}].requirementType`),
      prefilledValue: form.text(`${names.shopper}[${i}].prefilledValue`),
    })),
    completionMessage: form.text('completionMessage'),
    inactiveMessage: form.text('inactiveMessage'),
    termsUrl: form.text('termsUrl'),
    customFields: customFieldEntriesOf(form),
    allowPromotionCodes: form.text('allowPromotionCodes') === 'on',
    emailReceipts: form.has(EMAIL_RECEIPTS_SHOWN) ? form.text('emailReceipts') === 'on' : null,
  };
}

export function createEntryOf(form: Form, type: LinkType): CreateEntry {
  return {
    ...entryOf(form, CREATE_NAMES),
    type,
    terminalIdentifier: form.text('terminalIdentifier'),
    recurringProcessingModel: form.text('recurringProcessingModel'),
  };
}

/** The edit form of a stored link, filled with what it holds. */
export function entryOfLink(link: PaymentLinkView, lang: Lang): LinkEntry {
  return {
    currency: link.currency,
    description: link.description,
    culture: link.culture,
    themeKey: link.themeKey ?? '',
    returnUrl: link.returnUrl ?? '',
    expiry: localInputOf(link.validUntil),
    salesCap: link.maxSalesCount === null ? '' : String(link.maxSalesCount),
    items: link.items.map((i) => ({
      name: i.name,
      quantity: String(i.quantity),
      unitPrice: majorText(i.unitPrice, lang),
      discount: i.amount === i.amountWithoutDiscount ? '' : majorText(i.amountWithoutDiscount - i.amount, lang),
      minQuantity: i.adjustableQuantity ? String(i.adjustableQuantity.minimum) : '',
      maxQuantity: i.adjustableQuantity ? String(i.adjustableQuantity.maximum) : '',
    })),
    shopper: SHOPPER_FIELDS.map((field) => {
      const s = link.shopperInfos.find((x) => x.field === field);
      return { field, requirementType: s?.requirementType ?? '', prefilledValue: s?.prefilledValue ?? '' };
    }),
    completionMessage: link.completionMessage ?? '',
    inactiveMessage: link.inactiveMessage ?? '',
    termsUrl: link.termsUrl ?? '',
    customFields: customFieldEntriesOfLink(link),
    allowPromotionCodes: link.allowPromotionCodes === true,
    emailReceipts: link.emailReceipts !== false,
  };
}

// ---------------------------------------------------------------- bodies, and the errors placed back

/** A body for the API, and how to put the API's errors on it beside the form's inputs. */
export interface Built {
  body: Record<string, unknown>;
  /** The form's errors: the portal's own (an amount it could not read) and the API's, placed. */
  place(apiErrors: readonly FieldError[]): FieldError[];
}

/** What went into the items of a body: the values the portal could not compute, by row. */
interface ItemsBuilt {
  items: Record<string, unknown>[];
  /** The link's amount, when every row's amount could be computed. */
  amount: number | undefined;
  unreadable: FieldError[];
  noGross: Set<number>;
  noAmount: Set<number>;
}

function itemsOf(rows: readonly ItemEntry[], lang: Lang): ItemsBuilt {
  const t = translator(M, lang);
  const out: ItemsBuilt = { items: [], amount: 0, unreadable: [], noGross: new Set(), noAmount: new Set() };
  const money = (text: string, field: string): number | string | undefined => {
    if (text.trim() === '') return undefined;
    const minor = minorOf(text);
    if (minor !== undefined) return minor;
    out.unreadable.push({ field, code: 'AMOUNT_FORMAT', message: t('amountFormat') });
    return text;
  };
  rows.forEach((r, i) => {
    const item: Record<string, unknown> = {};
    if (r.name.trim() !== '') item.name = r.name.trim();
    const quantity = wholeNumberOf(r.quantity);
    if (quantity !== undefined) item.quantity = quantity;
    const price = money(r.unitPrice, `items[${i}].unitPrice`);
    if (price !== undefined) item.unitPrice = price;
    const discount = r.discount.trim() === '' ? 0 : money(r.discount, `items[${i}].discount`);
    if (typeof quantity === 'number' && Number.isSafeInteger(quantity) && typeof price === 'number') {
      item.amountWithoutDiscount = price * quantity;
      if (typeof discount === 'number') item.amount = price * quantity - discount;
      else out.noAmount.add(i);
    } else {
      out.noGross.add(i);
      out.noAmount.add(i);
    }
    // The shopper's range: either input filled asks for one, and the service says what the other lacks.
    if (r.minQuantity.trim() !== '' || r.maxQuantity.trim() !== '') {
      const range: Record<string, unknown> = {};
      const minimum = wholeNumberOf(r.minQuantity);
      const maximum = wholeNumberOf(r.maxQuantity);
      if (minimum !== undefined) range.minimum = minimum;
      if (maximum !== undefined) range.maximum = maximum;
      item.adjustableQuantity = range;
    }
    if (typeof item.amount === 'number' && out.amount !== undefined) out.amount += item.amount;
    else out.amount = undefined;
    out.items.push(item);
  });
  return out;
}

function shopperInfosOf(rows: readonly ShopperEntry[]): { list: Record<string, unknown>[]; rowOf: number[] } {
  const list: Record<string, unknown>[] = [];
  const rowOf: number[] = [];
  rows.forEach((s, i) => {
    if (s.requirementType === '') return;
    list.push({ field: s.field, requirementType: s.requirementType, ...(s.prefilledValue !== '' ? { prefilledValue: s.prefilledValue } : {}) });
    rowOf.push(i);
  });
  return { list, rowOf };
}

/** The sentence of an error in the reader's language: the API's own in English (§Errors), a translation of its code in Icelandic. */
function sentence(e: FieldError, lang: Lang): string {
  if (lang === 'en') return e.message;
  const key = `err${e.code}`;
  if (key in CORE.is) return CORE.is[key as keyof typeof CORE.is];
  return CODE_IS[e.code] ?? e.message;
}

function placer(lang: Lang, shopperPrefix: string, rowOf: readonly number[], items: ItemsBuilt | null): Built['place'] {
  const t = translator(M, lang);
  const unreadable = new Set(items?.unreadable.map((e) => e.field) ?? []);
  return (apiErrors) => {
    const out: FieldError[] = [...(items?.unreadable ?? [])];
    for (const e of apiErrors) {
      // The portal's sentence about an amount it could not read says it; the API's type error on the raw text would repeat it.
      if (unreadable.has(e.field)) continue;
      const computed = /^items\[(\d+)\]\.(amount|amountWithoutDiscount)$/.exec(e.field);
      if (computed && items) {
        const i = Number(computed[1]);
        const line = computed[2] === 'amount';
        if ((line ? items.noAmount : items.noGross).has(i)) continue;
        // Said beside the input it was computed from, with what it is; the code is the portal's own,
        // so that the sentence is shown as written here.
        const message = t(line ? 'derivedLine' : 'derivedGross', { message: sentence(e, lang) });
        out.push({ field: `items[${i}].${line ? 'discount' : 'unitPrice'}`, code: 'COMPUTED', message });
        continue;
      }
      // The range's errors beside its two inputs; one about the range as a whole beside the first.
      const range = /^items\[(\d+)\]\.adjustableQuantity(?:\.(minimum|maximum))?$/.exec(e.field);
      if (range) {
        const input = range[2] === 'maximum' ? 'maxQuantity' : 'minQuantity';
        const placed = { ...e, field: `items[${range[1]}].${input}` };
        out.push(lang === 'is' && !(`err${e.code}` in CORE.is) && CODE_IS[e.code] ? { ...placed, message: sentence(e, lang) } : placed);
        continue;
      }
      if (e.field === 'amount' && items && (items.amount === undefined || items.items.length === 0)) continue;
      // An ISK total that does not end in 00 comes from the rows with a price or discount in part
      // krónur: said beside those inputs, in whole krónur, instead of under the total.
      if (e.field === 'amount' && e.code === 'NOT_MULTIPLE_OF_100' && items) {
        const inPart = (v: unknown): boolean => typeof v === 'number' && v % 100 !== 0;
        const parts = items.items.flatMap((item, i) => [
          ...(inPart(item.unitPrice) ? [`items[${i}].unitPrice`] : []),
          ...(typeof item.amountWithoutDiscount === 'number' && inPart(item.amountWithoutDiscount - Number(item.amount)) ? [`items[${i}].discount`] : []),
        ]);
        if (parts.length > 0) {
          for (const field of parts) out.push({ field, code: 'WHOLE_KRONUR', message: t('wholeKronur') });
          continue;
        }
      }
      const shopper = new RegExp(`^${shopperPrefix.replace(/[[\]]/g, '\\$&')}\\[(\\d+)\\](.*)$`).exec(e.field);
      const field = shopper ? `${shopperPrefix}[${rowOf[Number(shopper[1])] ?? shopper[1]}]${shopper[2] ?? ''}` : e.field;
      out.push(lang === 'is' && !(`err${e.code}` in CORE.is) && CODE_IS[e.code] ? { ...e, field, message: sentence(e, lang) } : { ...e, field });
    }
    const seen = new Set<string>();
    return out.filter((e) => {
      const key = `${e.field}|${e.code}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };
}

/** Puts the filled item rows on the body, with the amount they add up to when they say it. */
function putItems(body: Record<string, unknown>, rows: readonly ItemEntry[], lang: Lang): ItemsBuilt {
  const items = itemsOf(
    rows.filter((r) => !isBlankItem(r)),
    lang,
  );
  body.items = items.items;
  if (items.amount !== undefined) body.amount = items.amount;
  return items;
}

/** The link's messages and terms' address as the API takes them: an empty input is none (null). */
function textsOf(e: LinkEntry): Record<'completionMessage' | 'inactiveMessage' | 'termsUrl', string | null> {
  const value = (text: string): string | null => (text.trim() === '' ? null : text.trim());
  return { completionMessage: value(e.completionMessage), inactiveMessage: value(e.inactiveMessage), termsUrl: value(e.termsUrl) };
}

/** The body of Create Payment Link (§Creating a link) for what the create form holds. */
export function createBody(e: CreateEntry, lang: Lang): Built {
  const body: Record<string, unknown> = { type: e.type };
  if (e.terminalIdentifier !== '') body.terminalIdentifier = e.terminalIdentifier;
  if (e.currency !== '') body.currency = e.currency;
  if (e.description.trim() !== '') body.description = e.description.trim();
  if (e.culture !== '') body.culture = e.culture;
  if (e.themeKey.trim() !== '') body.themeKey = e.themeKey.trim();
  if (e.returnUrl.trim() !== '') body.returnUrl = e.returnUrl.trim();
  const expiresAt = timestampOf(e.expiry);
  if (expiresAt !== undefined) body.expiresAt = expiresAt;
  const cap = wholeNumberOf(e.salesCap);
  if (cap !== undefined) body.exactSalesCount = cap;
  const shopper = shopperInfosOf(e.shopper);
  if (shopper.list.length > 0) body.shopperInfo = shopper.list;
  for (const [key, value] of Object.entries(textsOf(e))) if (value !== null) body[key] = value;
  const custom = customFieldsBody(e.customFields);
  if (custom.list.length > 0) body.customFields = custom.list;
  let items: ItemsBuilt | null = null;
  if (e.type === 'PayByLink') {
    if (e.allowPromotionCodes) body.allowPromotionCodes = true;
    if (e.emailReceipts === false) body.emailReceipts = false;
    items = putItems(body, e.items, lang);
  } else {
    body.amount = 0;
    body.items = [];
    if (e.recurringProcessingModel !== '') body.recurringProcessingModel = e.recurringProcessingModel;
  }
  const place = placer(lang, CREATE_NAMES.shopper, shopper.rowOf, items);
  return { body, place: (apiErrors) => place(placeCustomFieldErrors(apiErrors, custom.rowOf)) };
}

/**
 * The body of Update Payment Link (§Updating a link): the link as the form holds it. Amount, currency
 * and items are sent only when the form had them (it has them while nothing is sold): the API then
 * decides, also about a sale made since the form was shown.
 */
export function updateBody(link: PaymentLinkView, e: LinkEntry, withMoney: boolean, lang: Lang): Built {
  const body: Record<string, unknown> = {
    paymentLinkReference: link.paymentLinkReference,
    description: e.description.trim(),
    themeKey: e.themeKey.trim() === '' ? null : e.themeKey.trim(),
    returnUrl: e.returnUrl.trim() === '' ? null : e.returnUrl.trim(),
  };
  if (e.culture !== '') body.culture = e.culture;
  // The form shows the expiry to the minute: shown back unchanged, it is the stored instant (which
  // may be past, on an expired link, and have seconds), not a new one.
  body.validUntil = e.expiry.trim() === '' ? null : e.expiry === localInputOf(link.validUntil) ? link.validUntil : timestampOf(e.expiry);
  body.maxSalesCount = wholeNumberOf(e.salesCap) ?? null;
  const shopper = shopperInfosOf(e.shopper);
  body.shopperInfos = shopper.list;
  Object.assign(body, textsOf(e));
  const custom = customFieldsBody(e.customFields);
  body.customFields = custom.list.length > 0 ? custom.list : null;
  // Sent only when it changes, so an edit that leaves it reads in the audit log as before.
  if (link.type === 'PayByLink' && e.allowPromotionCodes !== (link.allowPromotionCodes === true)) body.allowPromotionCodes = e.allowPromotionCodes;
  if (link.type === 'PayByLink' && e.emailReceipts !== null && e.emailReceipts !== (link.emailReceipts !== false)) body.emailReceipts = e.emailReceipts;
  let items: ItemsBuilt | null = null;
  if (withMoney) {
    if (e.currency !== '') body.currency = e.currency;
    if (link.type === 'PayByLink') {
      items = putItems(body, e.items, lang);
    }
  }
  const place = placer(lang, UPDATE_NAMES.shopper, shopper.rowOf, items);
  return { body, place: (apiErrors) => place(placeCustomFieldErrors(apiErrors, custom.rowOf)) };
}

/** The rows the form shows again: the filled ones (as the API numbered them), then empty ones up to `atLeast`. */
export function rowsToShow(rows: readonly ItemEntry[], atLeast: number): ItemEntry[] {
  const filled = rows.filter((r) => !isBlankItem(r));
  return [...filled, ...Array.from({ length: Math.max(atLeast - filled.length, filled.length === 0 ? 1 : 0) }, blankItem)];
}
