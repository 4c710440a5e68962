import type { Static } from 'typebox';
import type { Actor } from '../actor.js';
import type { Clock } from '../clock.js';
import { formatTimestamp } from '../clock.js';
import type { Config } from '../config.js';
import type { Sealer } from '../sealing.js';
import type { Database } from '../db/database.js';
import { withTransaction } from '../db/database.js';
import { BatchLoader, perDatabase } from '../db/batch.js';
import { keysetPage, type Keyset } from '../db/keyset.js';
import { ApiError, notFound, type FieldError } from '../errors.js';
import { newReference } from '../ids.js';
import { merchantHasTerminal } from '../accounts/service.js';
import { changedFields, recordAudit, type Audited } from '../audit/service.js';
import { idempotentCreate } from '../idempotency/service.js';
import { checkInput, schemaCheck } from '../validation.js';
import {
  createRuleErrors,
  descriptionError,
  failedFields,
  messagesAndTermsErrors,
  PROMOTION_CODES_PAY_ONLY,
  fieldErrors,
  isRecord,
  mergeErrors,
  moneyErrors,
  normalizeItems,
  normalizeShopperInfos,
  returnUrlError,
  shopperInfoErrors,
  timestampRule,
  type Item,
  type ShopperInfo,
} from './rules.js';
import { CreateBody, DisableBody, UpdateBody, type LinkStatus, type LinkType, type PaymentLinkSchema, type ListEntrySchema } from './schemas.js';
import * as sql from './sql.js';
import { TERMINAL_NOT_FOUND, isForeignTerminal, linkWriter } from './createBatch.js';
import { searchLinksShared } from './search.js';
import type { PaymentLinkRow } from './sql.js';
import { customFieldErrors, presentCustomField, storedCustomFields } from './customFields.js';

interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
  sealer: Sealer;
}

/** What a change of a link is given: the app's dependencies and who makes it. */
type WriteDeps = Deps & { actor: Actor };

export type PaymentLinkView = Static<typeof PaymentLinkSchema>;
type ListEntryView = Static<typeof ListEntrySchema>;

/** Where a link opens (§References and URLs). */
function linkUrl(config: Config, reference: string): string {
  return `${config.publicBaseUrl}/pay/${reference}`;
}

/**
 * Status is computed at read time from the stored facts and the clock (§Link status), in this precedence:
 * Disabled is final; a TokenizeByLink that tokenised is Completed; a link with all its sales made is
 * Used; one past validUntil is Expired (from the very instant validUntil is reached).
 */
export function linkStatus(
  link: Pick<PaymentLinkRow, 'disabledAt' | 'completedAt' | 'type' | 'salesCount' | 'maxSalesCount' | 'validUntil'>,
  now: Date,
): LinkStatus {
  if (link.disabledAt !== null) return 'Disabled';
  if (link.type === 'TokenizeByLink' && link.completedAt !== null) return 'Completed';
  if (link.maxSalesCount !== null && link.salesCount >= link.maxSalesCount) return 'Used';
  if (link.validUntil !== null && link.validUntil.getTime() <= now.getTime()) return 'Expired';
  return 'Active';
}

// ---------------------------------------------------------------- create

/** What Create Payment Link takes, once checked. */
type CreateLinkInput = Static<typeof CreateBody>;

/**
 * Every create rule at once (§Errors: all failing fields in one answer): the schema's errors, the rules
 * of §Creating a link, and the terminal's owner (§Authentication). Returns the input, normalised
 * (§Clients in the field) and now known to be valid but for the terminal's owner when nothing else
 * failed: that is left to the INSERT, which inserts a link only with a terminal of its merchant's
 * (and a key on (terminal, merchant), migration 0007, holds that in the database too), saving a round
 * trip per valid create (docs/performance.md). When something else failed, the owner is looked up so
 * that the one answer names every failing field.
 */
async function checkCreate(db: Database, merchantId: string, input: unknown, now: Date): Promise<CreateLinkInput> {
  const { value, errors: schemaErrors } = schemaCheck(CreateBody, input, { nullMeansAbsent: true });
  const errors = mergeErrors(schemaErrors, createRuleErrors(value, now, failedFields(schemaErrors)));
  if (errors.length === 0) return value as CreateLinkInput;
  if (isRecord(value) && typeof value.terminalIdentifier === 'string' && /^[A-Za-z0-9]{12}$/.test(value.terminalIdentifier)) {
    if (!(await merchantHasTerminal(db, merchantId, value.terminalIdentifier))) errors.push(TERMINAL_NOT_FOUND);
  }
  throw fieldErrors(errors);
}

/** The operation name under which create's Idempotency-Keys are kept (§Idempotent creates). */
export const CREATE_OPERATION = 'paymentlinks.create';

/**
 * Create Payment Link (§Creating a link), for every caller: the API, the portal's form and through the
 * API the CLI. The input is checked as a whole here (checkCreate); a failing one throws §Errors's
 * answer, naming every failing field.
 */
export async function createPaymentLink(
  deps: WriteDeps,
  merchantId: string,
  input: unknown,
  idempotencyKey: string | undefined,
): Promise<{ paymentLinkReference: string; url: string }> {
  const { config, db, clock } = deps;
  const body = await checkCreate(db, merchantId, input, clock.now());
  const newLink = (): sql.NewLink => ({
    reference: newReference('pl'),
    merchantId,
    terminalIdentifier: body.terminalIdentifier,
    type: body.type as LinkType,
    description: body.description ?? '',
    themeKey: body.themeKey ?? null,
    amount: body.amount,
    currency: body.currency,
    returnUrl: body.returnUrl ?? null,
    culture: body.culture ?? 'is',
    validUntil: body.expiresAt !== undefined ? new Date(body.expiresAt) : null,
    recurringProcessingModel: body.recurringProcessingModel ?? null,
    maxSalesCount: body.exactSalesCount ?? null,
    items: normalizeItems(body.items ?? []),
    shopperInfos: normalizeShopperInfos(body.shopperInfos ?? body.shopperInfo ?? []),
    completionMessage: body.completionMessage ?? null,
    inactiveMessage: body.inactiveMessage ?? null,
    termsUrl: body.termsUrl ?? null,
    customFields: storedCustomFields(body.customFields),
    allowPromotionCodes: body.allowPromotionCodes ?? false,
    emailReceipts: body.emailReceipts ?? true,
    createdAt: clock.now(),
  });
  const audited = (link: sql.NewLink): Audited => ({
    merchantId,
    action: 'link.create',
    target: link.reference,
    details: { type: link.type, amount: link.amount, currency: link.currency },
  });
  try {
    if (idempotencyKey === undefined) {
      // Without a key the create is one INSERT of the link and its audit entry; creates that arrive
      // together share it (docs/performance.md).
      const link = newLink();
      await linkWriter(db).write({ link, audit: { op: deps, entry: audited(link) } });
      return { paymentLinkReference: link.reference, url: linkUrl(config, link.reference) };
    }
    const { body: result } = await idempotentCreate(deps, { ownerId: merchantId, key: idempotencyKey, operation: CREATE_OPERATION, body }, async (q) => {
      const link = newLink();
      await sql.insertLink(q, link);
      await recordAudit(q, deps, audited(link));
      return { paymentLinkReference: link.reference, url: linkUrl(config, link.reference) };
    });
    return result;
  } catch (err) {
    if (isForeignTerminal(err)) throw fieldErrors([TERMINAL_NOT_FOUND]);
    throw err;
  }
}

// ---------------------------------------------------------------- read

function presentLink(config: Config, link: PaymentLinkRow, submissions: readonly sql.SubmissionRow[], now: Date): PaymentLinkView {
  return {
    terminalIdentifier: link.terminalIdentifier,
    themeKey: link.themeKey,
    paymentLinkReference: link.reference,
    description: link.description,
    amount: link.amount,
    currency: link.currency,
    returnUrl: link.returnUrl,
    status: linkStatus(link, now),
    culture: link.culture,
    type: link.type,
    url: linkUrl(config, link.reference),
    createdAt: formatTimestamp(link.createdAt),
    validUntil: link.validUntil ? formatTimestamp(link.validUntil) : null,
    recurringProcessingModel: link.recurringProcessingModel,
    visitCount: link.visitCount,
    salesCount: link.salesCount,
    maxSalesCount: link.maxSalesCount,
    items: normalizeItems(link.items),
    shopperInfos: normalizeShopperInfos(link.shopperInfos),
    submissions: submissions.map((s) => ({
      answers: s.answers.map((a) => ({ field: a.field, value: a.value })),
      completed: s.completed,
      amount: s.amount,
      currency: s.currency,
      token: s.token,
      payfacReference: s.payfacReference,
      ...(s.customFieldAnswers !== null && s.customFieldAnswers !== undefined
        ? { customFieldAnswers: s.customFieldAnswers.map((a) => ({ key: a.key, value: a.value })) }
        : {}),
      // Only when the link offered a choice of quantities: other submissions read as they always have.
      ...(s.chosenItems !== null && s.chosenItems !== undefined
        ? { items: s.chosenItems.map((c) => ({ name: c.name, quantity: c.quantity, amount: c.amount })) }
        : {}),
    })),
    // Only when set, so that a link made without them reads byte for byte as it always has.
    ...(link.completionMessage !== null ? { completionMessage: link.completionMessage } : {}),
    ...(link.inactiveMessage !== null ? { inactiveMessage: link.inactiveMessage } : {}),
    ...(link.termsUrl !== null ? { termsUrl: link.termsUrl } : {}),
    ...(link.customFields !== null ? { customFields: link.customFields.map(presentCustomField) } : {}),
    ...(link.allowPromotionCodes ? { allowPromotionCodes: true as const } : {}),
    ...(link.emailReceipts ? {} : { emailReceipts: false as const }),
  };
}

/** Details of links asked for together are read in one query (docs/performance.md; see BatchLoader). */
const detailLoader = perDatabase(
  (db: Database) =>
    new BatchLoader<string, sql.LinkWithSubmissions>(
      async (references) => new Map((await sql.findLinksWithSubmissions(db.pool, references)).map((l) => [l.reference, l])),
    ),
);

export async function getPaymentLink(deps: Deps, merchantId: string, reference: string): Promise<PaymentLinkView> {
  const link = await detailLoader(deps.db).get(reference);
  // Another merchant's link is not found (§Authentication).
  if (!link || link.merchantId !== merchantId) throw notFound('payment link');
  return presentLink(deps.config, link, link.submissions, deps.clock.now());
}

export async function listPaymentLinks(deps: Deps, merchantId: string, page: number, pageSize: number): Promise<{ data: ListEntryView[]; totalCount: number }> {
  const { rows, totalCount } = await sql.listLinks(deps.db.pool, merchantId, pageSize, page * pageSize);
  return {
    data: rows.map((r) => ({
      paymentLinkReference: r.paymentLinkReference,
      description: r.description,
      amount: r.amount,
      currency: r.currency,
      type: r.type,
      createdAt: r.createdAt,
    })),
    totalCount,
  };
}

// ---------------------------------------------------------------- the portal's list (§The portal)

/** A link in a list: enough to show its status, price and sales. */
export interface LinkSummary {
  paymentLinkReference: string;
  description: string;
  amount: number;
  currency: string;
  type: LinkType;
  status: LinkStatus;
  salesCount: number;
  maxSalesCount: number | null;
  validUntil: Date | null;
  createdAt: Date;
}

function summaryOf(r: sql.LinkSummaryRow, now: Date): LinkSummary {
  return {
    paymentLinkReference: r.reference,
    description: r.description,
    amount: r.amount,
    currency: r.currency,
    type: r.type,
    status: linkStatus(r, now),
    salesCount: r.salesCount,
    maxSalesCount: r.maxSalesCount,
    validUntil: r.validUntil,
    createdAt: r.createdAt,
  };
}

/** A page of all the merchant's links by number (§Lists order), with their total. */
export async function listLinkSummaries(
  deps: Pick<Deps, 'db' | 'clock'>,
  merchantId: string,
  page: number,
  pageSize: number,
): Promise<{ links: LinkSummary[]; totalCount: number }> {
  const { rows, totalCount } = await sql.linkSummaryPage(deps.db.pool, merchantId, pageSize, page * pageSize);
  const now = deps.clock.now();
  return { links: rows.map((r) => summaryOf(r, now)), totalCount };
}

interface LinkSearch {
  status: LinkStatus | null;
  /** A piece of the description (any case), or a whole reference. */
  text: string | null;
}

/**
 * The merchant's links with a status and/or a text, a page at a time by keyset (newer and older from
 * a cursor), without a total. The unfiltered list has its total for free (a count kept by triggers);
 * a filtered one has none kept, and counting the matches would read every one of a merchant's links
 * on every request (200,000 rows at the size docs/performance.md plans for), while a keyset page
 * reads the index only until it has a page full of matches.
 */
export async function searchPaymentLinks(
  deps: Pick<Deps, 'db' | 'clock'>,
  merchantId: string,
  search: LinkSearch,
  keyset: Keyset | null,
  pageSize: number,
): Promise<{ links: LinkSummary[]; older: string | null; newer: string | null }> {
  const now = deps.clock.now();
  const rows = await searchLinksShared(deps.db, { merchantId, status: search.status, text: search.text, now, keyset, limit: pageSize + 1 });
  const page = keysetPage(rows, pageSize, keyset);
  return { links: page.rows.map((r) => summaryOf(r, now)), older: page.older, newer: page.newer };
}

// ---------------------------------------------------------------- update (§Updating a link) and disable (§Disabling a link)

/** Throws when the caller may not change a link of this type (the route knows the key's capabilities). */
type TypeGuard = (type: LinkType) => void;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const sameItems = (a: readonly Item[], b: readonly Item[]) => JSON.stringify(normalizeItems(a)) === JSON.stringify(normalizeItems(b));

/**
 * Update Payment Link (§Updating a link), for every caller: the input is checked here, its schema and
 * the rules against the stored link together. It is applied under a row lock, so that a sale or
 * another update committing meanwhile is decided on, not overwritten: the checks read the locked row,
 * and the write happens before the lock is released. Every failing field is reported at once, and a
 * rejected update writes nothing.
 */
export async function updatePaymentLink(deps: WriteDeps, merchantId: string, input: unknown, guard: TypeGuard): Promise<void> {
  const { value: body, errors: schemaErrors } = schemaCheck(UpdateBody, input, { nullMeansAbsent: false });
  if (!isRecord(body) || typeof body.paymentLinkReference !== 'string' || schemaErrors.some((e) => e.field === 'paymentLinkReference')) {
    throw fieldErrors(schemaErrors.length > 0 ? schemaErrors : [{ field: 'paymentLinkReference', code: 'REQUIRED', message: 'is required' }]);
  }
  const reference = body.paymentLinkReference;
  const { config, db, clock } = deps;
  await withTransaction(db, async (tx) => {
    const link = await sql.lockLink(tx, merchantId, reference);
    if (!link) throw notFound('payment link');
    guard(link.type);
    const now = clock.now();
    const before = linkStatus(link, now);
    if (before === 'Disabled' || before === 'Completed') {
      throw new ApiError('INVALID_STATE', `a ${before} payment link cannot be updated`);
    }
    const errors: FieldError[] = [...schemaErrors];
    const immutable = (field: string, why = 'cannot be changed') => errors.push({ field, code: 'IMMUTABLE', message: why });

    // Never mutable: may be sent back as read, but not changed.
    if (typeof body.terminalIdentifier === 'string' && body.terminalIdentifier !== link.terminalIdentifier) immutable('terminalIdentifier');
    if (typeof body.type === 'string' && body.type !== link.type) immutable('type');
    if (typeof body.url === 'string' && body.url !== linkUrl(config, link.reference)) immutable('url');
    if (typeof body.createdAt === 'string') {
      const ms = Date.parse(body.createdAt);
      if (Number.isNaN(ms)) errors.push({ field: 'createdAt', code: 'FORMAT', message: 'must be an ISO 8601 timestamp' });
      else if (ms !== link.createdAt.getTime()) immutable('createdAt');
    }
    if (isInt(body.visitCount) && body.visitCount !== link.visitCount) immutable('visitCount');
    if (isInt(body.salesCount) && body.salesCount !== link.salesCount) immutable('salesCount');
    if (
      (typeof body.recurringProcessingModel === 'string' || body.recurringProcessingModel === null) &&
      body.recurringProcessingModel !== link.recurringProcessingModel
    ) {
      immutable('recurringProcessingModel');
    }

    // Mutable while Active, Expired or Used; left out keeps, null clears.
    // A description stored before its rule may be sent back as read; a new one is checked.
    if (typeof body.description === 'string' && body.description !== link.description) {
      const bad = descriptionError(body.description, failedFields(schemaErrors));
      if (bad) errors.push(bad);
    }
    const next: sql.LinkChanges = {
      description: typeof body.description === 'string' ? body.description : link.description,
      themeKey: typeof body.themeKey === 'string' || body.themeKey === null ? body.themeKey : link.themeKey,
      returnUrl: link.returnUrl,
      culture: typeof body.culture === 'string' ? body.culture : link.culture,
      validUntil: link.validUntil,
      maxSalesCount: link.maxSalesCount,
      shopperInfos: link.shopperInfos,
      amount: link.amount,
      currency: link.currency,
      items: link.items,
      completionMessage: link.completionMessage,
      inactiveMessage: link.inactiveMessage,
      termsUrl: link.termsUrl,
      customFields: link.customFields,
      allowPromotionCodes: link.allowPromotionCodes,
      emailReceipts: link.emailReceipts,
    };
    if (body.returnUrl === null) next.returnUrl = null;
    else if (typeof body.returnUrl === 'string' && body.returnUrl !== link.returnUrl) {
      const bad = returnUrlError(body.returnUrl);
      if (bad) errors.push(bad);
      next.returnUrl = body.returnUrl;
    }
    if (body.validUntil === null) next.validUntil = null;
    else if (typeof body.validUntil === 'string' && Date.parse(body.validUntil) !== link.validUntil?.getTime()) {
      // A new expiry must lie ahead (as expiresAt does on create); sending the stored one back is no change.
      const t = timestampRule(body.validUntil, 'validUntil', { now, future: true });
      errors.push(...t.errors);
      if (t.at) next.validUntil = t.at;
    }
    if (body.maxSalesCount === null) next.maxSalesCount = null;
    else if (isInt(body.maxSalesCount) && body.maxSalesCount !== link.maxSalesCount) {
      if (body.maxSalesCount < link.salesCount) {
        errors.push({ field: 'maxSalesCount', code: 'RANGE', message: `cannot be below salesCount (${link.salesCount})` });
      }
      next.maxSalesCount = body.maxSalesCount;
    }
    // The messages and the terms' address: left out keeps, null clears, and a value sent back as read is no change.
    const texts: Record<string, unknown> = {};
    for (const field of ['completionMessage', 'inactiveMessage', 'termsUrl'] as const) {
      const v = body[field];
      if (v === null) next[field] = null;
      else if (typeof v === 'string' && v !== link[field]) {
        texts[field] = v;
        next[field] = v;
      }
    }
    errors.push(...messagesAndTermsErrors(texts, failedFields(schemaErrors)));
    // The custom fields: a list replaces the link's (a read one sent back is the same list), null or [] clears.
    if (body.customFields === null) next.customFields = null;
    else if (Array.isArray(body.customFields)) {
      errors.push(...customFieldErrors(body.customFields, failedFields(schemaErrors)));
      next.customFields = storedCustomFields(body.customFields as unknown as Record<string, unknown>[]);
    }
    if (typeof body.allowPromotionCodes === 'boolean' && body.allowPromotionCodes !== link.allowPromotionCodes) {
      if (body.allowPromotionCodes && link.type === 'TokenizeByLink') errors.push({ ...PROMOTION_CODES_PAY_ONLY });
      next.allowPromotionCodes = body.allowPromotionCodes;
    }
    if (typeof body.emailReceipts === 'boolean') next.emailReceipts = body.emailReceipts;
    if (Array.isArray(body.shopperInfos)) {
      errors.push(...shopperInfoErrors(body.shopperInfos, 'shopperInfos', failedFields(schemaErrors)));
      // Entries of the wrong shape have a schema error already, so this value is never written.
      next.shopperInfos = normalizeShopperInfos(body.shopperInfos as unknown as ShopperInfo[]);
    }

    // Mutable only before the first sale; then checked again as a whole, as on create.
    const changed: string[] = [];
    if (isInt(body.amount) && body.amount !== link.amount) {
      changed.push('amount');
      next.amount = body.amount;
    }
    if (typeof body.currency === 'string' && body.currency !== link.currency) {
      changed.push('currency');
      next.currency = body.currency;
    }
    if (Array.isArray(body.items) && !(body.items.every(isRecord) && sameItems(body.items as unknown as Item[], link.items))) {
      changed.push('items');
      next.items = body.items as unknown as Item[];
    }
    if (changed.length > 0 && link.salesCount > 0) {
      for (const f of changed) immutable(f, `can change only while salesCount is 0 (it is ${link.salesCount})`);
    } else if (changed.length > 0) {
      errors.push(...moneyErrors({ type: link.type, amount: next.amount, currency: next.currency, items: next.items }, failedFields(schemaErrors)));
    }

    // Status changes only through §Link status; sending the status the link has (before or after) is fine.
    if (typeof body.status === 'string') {
      const after = linkStatus({ ...link, validUntil: next.validUntil, maxSalesCount: next.maxSalesCount }, now);
      if (body.status !== before && body.status !== after)
        immutable('status', 'changes only by Disable, or as validUntil, maxSalesCount and the sales made decide');
    }

    const all = mergeErrors(errors);
    if (all.length > 0) throw fieldErrors(all);
    const stored = { ...next, items: normalizeItems(next.items) };
    await sql.updateLink(tx, reference, stored, now);
    // The fields whose values changed, by name (the values stay out of the audit log); nothing changed, nothing recorded.
    const was = { ...link, items: normalizeItems(link.items), shopperInfos: normalizeShopperInfos(link.shopperInfos) };
    const touched = changedFields(Object.keys(stored) as (keyof sql.LinkChanges)[], was, stored);
    if (touched.length > 0) await recordAudit(tx, deps, { merchantId, action: 'link.update', target: reference, details: { changed: touched } });
  });
}

/** Disable Payment Link (§Disabling a link): its input is `{ paymentLinkReference }`. */
export async function disablePaymentLink(deps: WriteDeps, merchantId: string, input: unknown, guard: TypeGuard): Promise<void> {
  const reference = checkInput(DisableBody, input, { nullMeansAbsent: false }).paymentLinkReference;
  await withTransaction(deps.db, async (tx) => {
    const link = await sql.lockLink(tx, merchantId, reference);
    if (!link) throw notFound('payment link');
    guard(link.type);
    await sql.disableLink(tx, reference, deps.clock.now());
    // Disabling a Disabled link succeeds again and changes nothing: nothing to record.
    if (link.disabledAt === null) await recordAudit(tx, deps, { merchantId, action: 'link.disable', target: reference });
  });
}
