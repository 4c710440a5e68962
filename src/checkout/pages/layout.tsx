import type { Children, Html } from '../../html/jsx-runtime.js';
import { renderDocument } from '../../html/render.js';
import type { Checkoutable } from '../shopper.js';
import { formatMoney } from '../../html/format.js';
import { ItemsTable } from '../../web/itemsTable.js';
import type { MessageKey } from './i18n.js';
import { otherLang, type Lang, type Translate } from '../../web/lang.js';
import { themeClass } from './styles.js';
import { CHECKOUT_CSS_HREF } from './assets.js';
import { CUSTOM_THEME_CLASS, type ThemeAssets } from '../../themes/service.js';

// The shopper's pages as server-rendered HTML, written as typed JSX components (src/html/jsx-runtime.ts
// writes them to a string on the server; no script renders them in the browser). Every value is
// escaped by that runtime, and there is no way to put raw HTML into a page. The pages work without JavaScript and under a CSP
// without inline script; every input has a visible <label>; errors are tied to their input
// (aria-describedby) and announced (role=alert).
// This file holds what every page is built on: the document around a page, the order summary, and
// the way back to the shop.

export interface PageContext {
  lang: Lang;
  t: Translate<MessageKey>;
  /** `/pay/{reference}` or `/checkout/{reference}`. */
  basePath: string;
  /** The merchant's own theme, when the link's or session's themeKey names one (else a built-in palette). */
  theme?: ThemeAssets | null;
}

const REFRESH_SECONDS = 5;

/** A whole page: the doctype and the rendered document. */
export function page(ctx: PageContext, c: Checkoutable | null, title: string, body: Children, head?: Children): string {
  const other = otherLang(ctx.lang);
  const theme = c ? ctx.theme : null;
  const doc = (
    <html lang={ctx.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{title}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href={CHECKOUT_CSS_HREF} />
        {theme ? <link rel="stylesheet" href={theme.stylesheet} /> : null}
        {head}
      </head>
      {/* A theme's stylesheet sets the default palette's properties again; without it the page keeps the default. */}
      <body class={theme ? `${themeClass(null)} ${CUSTOM_THEME_CLASS}` : themeClass(c?.themeKey ?? null)}>
        <main data-status={c ? c.status : undefined}>
          <header>
            {c ? <p class="merchant">{theme?.logo ? <img class="logo" src={theme.logo} alt={c.merchantName} /> : c.merchantName}</p> : <span />}
            {c ? (
              <nav class="lang" aria-label={ctx.t('language')}>
                <a href={`${ctx.basePath}?lang=${other}`} lang={other} hreflang={other}>
                  {ctx.t('switchLanguage')}
                </a>
              </nav>
            ) : null}
          </header>
          {body}
        </main>
      </body>
    </html>
  );
  return renderDocument(doc);
}

/** Sends the browser on to `url` after a few seconds (with a link to go at once). */
export function refreshTo(url: string): Html {
  return <meta http-equiv="refresh" content={`${REFRESH_SECONDS}; url=${url}`} />;
}

export function money(ctx: PageContext, minor: number, currency: string): string {
  return formatMoney(minor, currency, ctx.lang);
}

export function heading(ctx: PageContext, c: Checkoutable): string {
  if (c.description !== '') return c.description;
  // A session has no description of its own: say whose payment it is and for which order.
  return c.kind === 'session' ? ctx.t('sessionHeading', { merchant: c.merchantName, reference: c.merchantReference }) : ctx.t('payment');
}

export function Summary({ ctx, c }: { ctx: PageContext; c: Checkoutable }): Html {
  const { t } = ctx;
  if (c.tokenize && c.amount === 0) return <p class="notice">{t('tokenizeIntro', { merchant: c.merchantName })}</p>;
  return (
    <>
      <ItemsTable
        lang={ctx.lang}
        currency={c.currency}
        look="shopper"
        class="items"
        caption={t('orderSummary')}
        words={{ item: t('item'), quantity: t('quantity'), unitPrice: t('unitPrice'), amount: t('amount'), total: t('total') }}
        lines={c.items}
        total={c.amount}
      />
      {c.tokenize ? <p class="notice">{t('recurringNote', { merchant: c.merchantName })}</p> : null}
    </>
  );
}

export function BackToShop({ ctx, url }: { ctx: PageContext; url: string }): Html {
  return (
    <>
      <p>{ctx.t('redirecting')}</p>
      <a class="button" href={url} rel="noreferrer">
        {ctx.t('continue')}
      </a>
    </>
  );
}
