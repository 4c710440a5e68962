import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, createSession, payByLink, Shopper } from '../checkout/fixtures.js';
import { portalUser } from '../portal/helpers.js';
import { headerOf, startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { MailSender } from '../../src/mail/sender.js';
import { smtpTransport } from '../../src/mail/transport.js';
import { setPaidNotice } from '../../src/users/memberships/service.js';
import { setLanguage } from '../../src/users/service.js';
import { MAIL_MAX_ATTEMPTS, mailTotals } from '../../src/mail/service.js';
import { Metrics } from '../../src/metrics.js';

// Receipts by e-mail through a real SMTP server (docs/mail.md): written with the payment, sent by the
// sender through nodemailer, tried again after the server refused (4xx and 5xx alike), and never sent
// a second time once the server took it. The SMTP password never reaches a log line.

const FROM = 'Lopi <kvittun@lopi.example>';

interface Row {
  id: string;
  kind: string;
  recipient: string;
  lang: string;
  state: string;
  attempts: number;
  last_error: string | null;
  subject: string;
  text_body: string;
}

describe('receipts by e-mail through SMTP', () => {
  let ctx: TestContext;
  let smtp: TestSmtp;
  const logLines: string[] = [];
  const logger = {
    info: (o: object, m: string) => logLines.push(JSON.stringify({ ...o, m })),
    warn: (o: object, m: string) => logLines.push(JSON.stringify({ ...o, m })),
    error: (o: object, m: string) => logLines.push(JSON.stringify({ ...o, m })),
  };
  const senders: MailSender[] = [];
  const newSender = (): MailSender => {
    const s = new MailSender({ db: ctx.tdb.db, clock: ctx.clock, transport: smtpTransport(smtp.url), from: FROM, leaseMs: 120_000, logger, listen: false });
    senders.push(s);
    return s;
  };

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    smtp = await startSmtp();
  });
  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.stop(5_000)));
  });
  afterAll(async () => {
    await smtp?.close();
    await ctx?.close();
  });

  const rowsOf = async (payfacReference: string): Promise<Row[]> =>
    (
      await ctx.tdb.db.pool.query<Row>(
        'SELECT id, kind, recipient, lang, state, attempts, last_error, subject, text_body FROM mail_outbox WHERE payfac_reference = $1 ORDER BY kind DESC, id',
        [payfacReference],
      )
    ).rows;

  /** Pays a link with its e-mail field filled in; answers the payment's reference. */
  async function payLink(culture: 'is' | 'en', email: string | null): Promise<string> {
    const ref = await createLink(ctx, payByLink(ctx, { culture, shopperInfo: [{ field: 'EmailAddress', requirementType: 'Optional' }] }));
    const paid = await new Shopper(ctx).payWith(`/pay/${ref}`, '4242424242424242', email !== null ? { 'shopper-EmailAddress': email } : {});
    expect(paid.statusCode, paid.body.slice(0, 300)).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM payments WHERE payment_link_reference = $1', [
      ref,
    ]);
    return rows[0]?.payfac_reference as string;
  }

  it('a link paid in Icelandic: the receipt waits through a 451, is sent once on the retry, and never again', async () => {
    const payfac = await payLink('is', 'kaupandi@example.is');
    const [row] = await rowsOf(payfac);
    expect(row).toMatchObject({ kind: 'receipt', recipient: 'kaupandi@example.is', lang: 'is', state: 'Pending', attempts: 0 });

    const sender = newSender();
    smtp.refuseNext(1, 451);
    await sender.settled();
    const [refused] = await rowsOf(payfac);
    expect(refused).toMatchObject({ state: 'Pending', attempts: 1 });
    expect(refused?.last_error).toContain('451');
    expect(smtp.accepted.filter((m) => m.raw.includes(payfac))).toHaveLength(0);

    // Not due before its minute is up.
    ctx.clock.advance(59_000);
    sender.wake();
    await sender.settled();
    expect((await rowsOf(payfac))[0]?.attempts).toBe(1);

    ctx.clock.advance(1_000);
    sender.wake();
    await sender.settled();
    const [sent] = await rowsOf(payfac);
    expect(sent).toMatchObject({ state: 'Sent', attempts: 2, last_error: null });
    const got = smtp.accepted.filter((m) => m.raw.includes(payfac));
    expect(got).toHaveLength(1);
    const mail = got[0]!;
    expect(mail.to).toEqual(['kaupandi@example.is']);
    expect(mail.messageId).toBe(`<${row!.id}@lopi.example>`);
    expect(headerOf(mail.raw, 'Subject')).toBe('Kvittun fyrir greiðslu til Test merchant');
    expect(headerOf(mail.raw, 'From')).toContain('kvittun@lopi.example');
    expect(mail.raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(mail.raw).toMatch(/Content-Type: text\/plain; charset=utf-8/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html; charset=utf-8/i);

    // A day later, woken again and again: nothing more goes out.
    ctx.clock.advance(86_400_000);
    sender.wake();
    await sender.settled();
    await newSender().settled();
    expect(smtp.accepted.filter((m) => m.raw.includes(payfac))).toHaveLength(1);
  });

  it('a session in English with the shopper’s contact: a 554 once, then accepted; the owner who asked gets "you were paid"', async () => {
    const owner = await portalUser(ctx, 'owner');
    expect(await setPaidNotice(ctx.tdb.db, owner.userId, ctx.merchant.merchantId, true)).toBe(true);
    // The owner reads the portal in Icelandic: so is their notice.
    await setLanguage(ctx.tdb.db, owner.userId, 'is');
    const cs = await createSession(ctx, { culture: 'en', shopperContact: 'bob@example.com', reference: 'order-mail' });
    const paid = await new Shopper(ctx).payWith(`/checkout/${cs}`, '4242424242424242');
    expect(paid.statusCode).toBe(303);
    const { rows } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM checkout_sessions WHERE reference = $1', [cs]);
    const payfac = rows[0]?.payfac_reference as string;
    const mails = await rowsOf(payfac);
    expect(mails.map((m) => [m.kind, m.recipient, m.lang])).toEqual([
      ['receipt', 'bob@example.com', 'en'],
      ['paid', owner.email, 'is'],
    ]);

    const sender = newSender();
    smtp.refuseNext(1, 554);
    await sender.settled();
    expect((await rowsOf(payfac)).map((m) => m.state).sort()).toEqual(['Pending', 'Sent']);
    ctx.clock.advance(60_000);
    sender.wake();
    await sender.settled();
    expect((await rowsOf(payfac)).map((m) => m.state)).toEqual(['Sent', 'Sent']);
    const got = smtp.accepted.filter((m) => m.raw.includes(payfac));
    expect(got.map((m) => m.to[0]).sort()).toEqual(['bob@example.com', owner.email].sort());
    const receipt = got.find((m) => m.to[0] === 'bob@example.com')!;
    expect(headerOf(receipt.raw, 'Subject')).toBe('Receipt for your payment to Test merchant');
    const notice = got.find((m) => m.to[0] === owner.email)!;
    expect(headerOf(notice.raw, 'Subject')).toMatch(/^Þú fékkst greitt 123,45/);

    // Turned off: the next payment tells the owner nothing.
    await setPaidNotice(ctx.tdb.db, owner.userId, ctx.merchant.merchantId, false);
    const next = await payLink('en', null);
    expect(await rowsOf(next)).toEqual([]);
  });

  it('two senders on one outbox: every receipt sent exactly once', async () => {
    const payfacs: string[] = [];
    for (let i = 0; i < 8; i++) payfacs.push(await payLink(i % 2 === 0 ? 'is' : 'en', `shopper${i}@example.com`));
    const [a, b] = [newSender(), newSender()];
    await Promise.all([a.settled(), b.settled()]);
    for (const p of payfacs) {
      expect((await rowsOf(p)).map((m) => m.state)).toEqual(['Sent']);
      expect(smtp.accepted.filter((m) => m.raw.includes(p))).toHaveLength(1);
    }
    expect(a.stats.sent + b.stats.sent).toBe(8);
  });

  it(`gives up after ${MAIL_MAX_ATTEMPTS} refusals, and the SMTP password is in no log line`, async () => {
    const payfac = await payLink('en', 'nobody@example.com');
    const sender = newSender();
    smtp.refuseNext(MAIL_MAX_ATTEMPTS, 550);
    for (let i = 0; i < MAIL_MAX_ATTEMPTS; i++) {
      await sender.settled();
      ctx.clock.advance(6 * 3_600_000);
      sender.wake();
    }
    await sender.settled();
    const [row] = await rowsOf(payfac);
    expect(row).toMatchObject({ state: 'Failed', attempts: MAIL_MAX_ATTEMPTS });
    expect(row?.last_error).toContain('550');
    expect(sender.stats.givenUp).toBe(1);
    expect(logLines.some((l) => l.includes('given up'))).toBe(true);
    const metrics = new Metrics({ mail: () => mailTotals(ctx.tdb.db) });
    expect((await metrics.text()).body).toMatch(/^paylinks_mail_messages\{state="Failed"\} 1$/m);
    expect(logLines.join('\n')).not.toContain(smtp.password);
    expect(ctx.logs.join('\n')).not.toContain(smtp.password);
  });
});
