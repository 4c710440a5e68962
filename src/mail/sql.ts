import type { Queryable } from '../db/database.js';
import { cursorTimeSql, type Keyset } from '../db/keyset.js';

// Every statement of the mail outbox (migration 0037).

export const MAIL_CHANNEL = 'paylinks_mail';

export type MailKind = 'receipt' | 'paid';
export type MailState = 'Pending' | 'Sent' | 'Failed';

export interface NewMail {
  id: string;
  merchantId: string;
  kind: MailKind;
  payfacReference: string;
  recipient: string;
  lang: string;
  subject: string;
  text: string;
  html: string;
  createdAt: Date;
}

export interface MailRow extends NewMail {
  state: MailState;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  sentAt: Date | null;
}

const COLUMNS = `id, merchant_id AS "merchantId", kind, payfac_reference AS "payfacReference", recipient, lang, subject,
  text_body AS "text", html_body AS "html", state, attempts, next_attempt_at AS "nextAttemptAt", last_error AS "lastError",
  sent_at AS "sentAt", created_at AS "createdAt"`;

/** The messages of one payment, due at once; the NOTIFY wakes the senders when the caller's transaction commits. */
export async function insertMails(tx: Queryable, mails: readonly NewMail[]): Promise<void> {
  if (mails.length === 0) return;
  await tx.query(
    `INSERT INTO mail_outbox (id, merchant_id, kind, payfac_reference, recipient, lang, subject, text_body, html_body, next_attempt_at, created_at)
     SELECT m.id, m.merchant_id, m.kind, m.payfac_reference, m.recipient, m.lang, m.subject, m.text_body, m.html_body, m.created_at, m.created_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[])
         AS m(id, merchant_id, kind, payfac_reference, recipient, lang, subject, text_body, html_body, created_at)`,
    [
      mails.map((m) => m.id),
      mails.map((m) => m.merchantId),
      mails.map((m) => m.kind),
      mails.map((m) => m.payfacReference),
      mails.map((m) => m.recipient),
      mails.map((m) => m.lang),
      mails.map((m) => m.subject),
      mails.map((m) => m.text),
      mails.map((m) => m.html),
      mails.map((m) => m.createdAt),
    ],
  );
  await tx.query(`NOTIFY ${MAIL_CHANNEL}`);
}

/**
 * Claims the next due message (FOR UPDATE SKIP LOCKED) under a lease until `leaseUntil`: a message
 * whose sender died is claimed again once its lease has run out.
 */
export async function claimNext(db: Queryable, now: Date, leaseUntil: Date, token: string): Promise<MailRow | undefined> {
  const { rows } = await db.query<MailRow>(
    `UPDATE mail_outbox SET claim_token = $3, claimed_until = $2
      WHERE id = (SELECT id FROM mail_outbox
                   WHERE state = 'Pending' AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
                   ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`,
    [now, leaseUntil, token],
  );
  return rows[0];
}

/** The server accepted the message: Sent. False when the claim was lost (its lease ran out and another sender took it). */
export async function markSent(db: Queryable, id: string, token: string, at: Date): Promise<boolean> {
  const r = await db.query(
    `UPDATE mail_outbox SET state = 'Sent', sent_at = $3, attempts = attempts + 1, last_error = NULL, claim_token = NULL, claimed_until = NULL
      WHERE id = $1 AND claim_token = $2`,
    [id, token, at],
  );
  return (r.rowCount ?? 0) === 1;
}

/** An attempt failed: due again at `nextAttemptAt`, or Failed when that is null. */
export async function markFailedAttempt(db: Queryable, id: string, token: string, error: string, nextAttemptAt: Date | null): Promise<void> {
  await db.query(
    `UPDATE mail_outbox SET attempts = attempts + 1, last_error = $3, claim_token = NULL, claimed_until = NULL,
            state = CASE WHEN $4::timestamptz IS NULL THEN 'Failed' ELSE 'Pending' END,
            next_attempt_at = COALESCE($4::timestamptz, next_attempt_at)
      WHERE id = $1 AND claim_token = $2`,
    [id, token, error, nextAttemptAt],
  );
}

/** The earliest moment a Pending message comes due (or its lease runs out); null when none waits. */
export async function nextDue(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `SELECT min(GREATEST(next_attempt_at, COALESCE(claimed_until, next_attempt_at))) AS at FROM mail_outbox WHERE state = 'Pending'`,
  );
  return rows[0]?.at ?? null;
}

export type MailListRow = Omit<MailRow, 'text' | 'html'> & { at: string };

/** Up to `limit` of a merchant's messages next to the keyset's row in its direction (newest first from the start). */
export async function listMails(db: Queryable, merchantId: string, keyset: Keyset | null, limit: number): Promise<MailListRow[]> {
  const newer = keyset?.direction === 'newer';
  const { rows } = await db.query<MailListRow>(
    `SELECT id, merchant_id AS "merchantId", kind, payfac_reference AS "payfacReference", recipient, lang, subject, state, attempts,
            next_attempt_at AS "nextAttemptAt", last_error AS "lastError", sent_at AS "sentAt", created_at AS "createdAt",
            ${cursorTimeSql('created_at')} AS at
       FROM mail_outbox
      WHERE merchant_id = $1
        AND ($2::timestamptz IS NULL OR (created_at, id) ${newer ? '>' : '<'} ($2::timestamptz, $3::text))
      ORDER BY created_at ${newer ? 'ASC' : 'DESC'}, id ${newer ? 'ASC' : 'DESC'} LIMIT $4`,
    [merchantId, keyset?.at ?? null, keyset?.reference ?? '', limit],
  );
  return rows;
}

/** One of the merchant's messages; another merchant's is not found. */
export async function findMail(db: Queryable, merchantId: string, id: string): Promise<MailRow | undefined> {
  const { rows } = await db.query<MailRow>(`SELECT ${COLUMNS} FROM mail_outbox WHERE merchant_id = $1 AND id = $2`, [merchantId, id]);
  return rows[0];
}

/** How many messages wait and how many were given up on (the metrics): each from its partial index, never the sent ones. */
export async function mailCounts(db: Queryable): Promise<{ pending: number; failed: number }> {
  const { rows } = await db.query<{ pending: number; failed: number }>(
    `SELECT (SELECT count(*)::int FROM mail_outbox WHERE state = 'Pending') AS pending,
            (SELECT count(*)::int FROM mail_outbox WHERE state = 'Failed') AS failed`,
  );
  return rows[0] ?? { pending: 0, failed: 0 };
}
