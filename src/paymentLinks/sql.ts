import { anyOfArray, type Queryable } from '../db/database.js';
import type { CustomField, CustomFieldAnswer } from './customFields.js';
import type { Item, ShopperInfo } from './rules.js';
import type { LinkType } from './schemas.js';
import { cursorTimeSql, type Keyset } from '../db/keyset.js';

// Every query of the payment links module (docs/style.md, SQL takes a client): values go in as $n parameters only.

export interface PaymentLinkRow {
  reference: string;
  merchantId: string;
  terminalIdentifier: string;
  type: LinkType;
  description: string;
  themeKey: string | null;
  amount: number;
  currency: string;
  returnUrl: string | null;
  culture: string;
  validUntil: Date | null;
  recurringProcessingModel: string | null;
  visitCount: number;
  salesCount: number;
  maxSalesCount: number | null;
  items: Item[];
  shopperInfos: ShopperInfo[];
  completionMessage: string | null;
  inactiveMessage: string | null;
  termsUrl: string | null;
  /** Null: the link asks for none (docs/api.md, Custom fields). */
  customFields: CustomField[] | null;
  allowPromotionCodes: boolean;
  /** Whether the link's pages e-mail the shopper a receipt (docs/mail.md); true unless turned off. */
  emailReceipts: boolean;
  disabledAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
}

export interface SubmissionRow {
  answers: { field: string; value: string }[];
  completed: boolean;
  amount: number;
  currency: string;
  token: string | null;
  payfacReference: string | null;
  /** The answers to the link's custom fields; null when the link asked for none at the payment. */
  customFieldAnswers: CustomFieldAnswer[] | null;
  /** docs/rules.md, §Adjustable quantities: the items at the quantities chosen; null when the link offered no choice. */
  chosenItems: ChosenItem[] | null;
}

/** An item at the quantity the shopper chose, and its amount at it. */
export interface ChosenItem {
  name: string;
  quantity: number;
  amount: number;
}

/** Each column of a link and the name it has in PaymentLinkRow: the one list every query reads. */
const LINK_FIELDS: readonly (readonly [column: string, field: keyof PaymentLinkRow])[] = [
  ['reference', 'reference'],
  ['merchant_id', 'merchantId'],
  ['terminal_identifier', 'terminalIdentifier'],
  ['type', 'type'],
  ['description', 'description'],
  ['theme_key', 'themeKey'],
  ['amount', 'amount'],
  ['currency', 'currency'],
  ['return_url', 'returnUrl'],
  ['culture', 'culture'],
  ['valid_until', 'validUntil'],
  ['recurring_processing_model', 'recurringProcessingModel'],
  ['visit_count', 'visitCount'],
  ['sales_count', 'salesCount'],
  ['max_sales_count', 'maxSalesCount'],
  ['items', 'items'],
  ['shopper_infos', 'shopperInfos'],
  ['completion_message', 'completionMessage'],
  ['inactive_message', 'inactiveMessage'],
  ['terms_url', 'termsUrl'],
  ['custom_fields', 'customFields'],
  ['allow_promotion_codes', 'allowPromotionCodes'],
  ['email_receipts', 'emailReceipts'],
  ['disabled_at', 'disabledAt'],
  ['completed_at', 'completedAt'],
  ['created_at', 'createdAt'],
];

/** The select list of a link, its columns taken from `alias` when the query names several tables. */
function linkColumns(alias?: string): string {
  return LINK_FIELDS.map(([column, field]) => `${alias ? `${alias}.` : ''}${column} AS "${field}"`).join(', ');
}

const LINK_COLUMNS = linkColumns();

/** A new link: the stored facts less the counters and moments that only later events set. */
export type NewLink = Omit<PaymentLinkRow, 'visitCount' | 'salesCount' | 'disabledAt' | 'completedAt'>;

export async function insertLink(db: Queryable, l: NewLink): Promise<void> {
  await db.query(
    `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, description, theme_key, amount, currency,
       return_url, culture, valid_until, recurring_processing_model, max_sales_count, items, shopper_infos, created_at, updated_at,
       completion_message, inactive_message, terms_url, custom_fields, allow_promotion_codes, email_receipts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16, $17, $18, $19, $20, $21, $22)`,
    [
      l.reference,
      l.merchantId,
      l.terminalIdentifier,
      l.type,
      l.description,
      l.themeKey,
      l.amount,
      l.currency,
      l.returnUrl,
      l.culture,
      l.validUntil,
      l.recurringProcessingModel,
      l.maxSalesCount,
      JSON.stringify(l.items),
      JSON.stringify(l.shopperInfos),
      l.createdAt,
      l.completionMessage,
      l.inactiveMessage,
      l.termsUrl,
      l.customFields === null ? null : JSON.stringify(l.customFields),
      l.allowPromotionCodes,
      l.emailReceipts,
    ],
  );
}

/**
 * Several new links in one statement, so one commit (docs/performance.md: creates that arrive together share a
 * round trip and a WAL flush), and their audit entries with them (`audit`, the audit module's CTE,
 * writes the entries of the links inserted). Only links whose terminal is their merchant's are
 * inserted (§Authentication), with their entries; the references of the others are returned, so that
 * one create naming another merchant's terminal fails alone instead of failing the statement for
 * every create batched with it.
 */
export async function insertLinks(
  db: Queryable,
  links: readonly NewLink[],
  audit: { sql(param: string, rows: string, column: string): string; value: string },
): Promise<{ foreignTerminal: string[] }> {
  const { rows } = await db.query<{ reference: string }>({
    name: 'paymentLinks.insertLinks',
    text: `WITH x AS (
             SELECT * FROM json_to_recordset($1::json) AS x(reference text, "merchantId" text, "terminalIdentifier" text, type text, description text,
                  "themeKey" text, amount bigint, currency text, "returnUrl" text, culture text, "validUntil" timestamptz,
                  "recurringProcessingModel" text, "maxSalesCount" bigint, items jsonb, "shopperInfos" jsonb, "createdAt" timestamptz,
                  "completionMessage" text, "inactiveMessage" text, "termsUrl" text, "customFields" jsonb, "allowPromotionCodes" boolean,
                  "emailReceipts" boolean)
           ), ins AS (
             INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, description, theme_key, amount, currency,
               return_url, culture, valid_until, recurring_processing_model, max_sales_count, items, shopper_infos, created_at, updated_at,
               completion_message, inactive_message, terms_url, custom_fields, allow_promotion_codes, email_receipts)
             SELECT x.reference, x."merchantId", x."terminalIdentifier", x.type, x.description, x."themeKey", x.amount, x.currency,
                    x."returnUrl", x.culture, x."validUntil", x."recurringProcessingModel", x."maxSalesCount", x.items, x."shopperInfos", x."createdAt", x."createdAt",
                    x."completionMessage", x."inactiveMessage", x."termsUrl", x."customFields", coalesce(x."allowPromotionCodes", false),
                    coalesce(x."emailReceipts", true)
               FROM x JOIN terminals t ON t.terminal_identifier = x."terminalIdentifier" AND t.merchant_id = x."merchantId"
             RETURNING reference
           ), audited AS (${audit.sql('$2', 'ins', 'reference')})
           SELECT x.reference FROM x WHERE x.reference NOT IN (SELECT reference FROM ins)`,
    values: [JSON.stringify(links), audit.value],
  });
  return { foreignTerminal: rows.map((r) => r.reference) };
}

/** A merchant's link, row-locked until the caller's transaction ends (§Updating a link); another merchant's is not found (§Authentication). */
export async function lockLink(db: Queryable, merchantId: string, reference: string): Promise<PaymentLinkRow | undefined> {
  const { rows } = await db.query<PaymentLinkRow>(`SELECT ${LINK_COLUMNS} FROM payment_links WHERE reference = $1 AND merchant_id = $2 FOR UPDATE`, [
    reference,
    merchantId,
  ]);
  return rows[0];
}

export interface LinkChanges {
  description: string;
  themeKey: string | null;
  returnUrl: string | null;
  culture: string;
  validUntil: Date | null;
  maxSalesCount: number | null;
  shopperInfos: ShopperInfo[];
  amount: number;
  currency: string;
  items: Item[];
  completionMessage: string | null;
  inactiveMessage: string | null;
  termsUrl: string | null;
  customFields: CustomField[] | null;
  allowPromotionCodes: boolean;
  emailReceipts: boolean;
}

export async function updateLink(db: Queryable, reference: string, c: LinkChanges, now: Date): Promise<void> {
  await db.query(
    `UPDATE payment_links SET description = $2, theme_key = $3, return_url = $4, culture = $5, valid_until = $6,
       max_sales_count = $7, shopper_infos = $8, amount = $9, currency = $10, items = $11, updated_at = $12,
       completion_message = $13, inactive_message = $14, terms_url = $15, custom_fields = $16,
       allow_promotion_codes = $17, email_receipts = $18
     WHERE reference = $1`,
    [
      reference,
      c.description,
      c.themeKey,
      c.returnUrl,
      c.culture,
      c.validUntil,
      c.maxSalesCount,
      JSON.stringify(c.shopperInfos),
      c.amount,
      c.currency,
      JSON.stringify(c.items),
      now,
      c.completionMessage,
      c.inactiveMessage,
      c.termsUrl,
      c.customFields === null ? null : JSON.stringify(c.customFields),
      c.allowPromotionCodes,
      c.emailReceipts,
    ],
  );
}

/** Disable is idempotent (§Disabling a link): the first disabling time is kept. */
export async function disableLink(db: Queryable, reference: string, now: Date): Promise<void> {
  await db.query('UPDATE payment_links SET disabled_at = COALESCE(disabled_at, $2), updated_at = $2 WHERE reference = $1', [reference, now]);
}

interface ListEntryRow {
  paymentLinkReference: string;
  description: string;
  amount: number;
  currency: string;
  type: LinkType;
  /** Already in the §Timestamps and identifiers form (ISO 8601 UTC with milliseconds): 100 dates parsed and formatted again cost a third of a page (docs/performance.md). */
  createdAt: string;
}

/**
 * The text of a page of a merchant's links with its total: `columns` (fixed text) of one page, newest
 * first, then by reference so that links created in the same instant keep one order (§Lists), with
 * the merchant's count from the same snapshot, in one round trip. The count is kept by triggers
 * (migration 0006) rather than counted. A page past the end has no rows but still the count.
 */
function pageWithTotalText(columns: string): string {
  return `SELECT c.n AS "totalCount", l.*
             FROM (SELECT COALESCE((SELECT links FROM merchant_link_counts WHERE merchant_id = $1), 0) AS n) c
             LEFT JOIN LATERAL (
               SELECT ${columns}
                 FROM payment_links WHERE merchant_id = $1
                ORDER BY created_at DESC, reference DESC
                LIMIT $2 OFFSET $3) l ON true`;
}

async function pageWithTotal<R extends object>(
  db: Queryable,
  name: string,
  text: string,
  key: keyof R,
  merchantId: string,
  limit: number,
  offset: number,
): Promise<{ rows: R[]; totalCount: number }> {
  const { rows } = await db.query<Partial<R> & { totalCount: number }>({ name, text, values: [merchantId, limit, offset] });
  return {
    totalCount: rows[0]?.totalCount ?? 0,
    // The one row of a page past the end carries the count and nulls.
    rows: rows.filter((r) => r[key] !== undefined && r[key] !== null) as unknown as R[],
  };
}

const LIST_TEXT = pageWithTotalText(`reference AS "paymentLinkReference", description, amount, currency, type,
                      to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"`);

/** One page of Get Payment Links (§Lists) and the merchant's totalCount. */
export async function listLinks(db: Queryable, merchantId: string, limit: number, offset: number): Promise<{ rows: ListEntryRow[]; totalCount: number }> {
  return pageWithTotal<ListEntryRow>(db, 'paymentLinks.listLinks', LIST_TEXT, 'paymentLinkReference', merchantId, limit, offset);
}

export type LinkWithSubmissions = PaymentLinkRow & { submissions: SubmissionRow[] };

/**
 * Links with their submissions in one round trip (details, 4.2): a GET is the hottest read, so the
 * GETs that arrive together are read by one query (docs/performance.md), and a second query per link for its
 * submissions cost about a third of the throughput. The caller checks the merchant (§Authentication).
 */
export async function findLinksWithSubmissions(db: Queryable, references: readonly string[]): Promise<LinkWithSubmissions[]> {
  const { rows } = await db.query<LinkWithSubmissions>({
    name: 'paymentLinks.findLinksWithSubmissions',
    text: `SELECT ${LINK_COLUMNS},
            COALESCE((SELECT json_agg(json_build_object(
                        'answers', s.answers, 'completed', s.completed, 'amount', s.amount, 'currency', s.currency,
                        'token', s.token, 'payfacReference', s.payfac_reference, 'customFieldAnswers', s.custom_field_answers,
                        'chosenItems', s.chosen_items) ORDER BY s.created_at, s.id)
                        FROM payment_link_submissions s WHERE s.payment_link_reference = payment_links.reference), '[]') AS submissions
       FROM payment_links WHERE reference = ${anyOfArray('$1::text[]')}`,
    values: [references],
  });
  return rows;
}

export async function insertSubmission(db: Queryable, s: SubmissionRow & { id: string; paymentLinkReference: string; createdAt: Date }): Promise<void> {
  await db.query(
    `INSERT INTO payment_link_submissions (id, payment_link_reference, answers, completed, amount, currency, token, payfac_reference, created_at,
       custom_field_answers, chosen_items)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      s.id,
      s.paymentLinkReference,
      JSON.stringify(s.answers),
      s.completed,
      s.amount,
      s.currency,
      s.token,
      s.payfacReference,
      s.createdAt,
      s.customFieldAnswers === null ? null : JSON.stringify(s.customFieldAnswers),
      s.chosenItems === null ? null : JSON.stringify(s.chosenItems),
    ],
  );
}

// ---------------------------------------------------------------- the shopper's side of a link

/** A link as its page shows it: the link and its merchant's name. */
export interface LinkForPage extends PaymentLinkRow {
  merchantName: string;
}

const PAGE_COLUMNS = `${linkColumns('l')}, m.name AS "merchantName"`;

/**
 * Page views of several links, `views[i]` of `references[i]`, counted by one statement (views that
 * arrive together share a round trip and a commit), and the links as the pages show them.
 */
export async function countLinkVisits(db: Queryable, references: readonly string[], views: readonly number[]): Promise<LinkForPage[]> {
  const { rows } = await db.query<LinkForPage>({
    name: 'paymentLinks.countLinkVisits',
    // The rows are locked in reference order before the UPDATE: two batches holding the same links
    // in different orders would otherwise deadlock.
    text: `WITH v AS (SELECT * FROM unnest($1::text[], $2::bigint[]) AS v(reference, n)),
                k AS (SELECT p.reference FROM payment_links p JOIN v ON v.reference = p.reference ORDER BY p.reference FOR NO KEY UPDATE OF p),
                l AS (UPDATE payment_links p SET visit_count = p.visit_count + v.n FROM v, k
                       WHERE p.reference = v.reference AND k.reference = v.reference RETURNING p.*)
           SELECT ${PAGE_COLUMNS} FROM l JOIN merchants m ON m.id = l.merchant_id`,
    values: [references, views],
  });
  return rows;
}

/** The link without counting a view (a form post re-rendering the page). */
export async function findLinkForPage(db: Queryable, reference: string): Promise<LinkForPage | undefined> {
  const { rows } = await db.query<LinkForPage>(`SELECT ${PAGE_COLUMNS} FROM payment_links l JOIN merchants m ON m.id = l.merchant_id WHERE l.reference = $1`, [
    reference,
  ]);
  return rows[0];
}

/**
 * The link row locked for one payment: concurrent shoppers on the same link queue here, and each
 * decides on the salesCount its predecessor committed, so no sale goes past maxSalesCount.
 */
export async function lockLinkForPayment(db: Queryable, reference: string): Promise<LinkForPage | undefined> {
  const { rows } = await db.query<LinkForPage>(
    `SELECT ${PAGE_COLUMNS} FROM payment_links l JOIN merchants m ON m.id = l.merchant_id WHERE l.reference = $1 FOR UPDATE OF l`,
    [reference],
  );
  return rows[0];
}

export async function recordLinkSale(db: Queryable, reference: string, now: Date): Promise<void> {
  await db.query('UPDATE payment_links SET sales_count = sales_count + 1, updated_at = $2 WHERE reference = $1', [reference, now]);
}

export async function completeTokenizeLink(db: Queryable, reference: string, now: Date): Promise<void> {
  await db.query('UPDATE payment_links SET completed_at = $2, updated_at = $2 WHERE reference = $1 AND completed_at IS NULL', [reference, now]);
}

// ---------------------------------------------------------------- the portal's list of links

/** A link as a list shows it: what its status is computed from, and (from a search) its place in the order. */
export interface LinkSummaryRow {
  reference: string;
  description: string;
  amount: number;
  currency: string;
  type: LinkType;
  salesCount: number;
  maxSalesCount: number | null;
  validUntil: Date | null;
  disabledAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
}

// A list page is read on every visit of the portal's busiest page: only what it shows is read.
const SUMMARY_COLUMNS = `reference, description, amount, currency, type, sales_count AS "salesCount", max_sales_count AS "maxSalesCount",
  valid_until AS "validUntil", disabled_at AS "disabledAt", completed_at AS "completedAt", created_at AS "createdAt"`;

const SUMMARY_PAGE_TEXT = pageWithTotalText(SUMMARY_COLUMNS);

/** One page of the merchant's links by page number for the portal's list, and the merchant's total (as listLinks). */
export async function linkSummaryPage(
  db: Queryable,
  merchantId: string,
  limit: number,
  offset: number,
): Promise<{ rows: LinkSummaryRow[]; totalCount: number }> {
  return pageWithTotal<LinkSummaryRow>(db, 'paymentLinks.linkSummaryPage', SUMMARY_PAGE_TEXT, 'reference', merchantId, limit, offset);
}

/**
 * A link's status in SQL, for filtering by it: the same precedence as linkStatus in service.ts
 * (§Link status), which decides the status every page shows; the portal's tests hold the two together
 * on a link of every status. `now` names the parameter holding the clock's time.
 */
function statusSql(now: string): string {
  return `CASE WHEN disabled_at IS NOT NULL THEN 'Disabled'
               WHEN type = 'TokenizeByLink' AND completed_at IS NOT NULL THEN 'Completed'
               WHEN max_sales_count IS NOT NULL AND sales_count >= max_sales_count THEN 'Used'
               WHEN valid_until IS NOT NULL AND valid_until <= ${now} THEN 'Expired'
               ELSE 'Active' END`;
}

/**
 * Whether pg_trgm takes a trigram from the text inside a LIKE pattern: three letters or digits in a
 * row (it splits words at anything else, and pads only a word at the pattern's ends, which the `%`
 * on each side rules out).
 */
export function hasTrigram(text: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(text);
}

interface LinkFilter {
  status: string | null;
  /** Matches the description as a case-insensitive substring, or the reference exactly. */
  text: string | null;
  now: Date;
}

/**
 * Up to `limit` links matching the filter, next to the cursor's row in its direction (from the newest
 * when there is none): oldest first when going newer. The index is walked in order and the filter
 * applied to each row, so a page stops reading once it is full.
 */
export async function searchLinks(
  db: Queryable,
  merchantId: string,
  filter: LinkFilter,
  keyset: Keyset | null,
  limit: number,
): Promise<(LinkSummaryRow & { at: string })[]> {
  const values: unknown[] = [merchantId, limit];
  const where = ['merchant_id = $1'];
  const param = (v: unknown): string => `$${values.push(v)}`;
  if (filter.status !== null) where.push(`${statusSql(param(filter.now))} = ${param(filter.status)}`);
  const trigram = filter.text !== null && hasTrigram(filter.text);
  if (filter.text !== null) {
    const like = `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // A text with a trigram is found through the trigram index on the description and the primary
    // key on the reference (migrations/0029_link_search_trigram.sql). One without cannot use the
    // index, which would then be read whole (300 ms at 200,000 links, against 150 ms for walking the
    // merchant's links): `description || ''` is the same text, but not the indexed expression, so no
    // plan of the prepared statement can choose the index for it.
    where.push(`(reference = ${param(filter.text)} OR ${trigram ? 'description' : "(description || '')"} ILIKE ${param(like)})`);
  }
  const newer = keyset?.direction === 'newer';
  // A row comparison, so that the index's (created_at, reference) order is the condition itself.
  if (keyset) where.push(`(created_at, reference) ${newer ? '>' : '<'} (${param(keyset.at)}::timestamptz, ${param(keyset.reference)})`);
  const order = newer ? 'created_at ASC, reference ASC' : 'created_at DESC, reference DESC';
  const text = `SELECT ${SUMMARY_COLUMNS}, ${cursorTimeSql('created_at')} AS at FROM payment_links WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $2`;
  // A text with a trigram is planned for its value each time (about 0.1 ms). Which way is fast
  // depends on how many links hold it: a rare text through the trigram index, a common one by
  // walking the merchant's links newest first until the page is full. A prepared statement's generic
  // plan cannot tell them apart, and kept the index for every text: "Order", held by every one of
  // 200,000 links, took 480 ms instead of 0.8 ms (docs/performance.md, Link search).
  if (trigram) return (await db.query<LinkSummaryRow & { at: string }>(text, values)).rows;
  // Otherwise one prepared statement per shape (status or not, text or not, which way): planning the
  // status expression took longer than running the query, and a prepared plan is made once per
  // connection.
  const shape = `${filter.status !== null ? 's' : ''}${filter.text !== null ? 't' : ''}${keyset ? keyset.direction : 'first'}`;
  const { rows } = await db.query<LinkSummaryRow & { at: string }>({ name: `paymentLinks.searchLinks.${shape}`, text, values });
  return rows;
}
