import type { Html } from '../html/jsx-runtime.js';
import { renderDocument } from '../html/render.js';
import { formatDateTime, formatMoney, formatQuantity } from '../html/format.js';
import { messages, translator, type Lang, type Translate } from '../web/lang.js';

// The e-mails' words and their two bodies: the HTML through the one renderer (src/html/jsx-runtime.ts,
// every value escaped) with its styles inline, as mail readers drop <style> and never run scripts, and
// the plain text beside it with the same content. The shopper's receipt is in the link's or session's
// language; the owner's notice in the language the owner chose for the portal.

const WORDS = messages(
  {
    receiptSubject: 'Receipt for your payment to {merchant}',
    receiptHeading: 'Thank you for your payment',
    receiptIntro: 'You paid {amount} to {merchant}. This is your receipt.',
    paidSubject: 'You were paid {amount}',
    paidHeading: 'A payment was made',
    paidIntro: '{merchant} was paid {amount}.',
    merchant: 'Merchant',
    item: 'Item',
    quantity: 'Qty',
    amount: 'Amount',
    discount: 'Discount ({code})',
    total: 'Total',
    card: 'Card',
    reference: 'Payment reference',
    order: 'Order',
    date: 'Date',
    shopper: 'Shopper',
    footer: 'This e-mail was sent by {merchant}’s payment service. Keep it for your records.',
    paidFooter: 'You get this e-mail because you asked for one for each payment; turn it off on your account page in the portal.',
  },
  {
    receiptSubject: 'Kvittun fyrir greiðslu til {merchant}',
    receiptHeading: 'Takk fyrir greiðsluna',
    receiptIntro: 'Þú greiddir {amount} til {merchant}. Þetta er kvittunin þín.',
    paidSubject: 'Þú fékkst greitt {amount}',
    paidHeading: 'Greiðsla barst',
    paidIntro: '{merchant} fékk greitt {amount}.',
    merchant: 'Söluaðili',
    item: 'Vara',
    quantity: 'Magn',
    amount: 'Upphæð',
    discount: 'Afsláttur ({code})',
    total: 'Samtals',
    card: 'Kort',
    reference: 'Tilvísun greiðslu',
    order: 'Pöntun',
    date: 'Dagsetning',
    shopper: 'Greiðandi',
    footer: 'Greiðsluþjónusta {merchant} sendi þennan póst. Geymdu hann.',
    paidFooter: 'Þú færð þennan póst af því að þú baðst um póst við hverja greiðslu; slökktu á því á aðgangssíðunni þinni í gáttinni.',
  },
);

type Key = keyof typeof WORDS.en & string;

/** What a receipt and an owner's notice tell: the payment as the shopper paid it. */
export interface PaidFacts {
  merchantName: string;
  /** The link's description or the session's merchant reference (the order), when there is one. */
  order: string | null;
  items: readonly { name: string; quantity: number | null; amount: number }[];
  /** The promotion code the shopper used and what it took off the items; null: none. */
  discount: { code: string; amount: number } | null;
  amount: number;
  currency: string;
  paymentMethod: string;
  cardLast4: string;
  payfacReference: string;
  paidAt: Date;
  /** The shopper's address, on the owner's notice. */
  shopperEmail: string | null;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const S = {
  body: 'margin:0;padding:24px;background:#f4f5f7;font-family:Helvetica,Arial,sans-serif;color:#1d2430;',
  box: 'max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px;',
  h1: 'font-size:20px;margin:0 0 12px;',
  p: 'font-size:15px;line-height:1.5;margin:0 0 16px;',
  table: 'width:100%;border-collapse:collapse;font-size:14px;margin:0 0 16px;',
  th: 'text-align:left;border-bottom:1px solid #d6d9de;padding:6px 4px;',
  thNum: 'text-align:right;border-bottom:1px solid #d6d9de;padding:6px 4px;',
  td: 'padding:6px 4px;border-bottom:1px solid #eceef1;',
  tdNum: 'padding:6px 4px;border-bottom:1px solid #eceef1;text-align:right;white-space:nowrap;',
  total: 'padding:8px 4px;font-weight:bold;',
  totalNum: 'padding:8px 4px;font-weight:bold;text-align:right;white-space:nowrap;',
  dt: 'padding:4px 12px 4px 0;color:#5b6470;white-space:nowrap;vertical-align:top;',
  dd: 'padding:4px 0;',
  footer: 'font-size:12px;color:#5b6470;margin:16px 0 0;',
} as const;

function card(f: PaidFacts): string {
  return `${f.paymentMethod.toUpperCase()} •••• ${f.cardLast4}`;
}

/** The facts below the items, label and value, the same in both bodies. */
function factRows(t: Translate<Key>, f: PaidFacts, lang: Lang, forOwner: boolean): [string, string][] {
  return [
    [t('merchant'), f.merchantName],
    ...(f.order !== null && f.order !== '' ? ([[t('order'), f.order]] as [string, string][]) : []),
    [t('date'), `${formatDateTime(f.paidAt, lang)} UTC`],
    [t('card'), card(f)],
    [t('reference'), f.payfacReference],
    ...(forOwner && f.shopperEmail !== null ? ([[t('shopper'), f.shopperEmail]] as [string, string][]) : []),
  ];
}

function ItemsAndTotal({ t, f, lang }: { t: Translate<Key>; f: PaidFacts; lang: Lang }): Html {
  return (
    <table style={S.table} role="presentation">
      {f.items.length > 0 ? (
        <tr>
          <th style={S.th}>{t('item')}</th>
          <th style={S.thNum}>{t('quantity')}</th>
          <th style={S.thNum}>{t('amount')}</th>
        </tr>
      ) : null}
      {f.items.map((i) => (
        <tr>
          <td style={S.td}>{i.name}</td>
          <td style={S.tdNum}>{i.quantity === null ? '' : formatQuantity(i.quantity, lang)}</td>
          <td style={S.tdNum}>{formatMoney(i.amount, f.currency, lang)}</td>
        </tr>
      ))}
      {f.discount !== null ? (
        <tr>
          <td style={S.td} colspan={f.items.length > 0 ? 2 : 1}>
            {t('discount', { code: f.discount.code })}
          </td>
          <td style={S.tdNum}>−{formatMoney(f.discount.amount, f.currency, lang)}</td>
        </tr>
      ) : null}
      <tr>
        <td style={S.total} colspan={f.items.length > 0 ? 2 : 1}>
          {t('total')}
        </td>
        <td style={S.totalNum}>{formatMoney(f.amount, f.currency, lang)}</td>
      </tr>
    </table>
  );
}

function Letter(p: {
  lang: Lang;
  title: string;
  heading: string;
  intro: string;
  t: Translate<Key>;
  f: PaidFacts;
  facts: [string, string][];
  footer: string;
}): Html {
  return (
    <html lang={p.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{p.title}</title>
      </head>
      <body style={S.body}>
        <div style={S.box}>
          <h1 style={S.h1}>{p.heading}</h1>
          <p style={S.p}>{p.intro}</p>
          <ItemsAndTotal t={p.t} f={p.f} lang={p.lang} />
          <table style={S.table} role="presentation">
            {p.facts.map(([label, value]) => (
              <tr>
                <td style={S.dt}>{label}</td>
                <td style={S.dd}>{value}</td>
              </tr>
            ))}
          </table>
          <p style={S.footer}>{p.footer}</p>
        </div>
      </body>
    </html>
  );
}

/** The plain-text body: the same content, one fact a line. */
function plainText(heading: string, intro: string, t: Translate<Key>, f: PaidFacts, lang: Lang, facts: [string, string][], footer: string): string {
  const lines = [heading, '', intro, ''];
  for (const i of f.items) {
    const qty = i.quantity === null ? '' : `${formatQuantity(i.quantity, lang)} × `;
    lines.push(`${qty}${i.name}: ${formatMoney(i.amount, f.currency, lang)}`);
  }
  if (f.discount !== null) lines.push(`${t('discount', { code: f.discount.code })}: −${formatMoney(f.discount.amount, f.currency, lang)}`);
  lines.push(`${t('total')}: ${formatMoney(f.amount, f.currency, lang)}`, '');
  for (const [label, value] of facts) lines.push(`${label}: ${value}`);
  lines.push('', footer, '');
  return lines.join('\n');
}

function letter(lang: Lang, f: PaidFacts, kind: 'receipt' | 'paid'): RenderedMail {
  const t = translator(WORDS, lang);
  const vars = { merchant: f.merchantName, amount: formatMoney(f.amount, f.currency, lang) };
  const subject = t(kind === 'receipt' ? 'receiptSubject' : 'paidSubject', vars);
  const heading = t(kind === 'receipt' ? 'receiptHeading' : 'paidHeading');
  const intro = t(kind === 'receipt' ? 'receiptIntro' : 'paidIntro', vars);
  const footer = kind === 'receipt' ? t('footer', vars) : t('paidFooter');
  const facts = factRows(t, f, lang, kind === 'paid');
  return {
    subject,
    text: plainText(heading, intro, t, f, lang, facts, footer),
    html: renderDocument(<Letter lang={lang} title={subject} heading={heading} intro={intro} t={t} f={f} facts={facts} footer={footer} />),
  };
}

/** The shopper's receipt. */
export function receiptMail(lang: Lang, f: PaidFacts): RenderedMail {
  return letter(lang, f, 'receipt');
}

/** An owner's "you were paid". */
export function paidMail(lang: Lang, f: PaidFacts): RenderedMail {
  return letter(lang, f, 'paid');
}
