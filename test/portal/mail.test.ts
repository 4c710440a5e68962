import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, payByLink, Shopper } from '../checkout/fixtures.js';
import { createMerchant } from '../../src/accounts/service.js';
import { portalUser, rowOf, textOf, type PortalBrowser } from './helpers.js';
import { MailSender } from '../../src/mail/sender.js';
import { folderTransport } from '../../src/mail/transport.js';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The portal's "Sent e-mails" (docs/portal.md): the merchant's receipts and notices with where each
// stands, an e-mail's page with its text and its HTML (under a policy of its own), another merchant's
// not found; and an owner's choice of the "you were paid" e-mail on the account page. Without SMTP,
// the development transport writes each message into a folder as an .eml file.

describe('sent e-mails in the portal', () => {
  let ctx: TestContext;
  let owner: PortalBrowser;
  let staff: PortalBrowser;
  let developer: PortalBrowser;
  let dir: string;
  let sender: MailSender;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    owner = (await portalUser(ctx, 'owner')).browser;
    staff = (await portalUser(ctx, 'staff')).browser;
    developer = (await portalUser(ctx, 'developer')).browser;
    dir = await mkdtemp(join(tmpdir(), 'paylinks-mail-'));
    sender = new MailSender({ db: ctx.tdb.db, clock: ctx.clock, transport: folderTransport(dir), from: ctx.config.mailFrom, leaseMs: 60_000, listen: false });
  });
  afterAll(async () => {
    await sender?.stop(5_000);
    await rm(dir, { recursive: true, force: true });
    await ctx?.close();
  });

  async function pay(email: string, name: string): Promise<void> {
    const ref = await createLink(
      ctx,
      payByLink(ctx, {
        culture: 'en',
        description: name,
        items: [{ name, quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
        shopperInfo: [{ field: 'EmailAddress', requirementType: 'Required' }],
      }),
    );
    ctx.clock.advance(1_000);
    const paid = await new Shopper(ctx).payWith(`/pay/${ref}`, '4242424242424242', { 'shopper-EmailAddress': email });
    expect(paid.statusCode, paid.body.slice(0, 300)).toBe(303);
  }

  it('an owner turns the "you were paid" e-mail on from the account page; staff see no such choice and may not post it', async () => {
    const page = await owner.get('/portal/account');
    expect(textOf(page.body)).toContain('E-mail for each payment');
    expect(page.body).not.toMatch(/name="paidNotice"[^>]*checked/);
    const saved = await owner.follow(await owner.post('/portal/account/paid-notice', { paidNotice: 'on' }));
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toMatch(/name="paidNotice"[^>]*checked/);

    const staffPage = await staff.get('/portal/account');
    expect(textOf(staffPage.body)).not.toContain('E-mail for each payment');
    expect((await staff.post('/portal/account/paid-notice', { paidNotice: 'on' })).statusCode).toBe(403);
  });

  it('lists the receipts and notices with their state; an e-mail’s page shows its text, its HTML opens alone', async () => {
    await pay('first@example.com', 'Lopapeysa');
    await pay('second@example.com', '<b>Húfa</b>');
    await sender.settled();

    const list = await staff.get('/portal/mail');
    expect(list.statusCode).toBe(200);
    const text = textOf(list.body);
    expect(text).toContain('Sent e-mails');
    expect(rowOf(list.body, 'second@example.com')).toContain('Sent');
    expect(rowOf(list.body, 'first@example.com')).toContain('Receipt');
    // Newest first, the owner's notices beside the receipts.
    expect(text.indexOf('second@example.com')).toBeLessThan(text.indexOf('first@example.com'));
    expect(text).toContain('Payment notice');
    expect(list.body).toContain('href="/portal/mail"');

    const id = /href="\/portal\/mail\/(mail_[^"/]+)"/.exec(rowOf(list.body, 'second@example.com'))?.[1] as string;
    const detail = await staff.get(`/portal/mail/${id}`);
    expect(detail.statusCode).toBe(200);
    expect(textOf(detail.body)).toContain('1 × <b>Húfa</b>');
    expect(detail.body).not.toContain('<b>Húfa</b>');
    expect(textOf(detail.body)).toContain(`<${id}@paylinks.test>`);

    const html = await staff.get(`/portal/mail/${id}/html`);
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(String(html.headers['content-security-policy'])).toContain('sandbox');
    expect(String(html.headers['content-security-policy'])).not.toContain('script-src');
    expect(html.body).toContain('&lt;b>Húfa&lt;/b>');

    // The development transport wrote each message once, as <id>.eml.
    const files = (await readdir(dir)).filter((f) => f.endsWith('.eml'));
    expect(files).toContain(`${id}.eml`);
    const eml = await readFile(join(dir, `${id}.eml`), 'utf8');
    expect(eml).toContain(`Message-ID: <${id}@paylinks.test>`);
    expect(eml).toContain('To: second@example.com');

    // Developers read payments too.
    expect((await developer.get('/portal/mail')).statusCode).toBe(200);
  });

  it('another merchant’s e-mail is not found; nor is a made-up id', async () => {
    const other = await createMerchant(ctx.tdb.db, 'Other merchant');
    const otherOwner = (await portalUser(ctx, 'owner', { owner: { merchantId: other.merchantId } })).browser;
    const list = await staff.get('/portal/mail');
    const id = /href="\/portal\/mail\/(mail_[^"/]+)"/.exec(list.body)?.[1] as string;
    expect((await otherOwner.get(`/portal/mail/${id}`)).statusCode).toBe(404);
    expect((await otherOwner.get(`/portal/mail/${id}/html`)).statusCode).toBe(404);
    expect(textOf((await otherOwner.get('/portal/mail')).body)).toContain('No e-mail yet');
    expect((await staff.get('/portal/mail/mail_nope')).statusCode).toBe(404);
    expect((await staff.get('/portal/mail/..%2Fetc')).statusCode).toBe(404);
  });

  it('in Icelandic', async () => {
    await staff.post('/portal/account/language', { language: 'is' });
    const list = await staff.get('/portal/mail');
    expect(textOf(list.body)).toContain('Sendur póstur');
    expect(rowOf(list.body, 'first@example.com')).toContain('Kvittun');
    await staff.post('/portal/account/language', { language: 'en' });
  });
});
