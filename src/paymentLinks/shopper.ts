import type { Database, Queryable } from '../db/database.js';
import { BatchLoader, perDatabase } from '../db/batch.js';
import { prefixedId } from '../ids.js';
import * as sql from './sql.js';
import type { CustomFieldAnswer } from './customFields.js';

export { answersLine, checkCustomAnswers, type AnswerProblem, type CustomField, type CustomFieldAnswer } from './customFields.js';

// The shopper's side of a link: the link as its payment page reads it, locked for a payment, and
// what a payment attempt leaves on it. Hosted checkout calls these inside its own transactions.

export type LinkForPage = sql.LinkForPage;
export type ChosenItem = sql.ChosenItem;

/**
 * The names of the shopper's fields in both languages: the payment page asks for them by these names,
 * and the portal's link pages name them the same, so a merchant reads what the shopper will be asked.
 */
export const SHOPPER_FIELD_NAMES = {
  en: {
    fieldSsn: 'National ID number (kennitala)',
    fieldFullName: 'Full name',
    fieldAddress: 'Address',
    fieldPostCode: 'Postcode',
    fieldCity: 'City',
    fieldCountry: 'Country',
    fieldTelephone: 'Telephone',
    fieldEmailAddress: 'E-mail address',
    fieldComments: 'Comments',
  },
  is: {
    fieldSsn: 'Kennitala',
    fieldFullName: 'Fullt nafn',
    fieldAddress: 'Heimilisfang',
    fieldPostCode: 'Póstnúmer',
    fieldCity: 'Staður',
    fieldCountry: 'Land',
    fieldTelephone: 'Sími',
    fieldEmailAddress: 'Netfang',
    fieldComments: 'Athugasemdir',
  },
} as const;

/** Counts each page view; the views of one turn of the event loop are counted by one statement. */
const visitCounter = perDatabase(
  (db: Database) =>
    new BatchLoader<string, LinkForPage>(
      async (references, views) => new Map((await sql.countLinkVisits(db.pool, references, views)).map((l) => [l.reference, l])),
    ),
);

/** The link as its page shows it; a page view counts as a visit when `countVisit`. */
export async function linkForPage(db: Database, reference: string, opts: { countVisit: boolean }): Promise<LinkForPage | undefined> {
  return opts.countVisit ? visitCounter(db).get(reference) : sql.findLinkForPage(db.pool, reference);
}

/** The link locked for one payment, inside the payment's transaction (no sale past maxSalesCount). */
export async function lockLinkForPayment(tx: Queryable, reference: string): Promise<LinkForPage | undefined> {
  return sql.lockLinkForPayment(tx, reference);
}

/**
 * What a payment attempt on a link leaves on the link, in the payment's transaction: the shopper's
 * answers (and those to its custom fields) as a submission (its payfacReference only when it succeeded), and on success one sale, or
 * for a TokenizeByLink its completion.
 */
export async function recordLinkPayment(
  tx: Queryable,
  p: {
    reference: string;
    tokenize: boolean;
    answers: { field: string; value: string }[];
    /** Null: the link asked for no custom fields. */
    customFieldAnswers: CustomFieldAnswer[] | null;
    success: boolean;
    amount: number;
    currency: string;
    token: string | null;
    payfacReference: string;
    /** The items at the quantities the shopper chose (docs/rules.md, §Adjustable quantities); null: no choice offered. */
    chosenItems: sql.ChosenItem[] | null;
    at: Date;
  },
): Promise<void> {
  await sql.insertSubmission(tx, {
    id: submissionId(),
    paymentLinkReference: p.reference,
    answers: p.answers,
    customFieldAnswers: p.customFieldAnswers,
    completed: p.success,
    amount: p.amount,
    currency: p.currency,
    token: p.token,
    payfacReference: p.success ? p.payfacReference : null,
    chosenItems: p.chosenItems,
    createdAt: p.at,
  });
  if (!p.success) return;
  if (p.tokenize) await sql.completeTokenizeLink(tx, p.reference, p.at);
  else await sql.recordLinkSale(tx, p.reference, p.at);
}

// Submissions are listed by (created_at, id); the injected clock can give several the same instant,
// so the id itself sorts in the order they were made: wall-clock milliseconds, a counter, randomness.
let submissionCounter = 0;
function submissionId(): string {
  submissionCounter = (submissionCounter + 1) % 36 ** 4;
  return `sub_${Date.now().toString(36).padStart(9, '0')}${submissionCounter.toString(36).padStart(4, '0')}${prefixedId('').slice(1)}`;
}
