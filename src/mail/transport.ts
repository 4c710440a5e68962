import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';

// How a message leaves: through SMTP with nodemailer (PAYLINKS_SMTP_URL), or, with no SMTP server
// configured, into a folder as .eml files (development: nothing to set up, and every message is also
// on the portal's "Sent e-mails" page). nodemailer over a hand-written client: it is maintained, and
// does SMTP right where a small client would not (STARTTLS, AUTH, dot-stuffing, MIME and header
// encoding of Icelandic letters, line lengths).

/** A rendered message with the headers it keeps on every attempt. */
export interface OutgoingMail {
  /** The outbox row's id; also the folder transport's file name. */
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The same on every attempt of one message, so a copy sent twice is known for the same message. */
  messageId: string;
  date: Date;
}

export interface MailTransport {
  /** Resolves once the server accepted the message (or it was written); rejects with what went wrong. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer, one connection per message (receipts come one per payment, and a fresh
 * connection never carries a broken one's state into the next message). The timeouts bound one
 * attempt to well under the sender's lease (docs/mail.md). nodemailer's own logger stays off: the
 * URL's password never reaches a log line.
 */
export function smtpTransport(url: string): MailTransport {
  const transport = createTransport({
    url,
    pool: false,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    logger: false,
    debug: false,
  });
  return {
    send: async (m) => {
      await transport.sendMail(message(m));
    },
    close: () => transport.close(),
  };
}

/**
 * Development: each message as `<id>.eml` in `dir`, written to a temporary name and renamed, so a
 * file is whole or absent; a message written again replaces its file, and no copy is made twice.
 */
export function folderTransport(dir: string): MailTransport {
  const transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    send: async (m) => {
      const info = await transport.sendMail(message(m));
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${m.id}.eml`);
      await writeFile(`${file}.tmp`, info.message as Buffer);
      await rename(`${file}.tmp`, file);
    },
    close: () => transport.close(),
  };
}

function message(m: OutgoingMail) {
  return { from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId, date: m.date };
}
