import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { LoopOwner, NotifiedLoop } from '../db/notifiedLoop.js';
import { newUuid } from '../ids.js';
import { nextAttemptAfter } from './schedule.js';
import { messageIdOf } from './service.js';
import * as sql from './sql.js';
import type { MailTransport } from './transport.js';

// The mail sender: a NotifiedLoop (docs/style.md, A long-running loop is written once) woken by the
// NOTIFY of the transaction that wrote a payment's e-mails, by wake(), and by a poll that finds
// retries coming due. A pass claims one due message at a time under a lease (docs/style.md, Claims,
// leases and one schedule), sends it, and marks it Sent as soon as the server accepted it; a failed
// attempt is due again after the delay of src/mail/schedule.ts, and Failed after the last.
//
// No message is lost: it is in the outbox from the payment's commit until it is marked Sent, and a
// sender that dies holding one leaves it to another once the lease runs out. No message is sent twice
// but in one window: a sender killed after the server accepted a message and before the row was
// marked (one short UPDATE) sends it again after the lease. That copy carries the same Message-ID,
// so a mail reader shows it once (docs/mail.md, "Sent once").

type Logger = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface MailSenderOptions {
  db: Database;
  clock: Clock;
  transport: MailTransport;
  /** The From header (PAYLINKS_MAIL_FROM). */
  from: string;
  /** How long a claimed message is held: longer than one attempt can take (the transport's timeouts). */
  leaseMs: number;
  logger?: Logger;
  /** Fallback poll (real time): retries coming due, a lease run out, a notice that was lost. */
  pollIntervalMs?: number;
  /** Listen for NOTIFY; default on. */
  listen?: boolean;
}

export class MailSender extends LoopOwner {
  protected readonly loop: NotifiedLoop;
  readonly stats = { sent: 0, failedAttempts: 0, givenUp: 0 };

  constructor(private readonly o: MailSenderOptions) {
    super();
    const log = o.logger ?? silent;
    this.loop = new NotifiedLoop({
      db: o.db,
      channel: sql.MAIL_CHANNEL,
      pass: () => this.pass(log),
      listen: o.listen ?? true,
      pollIntervalMs: o.pollIntervalMs ?? 5_000,
      // A claim or a mark that failed (the database away): the message waits for its lease, then the next pass.
      onPassError: (err) => log.error({ err: err.message }, 'sending e-mail failed; retrying on the next poll'),
      log,
    });
  }

  async start(): Promise<void> {
    await this.loop.start();
  }

  override async stop(graceMs = 20_000): Promise<void> {
    await super.stop(graceMs);
    this.o.transport.close();
  }

  private async pass(log: Logger): Promise<void> {
    const { db, clock } = this.o;
    while (!this.loop.isStopped) {
      const token = newUuid();
      const now = clock.now();
      const mail = await sql.claimNext(db.pool, now, new Date(now.getTime() + this.o.leaseMs), token);
      if (!mail) return;
      try {
        await this.o.transport.send({
          id: mail.id,
          from: this.o.from,
          to: mail.recipient,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: messageIdOf(mail.id, this.o.from),
          date: mail.createdAt,
        });
      } catch (err) {
        const attempt = mail.attempts + 1;
        const next = nextAttemptAfter(attempt, clock.now());
        const error = errorText(err);
        await sql.markFailedAttempt(db.pool, mail.id, token, error, next);
        this.stats.failedAttempts++;
        if (next === null) this.stats.givenUp++;
        log.warn(
          { mailId: mail.id, kind: mail.kind, attempt, err: error, retryAt: next?.toISOString() ?? null },
          next ? 'e-mail not accepted; will retry' : 'e-mail not accepted; given up',
        );
        continue;
      }
      // The window of a second copy is from the server's acceptance to this statement's commit.
      if (await sql.markSent(db.pool, mail.id, token, clock.now())) this.stats.sent++;
      log.info({ mailId: mail.id, kind: mail.kind }, 'e-mail sent');
    }
  }
}

/** What the server or the connection answered, short; nodemailer's errors name no password. */
function errorText(err: unknown): string {
  const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
  const text = e.response ?? e.message ?? String(err);
  return (e.responseCode !== undefined && !text.startsWith(String(e.responseCode)) ? `${e.responseCode} ${text}` : text).slice(0, 500);
}
