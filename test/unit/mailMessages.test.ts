import { describe, expect, it } from 'vitest';
import { paidMail, receiptMail, type PaidFacts } from '../../src/mail/messages.js';
import { parseConfig } from '../../src/config.js';
import { messageIdOf } from '../../src/mail/service.js';

// The e-mails' content (docs/mail.md): the receipt in both languages, HTML and plain text alike
// (merchant, items, amount, the card's last four, the reference, the date), every value escaped in
// the HTML; and the mail settings, whose SMTP password no error repeats.

const FACTS: PaidFacts = {
  merchantName: 'Lopi ehf.',
  order: 'Lopapeysa',
  items: [
    { name: 'Lopapeysa', quantity: 1, amount: 48900 },
    { name: 'Vettlingar', quantity: 2, amount: 5000 },
  ],
  discount: null,
  amount: 53900,
  currency: 'ISK',
  paymentMethod: 'visa',
  cardLast4: '4242',
  payfacReference: '1234567890123456',
  paidAt: new Date('2026-11-24T14:03:00Z'),
  shopperEmail: 'kaupandi@example.is',
};

/** Intl puts no-break spaces in amounts and dates: compared as plain spaces. */
function plain<T extends { subject: string; text: string; html: string }>(m: T): T {
  const sp = (x: string) => x.replace(/\u00a0|\u202f/g, ' ');
  return { ...m, subject: sp(m.subject), text: sp(m.text), html: sp(m.html) };
}

describe('receipt e-mail', () => {
  it('with a promotion code: the discount between the items and the total, in the HTML and the plain text', () => {
    const m = plain(receiptMail('en', { ...FACTS, discount: { code: 'HAUST10', amount: 5400 }, amount: 48500 }));
    expect(m.text).toContain('Discount (HAUST10): −ISK 54');
    expect(m.text).toContain('Total: ISK 485');
    expect(m.text.indexOf('Discount (HAUST10)')).toBeLessThan(m.text.indexOf('Total:'));
    expect(m.html).toContain('Discount (HAUST10)');
    expect(m.html).toContain('−ISK 54');
  });

  it('in Icelandic: subject, and the same facts in the plain text and the HTML', () => {
    const m = plain(receiptMail('is', FACTS));
    expect(m.subject).toBe('Kvittun fyrir greiðslu til Lopi ehf.');
    expect(m.text).toContain('Þú greiddir 539 kr. til Lopi ehf.');
    expect(m.text).toContain('1 × Lopapeysa: 489 kr.');
    expect(m.text).toContain('2 × Vettlingar: 50 kr.');
    expect(m.text).toContain('Samtals: 539 kr.');
    expect(m.text).toContain('Söluaðili: Lopi ehf.');
    expect(m.text).toContain('Pöntun: Lopapeysa');
    expect(m.text).toContain('Kort: VISA •••• 4242');
    expect(m.text).toContain('Tilvísun greiðslu: 1234567890123456');
    expect(m.text).toMatch(/Dagsetning: 24\. nóv\. 2026.*14:03 UTC/);
    // The shopper's own address is not repeated to them.
    expect(m.text).not.toContain('kaupandi@example.is');
    for (const part of ['Takk fyrir greiðsluna', 'Vettlingar', '539 kr.', 'VISA •••• 4242', '1234567890123456', 'Tilvísun greiðslu']) {
      expect(m.html).toContain(part);
    }
    expect(m.html).toMatch(/^<!doctype html>\n<html lang="is">/);
  });

  it('in English', () => {
    const m = plain(receiptMail('en', { ...FACTS, currency: 'EUR', amount: 12345, items: [] }));
    expect(m.subject).toBe('Receipt for your payment to Lopi ehf.');
    expect(m.text).toContain('You paid €123.45 to Lopi ehf. This is your receipt.');
    expect(m.text).toContain('Total: €123.45');
    expect(m.text).toContain('Card: VISA •••• 4242');
    expect(m.text).toContain('Payment reference: 1234567890123456');
    expect(m.text).toContain('Date: 24 Nov 2026, 14:03 UTC');
    expect(m.html).toContain('<html lang="en">');
    expect(m.html).toContain('Thank you for your payment');
    expect(m.html).not.toContain('>Item<');
  });

  it('the owner’s notice names the shopper, in the owner’s language', () => {
    const en = plain(paidMail('en', FACTS));
    expect(en.subject).toBe('You were paid ISK 539');
    expect(en.text).toContain('Shopper: kaupandi@example.is');
    const is = plain(paidMail('is', FACTS));
    expect(is.subject).toBe('Þú fékkst greitt 539 kr.');
    expect(is.text).toContain('Greiðandi: kaupandi@example.is');
  });

  it('escapes every value in the HTML', () => {
    const hostile = '<script>alert(1)</script>"&';
    const m = receiptMail('en', {
      ...FACTS,
      merchantName: hostile,
      order: `<img src=x onerror=alert(2)>`,
      items: [{ name: '</td><b>item</b>', quantity: 1, amount: 53900 }],
    });
    expect(m.html).not.toContain('<script>');
    expect(m.html).not.toContain('<img');
    expect(m.html).not.toContain('<b>');
    expect(m.html).toContain('&lt;script>alert(1)&lt;/script>&quot;&amp;');
    // The plain text is text: as given.
    expect(m.text).toContain(hostile);
  });
});

describe('mail settings', () => {
  it('takes an SMTP URL and a From; the Message-ID is the row’s id at the From’s domain', () => {
    const c = parseConfig({
      PAYLINKS_SMTP_URL: 'smtp://u:p@mail.example.com:587',
      PAYLINKS_MAIL_FROM: 'Lopi <kvittun@lopi.is>',
      PAYLINKS_DATA_DIR: '/var/lib/pl',
    });
    expect(c.smtpUrl).toBe('smtp://u:p@mail.example.com:587');
    expect(c.mailFrom).toBe('Lopi <kvittun@lopi.is>');
    expect(c.mailDir).toBe('/var/lib/pl/mail');
    expect(messageIdOf('mail_abc', c.mailFrom)).toBe('<mail_abc@lopi.is>');
    expect(parseConfig({}).smtpUrl).toBeNull();
    expect(parseConfig({ PUBLIC_BASE_URL: 'https://pay.example.com' }).mailFrom).toBe('Paylinks <noreply@pay.example.com>');
  });

  it('refuses a bad URL without repeating it (it carries the password), and asks for a From in production', () => {
    let message = '';
    try {
      parseConfig({ PAYLINKS_SMTP_URL: 'http://user:hunter2-secret@mail.example.com', PAYLINKS_MAIL_FROM: 'not an address' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('PAYLINKS_SMTP_URL: must be an smtp:// or smtps:// URL');
    expect(message).toContain('PAYLINKS_MAIL_FROM');
    expect(message).not.toContain('hunter2-secret');
    expect(() => parseConfig({ PAYLINKS_ENV: 'production', PAYLINKS_SECRET_KEY: 'a'.repeat(64), PAYLINKS_SMTP_URL: 'smtps://u:p@mail.example.com' })).toThrow(
      /PAYLINKS_MAIL_FROM: is required/,
    );
  });
});
