import type { ComponentChildren, VNode } from 'preact';
import { renderDocument } from '../../html/render.js';
import { html } from '../../html/template.js';
import type { Permission } from '../access.js';
import { ROLE_KEY, type CoreKey } from '../i18n.js';
import type { PublicView, View } from '../view.js';
import { Csrf } from './components.js';

// The portal's two page frames: the signed-in one (header with merchant and user, the navigation of
// what the role allows, the page) and the public one (sign-in, one-time links).

export const PORTAL = '/portal';

export interface NavEntry {
  section: string;
  href: string;
  label: CoreKey;
  permission: Permission;
}

export const NAV: readonly NavEntry[] = [
  { section: 'overview', href: `${PORTAL}`, label: 'navOverview', permission: 'portal.use' },
  { section: 'links', href: `${PORTAL}/links`, label: 'navLinks', permission: 'links.read' },
  { section: 'sessions', href: `${PORTAL}/sessions`, label: 'navSessions', permission: 'sessions.read' },
  { section: 'payments', href: `${PORTAL}/payments`, label: 'navPayments', permission: 'payments.read' },
  { section: 'webhooks', href: `${PORTAL}/webhooks`, label: 'navWebhooks', permission: 'webhooks.read' },
  { section: 'developers', href: `${PORTAL}/developers`, label: 'navDevelopers', permission: 'developers.manage' },
  { section: 'themes', href: `${PORTAL}/themes`, label: 'navThemes', permission: 'themes.manage' },
  { section: 'users', href: `${PORTAL}/users`, label: 'navUsers', permission: 'users.manage' },
  { section: 'audit', href: `${PORTAL}/audit`, label: 'navAudit', permission: 'audit.read' },
];

// The frame is on every page, so it is written as templates (src/html/template.ts): the same HTML as
// JSX would give, in a fraction of the renderer's time.

function head(title: string, view: PublicView): VNode {
  return html`
    <head>
      <meta charset="utf-8"/>
      <meta name="viewport" content="width=device-width, initial-scale=1"/>
      <meta name="robots" content="noindex, nofollow"/>
      <title>${`${title} · ${view.t('portal')}`}</title>
      <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
      <link rel="stylesheet" href="${PORTAL}/assets/portal.css"/>
      <script src="${PORTAL}/assets/portal.js" defer></script>
    </head>`;
}

const csrfInput = (view: PublicView): VNode => Csrf({ view });

/** The language switch: a link to the same page in the other language (the choice is saved for a signed-in user). */
function languageSwitch(view: PublicView): VNode {
  const other = view.lang === 'is' ? 'en' : 'is';
  return html`
    <form method="post" action="${PORTAL}/language" class="inline lang">
      ${csrfInput(view)}
      <input type="hidden" name="language" value="${other}"/>
      <input type="hidden" name="back" value="${view.here}"/>
      <button type="submit" class="link" lang="${other}">${view.t('otherLanguage')}</button>
    </form>`;
}

function MerchantSwitch({ view }: { view: View }): VNode {
  if (view.merchants.length < 2) return html`<span class="merchant-name">${view.merchant.name}</span>`;
  return (
    <form method="post" action={`${PORTAL}/switch`} class="inline switch">
      <Csrf view={view} />
      <label for="switch-merchant" class="visually-hidden">
        {view.t('merchant')}
      </label>
      <select id="switch-merchant" name="merchantId">
        {view.merchants.map((m) => (
          <option value={m.merchantId} selected={m.merchantId === view.merchant.merchantId}>
            {m.name}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary small">
        {view.t('switchMerchant')}
      </button>
    </form>
  );
}

export interface PageProps {
  view: View;
  /** The heading (and the tab's title). */
  title: string;
  /** Which navigation entry is current. */
  section: string;
  children: ComponentChildren;
  /** Links or buttons beside the heading. */
  actions?: ComponentChildren;
  /** A short line under the heading. */
  lead?: ComponentChildren;
}

export function Page({ view, title, section, children, actions, lead }: PageProps): VNode {
  const { t } = view;
  const account = section === 'account';
  const who = html`<span class="visually-hidden">${t('navAccount')}: </span>${view.user.email}`;
  return html`
    <html lang="${view.lang}">
      ${head(title, view)}
      <body>
        <a class="skip" href="#main">${t('skipToContent')}</a>
        <header class="topbar">
          <a class="brand" href="${PORTAL}"><img src="/favicon.svg" alt width="24" height="24"/><span>paylinks</span></a>
          <div class="who">${MerchantSwitch({ view })}<span class="role">${t(ROLE_KEY[view.user.role])}</span></div>
          <div class="user">
            ${languageSwitch(view)}
            ${account ? html`<a href="${PORTAL}/account" class="current" aria-current="page">${who}</a>` : html`<a href="${PORTAL}/account">${who}</a>`}
            <form method="post" action="${PORTAL}/sign-out" class="inline">
              ${csrfInput(view)}
              <button type="submit" class="link">${t('signOut')}</button>
            </form>
          </div>
        </header>
        <div class="shell">
          <nav class="sidenav" aria-label="${t('mainNavigation')}">
            <ul>
              ${NAV.filter((n) => view.can(n.permission)).map((n) =>
                n.section === section
                  ? html`<li><a href="${n.href}" aria-current="page">${t(n.label)}</a></li>`
                  : html`<li><a href="${n.href}">${t(n.label)}</a></li>`,
              )}
            </ul>
          </nav>
          <main id="main" tabindex="-1">
            <div class="page-head">
              <h1>${title}</h1>
              ${actions ? html`<div class="page-actions">${actions}</div>` : null}
            </div>
            ${lead ? html`<p class="lead">${lead}</p>` : null}
            ${children}
          </main>
        </div>
      </body>
    </html>`;
}

export function portalPage(props: PageProps): string {
  return renderDocument(<Page {...props} />);
}

/** A page for someone not signed in: a narrow card with the language switch. */
export function publicPage({ view, title, children }: { view: PublicView; title: string; children: ComponentChildren }): string {
  return renderDocument(
    <html lang={view.lang}>
      {head(title, view)}
      <body class="public">
        <main id="main" class="card">
          <div class="card-head">
            <span class="brand">
              <img src="/favicon.svg" alt="" width={24} height={24} />
              <span>paylinks</span>
            </span>
            {languageSwitch(view)}
          </div>
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>,
  );
}
