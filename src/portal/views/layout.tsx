import type { Children, Html } from '../../html/jsx-runtime.js';
import { renderDocument } from '../../html/render.js';
import type { Permission } from '../access.js';
import { ROLE_KEY, type CoreKey } from '../i18n.js';
import type { PublicView, View } from '../view.js';
import { Csrf, Notice } from './components.js';

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
  { section: 'settlements', href: `${PORTAL}/settlements`, label: 'navSettlements', permission: 'payments.read' },
  { section: 'mail', href: `${PORTAL}/mail`, label: 'navMail', permission: 'payments.read' },
  { section: 'promotionCodes', href: `${PORTAL}/promotion-codes`, label: 'navPromotionCodes', permission: 'links.read' },
  { section: 'webhooks', href: `${PORTAL}/webhooks`, label: 'navWebhooks', permission: 'webhooks.read' },
  { section: 'developers', href: `${PORTAL}/developers`, label: 'navDevelopers', permission: 'developers.manage' },
  { section: 'themes', href: `${PORTAL}/themes`, label: 'navThemes', permission: 'themes.manage' },
  { section: 'users', href: `${PORTAL}/users`, label: 'navUsers', permission: 'users.manage' },
  { section: 'audit', href: `${PORTAL}/audit`, label: 'navAudit', permission: 'audit.read' },
];

function Head({ title, view }: { title: string; view: PublicView }): Html {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex, nofollow" />
      <title>{`${title} · ${view.t('portal')}`}</title>
      <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
      <link rel="stylesheet" href={`${PORTAL}/assets/portal.css`} />
      <script src={`${PORTAL}/assets/portal.js`} defer></script>
    </head>
  );
}

/** The language switch: a link to the same page in the other language (the choice is saved for a signed-in user). */
function LanguageSwitch({ view }: { view: PublicView }): Html {
  const other = view.lang === 'is' ? 'en' : 'is';
  return (
    <form method="post" action={`${PORTAL}/language`} class="inline lang">
      <Csrf view={view} />
      <input type="hidden" name="language" value={other} />
      <input type="hidden" name="back" value={view.here} />
      <button type="submit" class="link" lang={other}>
        {view.t('otherLanguage')}
      </button>
    </form>
  );
}

function MerchantSwitch({ view }: { view: View }): Html {
  if (view.merchants.length < 2) return <span class="merchant-name">{view.merchant.name}</span>;
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

/** Each side navigation written so far, by language, role and current section: the same on every page that has these. */
const sideNavs = new Map<string, Html>();

/** The navigation of what the role allows, with the current section marked. */
function SideNav({ view, section }: { view: View; section: string }): Html {
  const key = `${view.lang} ${view.user.role} ${section}`;
  let nav = sideNavs.get(key);
  if (nav !== undefined) return nav;
  nav = (
    <nav class="sidenav" aria-label={view.t('mainNavigation')}>
      <ul>
        {NAV.filter((n) => view.can(n.permission)).map((n) => (
          <li>
            <a href={n.href} aria-current={n.section === section ? 'page' : undefined}>
              {view.t(n.label)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
  if (sideNavs.size < 1000) sideNavs.set(key, nav);
  return nav;
}

export interface PageProps {
  view: View;
  /** The heading (and the tab's title). */
  title: string;
  /** Which navigation entry is current. */
  section: string;
  children: Children;
  /** Links or buttons beside the heading. */
  actions?: Children;
  /** A short line under the heading. */
  lead?: Children;
  /** What the post before this page did ("The theme is deleted."), above the page's content. */
  notice?: Children;
}

export function Page({ view, title, section, children, actions, lead, notice }: PageProps): Html {
  const { t } = view;
  const account = section === 'account';
  const who = (
    <>
      <span class="visually-hidden">{t('navAccount')}: </span>
      {view.user.email}
    </>
  );
  return (
    <html lang={view.lang}>
      <Head title={title} view={view} />
      <body>
        <a class="skip" href="#main">
          {t('skipToContent')}
        </a>
        <header class="topbar">
          <a class="brand" href={PORTAL}>
            <img src="/favicon.svg" alt="" width={24} height={24} />
            <span>paylinks</span>
          </a>
          <div class="who">
            <MerchantSwitch view={view} />
            <span class="role">{t(ROLE_KEY[view.user.role])}</span>
          </div>
          <div class="user">
            <LanguageSwitch view={view} />
            {account ? (
              <a href={`${PORTAL}/account`} class="current" aria-current="page">
                {who}
              </a>
            ) : (
              <a href={`${PORTAL}/account`}>{who}</a>
            )}
            <form method="post" action={`${PORTAL}/sign-out`} class="inline">
              <Csrf view={view} />
              <button type="submit" class="link">
                {t('signOut')}
              </button>
            </form>
          </div>
        </header>
        <div class="shell">
          <SideNav view={view} section={section} />
          <main id="main" tabindex={-1}>
            <div class="page-head">
              <h1>{title}</h1>
              {actions ? <div class="page-actions">{actions}</div> : null}
            </div>
            {lead ? <p class="lead">{lead}</p> : null}
            {notice ? <Notice>{notice}</Notice> : null}
            {children}
          </main>
        </div>
      </body>
    </html>
  );
}

export function portalPage(props: PageProps): string {
  return renderDocument(<Page {...props} />);
}

/** A page that is one panel: a confirmation, a secret shown this once. */
export function panelPage(page: Omit<PageProps, 'children'>, panel: Children): string {
  return portalPage({ ...page, children: <section class="panel">{panel}</section> });
}

/** A page for someone not signed in: a narrow card with the language switch. */
export function publicPage({ view, title, children }: { view: PublicView; title: string; children: Children }): string {
  return renderDocument(
    <html lang={view.lang}>
      <Head title={title} view={view} />
      <body class="public">
        <main id="main" class="card">
          <div class="card-head">
            <span class="brand">
              <img src="/favicon.svg" alt="" width={24} height={24} />
              <span>paylinks</span>
            </span>
            <LanguageSwitch view={view} />
          </div>
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>,
  );
}
