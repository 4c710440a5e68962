import { isEmailAddress } from '../emailAddress.js';
import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import { keysetOf, keysetPage, type PageCursors, type PageQuery } from '../db/keyset.js';
import { notFound } from '../errors.js';
import { prefixedId } from '../ids.js';
import { paidNoticeRecipients } from '../users/memberships/service.js';
import { isLang, type Lang } from '../web/lang.js';
import { paidMail, receiptMail, type PaidFacts } from './messages.js';
import * as sql from './sql.js';

// E-mails of payments (docs/mail.md): the shopper's receipt, when the shopper's e-mail address is
// known, and the "you were paid" notice to each owner who asked for it. They are rendered and written
// to the outbox with the caller's client, inside the transaction that records the payment
// (docs/style.md, The outbox joins the caller's transaction), so that a payment and its e-mails commit
// together or not at all; a sender (src/mail/sender.ts) sends them afterwards.

export type { MailKind, MailState } from './sql.js';
export { MAIL_MAX_ATTEMPTS } from './schedule.js';

/** A successful payment as its e-mails tell it. */
export interface PaidMailInput extends Omit<PaidFacts, 'paidAt'> {
  merchantId: string;
  /** The link's or session's language; anything else is Icelandic, the pages' own fallback. */
  culture: string;
}

/** A shopper's address as the pay page or the session gave it, by the service's one rule (src/emailAddress.ts), which the page and the API applied already. */
export function isMailAddress(value: string | null): value is string {
  return value !== null && isEmailAddress(value);
}

/** Writes the payment's e-mails into the outbox with the caller's transaction; answers their ids. */
export async function enqueuePaymentMails(tx: Queryable, clock: Clock, p: PaidMailInput): Promise<string[]> {
  const now = clock.now();
  const facts: PaidFacts = { ...p, paidAt: now };
  const mails: sql.NewMail[] = [];
  const base = { merchantId: p.merchantId, payfacReference: p.payfacReference, createdAt: now };
  if (isMailAddress(p.shopperEmail)) {
    const lang: Lang = isLang(p.culture) ? p.culture : 'is';
    mails.push({ ...base, id: prefixedId('mail'), kind: 'receipt', recipient: p.shopperEmail, lang, ...receiptMail(lang, facts) });
  }
  for (const owner of await paidNoticeRecipients(tx, p.merchantId)) {
    const lang: Lang = isLang(owner.language) ? owner.language : 'is';
    mails.push({ ...base, id: prefixedId('mail'), kind: 'paid', recipient: owner.email, lang, ...paidMail(lang, facts) });
  }
  await sql.insertMails(tx, mails);
  return mails.map((m) => m.id);
}

/**
 * The Message-ID of an outbox row, made from its id and the From address's domain, so every attempt
 * of one message carries the same one (docs/mail.md, "Sent once").
 */
export function messageIdOf(id: string, from: string): string {
  const domain = /@([^\s>]+)>?\s*$/.exec(from)?.[1] ?? 'paylinks.invalid';
  return `<${id}@${domain}>`;
}

// ---------------------------------------------------------------- the portal's "Sent e-mails"

export type MailSummary = Omit<sql.MailListRow, 'at'>;
export type Mail = sql.MailRow;

/** A page of the merchant's e-mails, newest first, by keyset (`before`/`after` are the cursors of the pages beside it). */
export async function mailPage(db: Database, merchantId: string, cursor: PageQuery, limit = 50): Promise<PageCursors & { mails: MailSummary[] }> {
  const keyset = keysetOf(cursor);
  const rows = await sql.listMails(db.pool, merchantId, keyset, limit + 1);
  const page = keysetPage(
    rows.map((r) => ({ ...r, reference: r.id })),
    limit,
    keyset,
  );
  return { mails: page.rows.map(({ at: _at, reference: _r, ...m }) => m), older: page.older, newer: page.newer };
}

/** One of the merchant's e-mails as it was sent; another merchant's is not found. */
export async function mailOf(db: Database, merchantId: string, id: string): Promise<Mail> {
  const mail = /^mail_[A-Za-z0-9_-]{1,40}$/.test(id) ? await sql.findMail(db.pool, merchantId, id) : undefined;
  if (!mail) throw notFound('e-mail');
  return mail;
}

/** How many e-mails wait to be sent, and how many were given up on (the metrics). */
export async function mailTotals(db: Database): Promise<{ Pending: number; Failed: number }> {
  const c = await sql.mailCounts(db.pool);
  return { Pending: c.pending, Failed: c.failed };
}
