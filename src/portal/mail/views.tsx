import type { Html } from '../../html/jsx-runtime.js';
import type { Mail, MailKind, MailState, MailSummary } from '../../mail/service.js';
import { messages, translator, type Translate } from '../i18n.js';
import type { View } from '../view.js';
import { Badge, Facts, Time } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { listPage } from '../views/listPage.js';
import { Td } from '../views/table.js';

// "Sent e-mails": the merchant's receipts and "you were paid" notices, newest first, each with where
// it stands (waiting, sent, given up) and the message itself as it was sent.

const M = messages(
  {
    title: 'Sent e-mails',
    lead: 'Receipts to shoppers and payment notices to owners, newest first. A message the mail server did not accept is tried again for about eight hours.',
    when: 'Written',
    to: 'To',
    subject: 'Subject',
    kind: 'Kind',
    state: 'State',
    empty: 'No e-mail yet. A receipt is sent when a shopper who gave an e-mail address pays.',
    receipt: 'Receipt',
    paid: 'Payment notice',
    Pending: 'Waiting',
    Sent: 'Sent',
    Failed: 'Given up',
    attempts: 'Attempts',
    nextAttempt: 'Next attempt',
    lastError: 'Last answer of the mail server',
    sentAt: 'Sent',
    payment: 'Payment',
    messageId: 'Message-ID',
    language: 'Language',
    plainText: 'Plain text',
    openHtml: 'Open the HTML version',
    backToList: 'All sent e-mails',
  },
  {
    title: 'Sendur póstur',
    lead: 'Kvittanir til greiðenda og greiðslutilkynningar til eigenda, nýjast fyrst. Póstur sem póstþjónninn tók ekki við er reyndur aftur í um átta klukkustundir.',
    when: 'Skrifað',
    to: 'Til',
    subject: 'Efni',
    kind: 'Tegund',
    state: 'Staða',
    empty: 'Enginn póstur enn. Kvittun er send þegar greiðandi sem gaf upp netfang greiðir.',
    receipt: 'Kvittun',
    paid: 'Greiðslutilkynning',
    Pending: 'Bíður',
    Sent: 'Sendur',
    Failed: 'Gefist upp',
    attempts: 'Tilraunir',
    nextAttempt: 'Næsta tilraun',
    lastError: 'Síðasta svar póstþjónsins',
    sentAt: 'Sendur',
    payment: 'Greiðsla',
    messageId: 'Message-ID',
    language: 'Tungumál',
    plainText: 'Hreinn texti',
    openHtml: 'Opna HTML-útgáfuna',
    backToList: 'Allur sendur póstur',
  },
);

const TONE: Record<MailState, 'ok' | 'info' | 'bad'> = { Pending: 'info', Sent: 'ok', Failed: 'bad' };

function StateBadge({ t, state }: { t: Translate<keyof typeof M.en & string>; state: MailState }): Html {
  return <Badge tone={TONE[state]}>{t(state)}</Badge>;
}

const kindKey = (kind: MailKind): 'receipt' | 'paid' => (kind === 'receipt' ? 'receipt' : 'paid');

export function renderMailList(view: View, data: { mails: readonly MailSummary[]; older: string | null; newer: string | null }): string {
  const t = translator(M, view.lang);
  return listPage(view, t, {
    section: 'mail',
    table: {
      // Three columns, so that a phone shows a row without scrolling sideways: the subject over its
      // recipient, and the state over the kind.
      columns: [t('when'), t('subject'), t('state')],
      rows: data.mails,
      empty: t('empty'),
      paging: { base: `${PORTAL}/mail`, older: data.older, newer: data.newer },
      row: (m) => (
        <tr>
          <Td>
            <Time view={view} at={m.createdAt} />
          </Td>
          <Td class="mail-what">
            <a href={`${PORTAL}/mail/${m.id}`}>{m.subject}</a>
            <br />
            <span class="muted">
              {t('to')} {m.recipient}
            </span>
          </Td>
          <Td>
            <StateBadge t={t} state={m.state} />
            <br />
            <span class="muted">{t(kindKey(m.kind))}</span>
          </Td>
        </tr>
      ),
    },
  });
}

export function renderMail(view: View, data: { mail: Mail; messageId: string }): string {
  const t = translator(M, view.lang);
  const m = data.mail;
  return portalPage({
    view,
    title: m.subject,
    section: 'mail',
    lead: (
      <>
        <StateBadge t={t} state={m.state} /> {t(kindKey(m.kind))}
      </>
    ),
    children: (
      <>
        <section class="panel" aria-labelledby="mail-facts">
          <h2 id="mail-facts" class="visually-hidden">
            {t('title')}
          </h2>
          <Facts
            rows={[
              [t('to'), m.recipient],
              [t('when'), <Time view={view} at={m.createdAt} />],
              m.sentAt ? [t('sentAt'), <Time view={view} at={m.sentAt} />] : null,
              [t('attempts'), String(m.attempts)],
              m.state === 'Pending' ? [t('nextAttempt'), <Time view={view} at={m.nextAttemptAt} />] : null,
              m.lastError !== null ? [t('lastError'), <code>{m.lastError}</code>] : null,
              [t('payment'), <a href={`${PORTAL}/payments/${m.payfacReference}`}>{m.payfacReference}</a>],
              [t('language'), m.lang === 'is' ? 'Íslenska' : 'English'],
              [t('messageId'), <code>{data.messageId}</code>],
            ]}
          />
          <p>
            <a href={`${PORTAL}/mail/${m.id}/html`} target="_blank" rel="noopener">
              {t('openHtml')}
            </a>
          </p>
        </section>
        <section class="panel" aria-labelledby="mail-text">
          <h2 id="mail-text">{t('plainText')}</h2>
          <pre class="mail-text">{m.text}</pre>
        </section>
        <p>
          <a href={`${PORTAL}/mail`}>{t('backToList')}</a>
        </p>
      </>
    ),
  });
}
