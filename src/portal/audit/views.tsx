import type { Html } from '../../html/jsx-runtime.js';
import type { AuditAction, AuditEntry, EntryActor } from '../../audit/service.js';
import { isRole } from '../../users/service.js';
import { ROLE_KEY, messages, translator } from '../i18n.js';
import type { View } from '../view.js';
import { Money, Time } from '../views/components.js';
import { PORTAL } from '../views/layout.js';
import { listPage } from '../views/listPage.js';
import { Td } from '../views/table.js';

// The audit log page: who did what in this merchant's account, newest first, a page at a time.

const M = messages(
  {
    title: 'Audit log',
    lead: 'Who did what in this account, newest first.',
    when: 'When',
    who: 'Who',
    what: 'What',
    target: 'Concerning',
    operator: 'The operator',
    apiKey: 'API key {key}',
    empty: 'Nothing recorded yet.',
    role: 'Role',
    from: 'From',
    to: 'To',
    name: 'Name',
    changed: 'Changed',
    capabilities: 'Capabilities',
    reason: 'Reason',
  },
  {
    title: 'Aðgerðaskrá',
    lead: 'Hver gerði hvað í þessum aðgangi, nýjast fyrst.',
    when: 'Hvenær',
    who: 'Hver',
    what: 'Hvað',
    target: 'Varðar',
    operator: 'Rekstraraðili',
    apiKey: 'API-lykill {key}',
    empty: 'Ekkert skráð enn.',
    role: 'Hlutverk',
    from: 'Úr',
    to: 'Í',
    name: 'Heiti',
    changed: 'Breytt',
    capabilities: 'Heimildir',
    reason: 'Ástæða',
  },
);

/** One sentence per action; an action added to the log without one here is a type error. */
const ACTIONS = messages(
  {
    'link.create': 'Created a payment link',
    'link.update': 'Changed a payment link',
    'link.disable': 'Disabled a payment link',
    'payment.capture': 'Captured a payment',
    'payment.refund': 'Refunded a payment',
    'payment.reverse': 'Reversed a payment',
    'payment.adjust': 'Adjusted the authorisation of a payment',
    'key.create': 'Created an API key',
    'key.revoke': 'Revoked an API key',
    'terminal.add': 'Added a terminal',
    'origins.update': 'Changed the allowed origins',
    'webhook.create': 'Added a webhook',
    'webhook.update': 'Changed a webhook',
    'webhook.enable': 'Enabled a webhook',
    'webhook.disable': 'Disabled a webhook',
    'webhook.rotate': 'Rotated a webhook’s signing secret',
    'webhook.delete': 'Deleted a webhook',
    'webhook.recover': 'Queued a webhook’s failed deliveries again',
    'delivery.redeliver': 'Sent a delivery again',
    'webhook.test': 'Sent a test event to a webhook',
    'theme.create': 'Created a theme',
    'theme.update': 'Changed a theme',
    'theme.delete': 'Deleted a theme',
    'user.invite': 'Invited a user',
    'user.reinvite': 'Sent a user a new invitation',
    'user.remove': 'Removed a user',
    'user.role': 'Changed a user’s role',
    'user.signIn': 'Signed in',
    'user.password': 'Changed their password',
    'user.signOutEverywhere': 'Signed out everywhere',
    'membership.accept': 'Accepted an invitation',
    'membership.decline': 'Declined an invitation',
    'checkout.create': 'Created a checkout session',
    'payment.charge': 'Charged a saved card',
    'token.disable': 'Disabled a saved card',
    'sandbox.event': 'Made a test payment event',
    'sandbox.advance': 'Made pending deliveries due now',
    'sandbox.settle': 'Settled captures and refunds at once',
    'promotion.create': 'Created a promotion code',
    'promotion.update': 'Changed a promotion code',
    'fee.update': 'Set the settlement fee in a currency',
  } satisfies Record<AuditAction, string>,
  {
    'link.create': 'Stofnaði greiðsluhlekk',
    'link.update': 'Breytti greiðsluhlekk',
    'link.disable': 'Gerði greiðsluhlekk óvirkan',
    'payment.capture': 'Innheimti greiðslu',
    'payment.refund': 'Endurgreiddi greiðslu',
    'payment.reverse': 'Bakfærði greiðslu',
    'payment.adjust': 'Breytti heimild greiðslu',
    'key.create': 'Bjó til API-lykil',
    'key.revoke': 'Afturkallaði API-lykil',
    'terminal.add': 'Bætti við útstöð',
    'origins.update': 'Breytti leyfðum vefsvæðum',
    'webhook.create': 'Bætti við vefkrók',
    'webhook.update': 'Breytti vefkrók',
    'webhook.enable': 'Virkjaði vefkrók',
    'webhook.disable': 'Gerði vefkrók óvirkan',
    'webhook.rotate': 'Skipti um undirritunarlykil vefkróks',
    'webhook.delete': 'Eyddi vefkrók',
    'webhook.recover': 'Setti misheppnaðar sendingar vefkróks aftur af stað',
    'delivery.redeliver': 'Sendi sendingu aftur',
    'webhook.test': 'Sendi prófunaratburð á vefkrók',
    'theme.create': 'Bjó til útlit',
    'theme.update': 'Breytti útliti',
    'theme.delete': 'Eyddi útliti',
    'user.invite': 'Bauð notanda',
    'user.reinvite': 'Sendi notanda nýtt boð',
    'user.remove': 'Fjarlægði notanda',
    'user.role': 'Breytti hlutverki notanda',
    'user.signIn': 'Skráði sig inn',
    'user.password': 'Breytti lykilorðinu sínu',
    'user.signOutEverywhere': 'Skráði sig út alls staðar',
    'membership.accept': 'Þáði boð',
    'membership.decline': 'Hafnaði boði',
    'checkout.create': 'Stofnaði greiðslusíðu',
    'payment.charge': 'Skuldfærði vistað kort',
    'token.disable': 'Gerði vistað kort óvirkt',
    'sandbox.event': 'Bjó til prófunargreiðsluatburð',
    'sandbox.advance': 'Flýtti sendingum sem biðu',
    'sandbox.settle': 'Gerði upp færslur strax',
    'promotion.create': 'Bjó til afsláttarkóða',
    'promotion.update': 'Breytti afsláttarkóða',
    'fee.update': 'Stillti uppgjörsgjald í gjaldmiðli',
  },
);

type DetailLabel = 'role' | 'from' | 'to' | 'name' | 'changed' | 'capabilities' | 'reason';
const DETAIL_LABELS: readonly string[] = ['role', 'from', 'to', 'name', 'changed', 'capabilities', 'reason'] satisfies DetailLabel[];

function isDetailLabel(k: string): k is DetailLabel {
  return DETAIL_LABELS.includes(k);
}

function actionText(view: View, action: string): string {
  const t = translator(ACTIONS, view.lang);
  // An entry written by a later version may name an action this one does not know: shown as it is.
  return Object.hasOwn(ACTIONS.en, action) ? t(action as AuditAction) : action;
}

function valueText(view: View, key: string, v: unknown): string {
  if (typeof v === 'string') return (key === 'role' || key === 'from' || key === 'to') && isRole(v) ? view.t(ROLE_KEY[v]) : v;
  if (typeof v === 'boolean') return v ? view.t('yes') : view.t('no');
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map((x) => valueText(view, key, x)).join(', ');
  return JSON.stringify(v);
}

/** An entry's details: an amount as money, a role in words, the rest as it was recorded. */
function Details({ view, details }: { view: View; details: Record<string, unknown> }): Html {
  const t = translator(M, view.lang);
  const money = typeof details.amount === 'number' && typeof details.currency === 'string' ? { minor: details.amount, currency: details.currency } : null;
  const rest = Object.entries(details).filter(([k]) => !(money && (k === 'amount' || k === 'currency')));
  if (!money && rest.length === 0) return <span class="muted">–</span>;
  return (
    <ul class="details">
      {money ? (
        <li>
          {view.t('amount')}: <Money view={view} minor={money.minor} currency={money.currency} />
        </li>
      ) : null}
      {rest.map(([k, v]) => (
        <li>
          {isDetailLabel(k) ? t(k) : k}: {valueText(view, k, v)}
        </li>
      ))}
    </ul>
  );
}

/** A portal user by their address, an API key by its id and first and last characters, else the operator. */
function Who({ view, actor }: { view: View; actor: EntryActor }): Html {
  const t = translator(M, view.lang);
  if (actor.key) {
    return (
      <span>
        {t('apiKey', { key: actor.key.display ?? '' })} <code>{actor.key.keyId}</code>
      </span>
    );
  }
  return actor.email !== null ? <span>{actor.email}</span> : <span class="muted">{t('operator')}</span>;
}

export function renderAudit(view: View, data: { entries: readonly AuditEntry[]; older: string | null; newer: string | null }): string {
  const t = translator(M, view.lang);
  return listPage(view, t, {
    section: 'audit',
    table: {
      columns: [t('when'), t('who'), t('what'), t('target'), view.t('details')],
      rows: data.entries,
      empty: t('empty'),
      paging: { base: `${PORTAL}/audit`, older: data.older, newer: data.newer },
      row: (e) => (
        <tr>
          <Td class="nowrap">
            <Time view={view} at={e.at} />
          </Td>
          <Td class="wrap">
            <Who view={view} actor={e.actor} />
          </Td>
          <Td>{actionText(view, e.action)}</Td>
          <Td class="wrap">{e.target ? <code>{e.target}</code> : <span class="muted">–</span>}</Td>
          <Td class="wrap">
            <Details view={view} details={e.details} />
          </Td>
        </tr>
      ),
    },
  });
}
