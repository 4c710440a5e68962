import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { RouteEntry } from '../../src/http/routeTable.js';
import { runSandboxSettlement } from '../../src/settlements/service.js';
import { withTransaction } from '../../src/db/database.js';
import { enqueuePaymentMails } from '../../src/mail/service.js';
import { createPromotionCode } from '../../src/promotionCodes/service.js';
import { createTheme } from '../../src/themes/service.js';
import { createUser } from '../../src/users/service.js';
import { LANG_COOKIE } from '../../src/web/lang.js';
import { call, type TestContext, createTestContext, asOperator } from '../helpers/app.js';
import { FUTURE_EXPIRY, Shopper } from '../checkout/fixtures.js';
import { PortalBrowser, portalUser } from './helpers.js';

// Every portal page, in both languages, rendered with a hostile value in every field it shows (the
// merchant's name, link descriptions and item names, checkout and payment references, webhook URLs
// and descriptions, theme names, user e-mails, audit details, the search and filter text of the
// query string, and the values of a form shown back with its errors): none reaches the HTML
// unescaped. The pages are the GET routes of the app's own route table, so a page added later is
// rendered without anyone listing it (as test/portal/routeTable.test.ts walks the routes); the shopper
// pages are checked in test/unit/pagesEscape.test.ts.

const HOSTILE = `x"'><script>alert(1)</script><img src=x onerror=alert(2)>`;
const HOSTILE_URL = `https://hooks.example.com/p?a="><script>alert(3)</script>&b='x'`;
// An e-mail address refuses <, >, " and spaces (src/users/service.ts): a quote and an ampersand are left.
const HOSTILE_EMAIL = `o'n&x=1@example.com`;

/** The markup a hostile value would add if it were not escaped. */
function unescaped(html: string): string[] {
  const found: string[] = [];
  if (/<script>alert/.test(html)) found.push('<script> from a value');
  if (/<img src=x/.test(html)) found.push('<img> from a value');
  // The value escaped reads `&lt;img src=x onerror=alert(2)>` (a `>` alone opens nothing, so it may
  // stay as it is); an onerror= left outside it is markup.
  if (/onerror=alert/.test(html.replace(/&lt;img src=x onerror=alert\(2\)(?:&gt;|>)/g, ''))) found.push('an onerror= attribute from a value');
  // A value that broke out of a double-quoted attribute would leave `"'>` or `">` right after it.
  if (/x"'>/.test(html) || /="[^"]*"><script/.test(html)) found.push('a quote that ended an attribute');
  if (/&b='x'/.test(html) && !/&amp;b='x'/.test(html)) found.push('a raw & in a URL');
  if (/o'n&x=1/.test(html)) found.push('a raw & in an e-mail address');
  return found;
}

/** Whether a page shows one of the hostile values (escaped), so that its check is about something. */
function shows(html: string): boolean {
  return /&lt;script(?:&gt;|>)alert\(/.test(html) || html.includes(`o'n&amp;x=1`) || html.includes('o&#39;n&amp;x=1');
}

/** Query-string names the portal's pages read (filters, search text, notices, paging); each gets the hostile value. */
const QUERY_NAMES = ['q', 'status', 'state', 'type', 'reference', 'from', 'until', 'page', 'before', 'after', 'done', 'days', 'next', 'm', 'lang'];
const HOSTILE_QUERY = QUERY_NAMES.map((n) => `${n}=${encodeURIComponent(HOSTILE)}`).join('&');

/** An e-mail's HTML as it was sent (shown alone, not in the portal's frame). */
const MAIL_HTML = /\/mail\/:mailId\/html$/;
/**
 * GET routes that answer a file or JSON (the live preview's palette), not a page; and the answer to a
 * URL that cannot be routed (always its 400 page, test/security/secondAudit.test.ts).
 */
const NOT_PAGES = /\/(qr\.svg|export\.csv|themes\/palette|\.unroutable)$|\/assets\//;
/**
 * Forms posted with hostile values in every field, to see them shown back; never those that remove,
 * end or sign out, nor the invitation's (it would be taken, and the browser signed in as its user).
 */
const DESTRUCTIVE = /\/link\/|delete|disable|revoke|remove|sign-out|rotate|language|password|reverse|capture|recover|redeliver|test$|enable|reinvite|role/;

describe('every portal page escapes every value it shows, in both languages', () => {
  let ctx: TestContext;
  let browser: PortalBrowser;
  let samples: Record<string, string>;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    const m = ctx.merchant;
    await ctx.tdb.db.pool.query('UPDATE merchants SET name = $1 WHERE id = $2', [HOSTILE, m.merchantId]);
    const api = async (url: string, body: unknown): Promise<Record<string, unknown>> => {
      const r = await call(ctx, 'POST', url, body);
      expect(r.status, `${url}: ${JSON.stringify(r.body)}`).toBe(200);
      return r.body;
    };
    // The webhook first, so that the payment below is delivered to it.
    const webhookId = (await api('/api/v1/webhooks', { url: HOSTILE_URL, description: HOSTILE })).webhookId as string;
    const link = await api('/api/v1/paymentlinks/create', {
      type: 'PayByLink',
      terminalIdentifier: m.terminalIdentifier,
      amount: 48900,
      currency: 'ISK',
      description: HOSTILE,
      returnUrl: `https://shop.example/back?a="><script>alert(3)</script>&b='x'`,
      // Adjustable: the link's page lists the range under the item's (hostile) name.
      items: [{ name: HOSTILE, quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900, adjustableQuantity: { minimum: 1, maximum: 3 } }],
      shopperInfos: [{ field: 'City', requirementType: 'Prefilled', prefilledValue: HOSTILE }],
      completionMessage: HOSTILE,
      inactiveMessage: HOSTILE,
      termsUrl: `https://shop.example/terms?a="><script>alert(3)</script>&b='x'`,
      customFields: [
        { key: 'size', type: 'Dropdown', label: HOSTILE.slice(0, 50), labelEn: HOSTILE.slice(0, 50), required: true, options: [HOSTILE, 'M'] },
        { key: 'note', type: 'Text', label: HOSTILE.slice(0, 50), required: false },
      ],
    });
    // A payment on the link whose answers to its custom fields are hostile: its submission shows them.
    const linkShopper = new Shopper(ctx);
    await linkShopper.get(`/pay/${String(link.paymentLinkReference)}`);
    const linkPaid = await linkShopper.post(`/pay/${String(link.paymentLinkReference)}`, {
      cardNumber: '4242424242424242',
      expiryDate: FUTURE_EXPIRY,
      cvc: '123',
      'custom-size': HOSTILE,
      'custom-note': HOSTILE,
      acceptTerms: 'yes',
      // The total the page showed for its quantities, as its form carries it.
      shownTotal: '48900',
    });
    expect(linkPaid.statusCode, linkPaid.body.slice(0, 300)).toBe(303);
    const session = {
      amount: 12345,
      currency: 'EUR',
      returnUrl: `https://shop.example/back?a="><script>alert(3)</script>&b='x'`,
      reference: HOSTILE,
      terminalIdentifier: m.terminalIdentifier,
      culture: 'en',
    };
    const checkoutReference = (await api('/api/v1/hostedcheckout', session)).checkoutReference as string;
    const shopper = new Shopper(ctx);
    await shopper.get(`/checkout/${checkoutReference}`);
    const paid = await shopper.post(`/checkout/${checkoutReference}`, { cardNumber: '4242424242424242', expiryDate: FUTURE_EXPIRY, cvc: '123' });
    expect(paid.statusCode, paid.body.slice(0, 300)).toBe(303);
    const { rows: pay } = await ctx.tdb.db.pool.query<{ payfac_reference: string }>('SELECT payfac_reference FROM payments WHERE checkout_reference = $1', [
      checkoutReference,
    ]);
    const { rows: deliveries } = await ctx.tdb.db.pool.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = $1 LIMIT 1', [webhookId]);
    const theme = await createTheme(asOperator(ctx), m.merchantId, {
      name: HOSTILE,
      accentColor: '#1f5eff',
      backgroundColor: '#ffffff',
      buttonShape: 'rounded',
      logo: undefined,
    });
    const { rows: keys } = await ctx.tdb.db.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = $1 LIMIT 1', [m.merchantId]);
    const staff = await portalUser(ctx, 'staff', { email: `s${HOSTILE_EMAIL}` });
    const owner = await portalUser(ctx, 'owner', { email: HOSTILE_EMAIL });
    browser = owner.browser;
    // A sign-in link not yet taken: its page names the address.
    const invited = await createUser(ctx.tdb.db, ctx.clock, {
      email: `i${HOSTILE_EMAIL}`,
      owner: { merchantId: m.merchantId },
      role: 'staff',
      createdBy: owner.userId,
    });
    // A receipt whose every value is hostile, written as a payment writes it.
    const hostileMail = async (payfacReference: string): Promise<string> => {
      const [id] = await withTransaction(ctx.tdb.db, (tx) =>
        enqueuePaymentMails(tx, ctx.clock, {
          merchantId: m.merchantId,
          merchantName: HOSTILE,
          culture: 'en',
          order: HOSTILE,
          items: [{ name: HOSTILE, quantity: 1, amount: 12345 }],
          discount: { code: HOSTILE, amount: 100 },
          amount: 12345,
          currency: 'EUR',
          paymentMethod: 'visa',
          cardLast4: '4242',
          payfacReference,
          shopperEmail: HOSTILE_EMAIL,
        }),
      );
      return id ?? '';
    };
    samples = {
      reference: String(link.paymentLinkReference),
      checkoutReference,
      payfacReference: pay[0]?.payfac_reference ?? '',
      webhookId,
      deliveryId: deliveries[0]?.id ?? '',
      keyId: keys[0]?.id ?? '',
      userId: staff.userId,
      themeKey: theme.themeKey,
      token: invited.token,
      mailId: await hostileMail(pay[0]?.payfac_reference ?? ''),
      settlementId: (await runSandboxSettlement(asOperator(ctx), m.merchantId))[0]?.settlementId ?? '',
      promotionCodeId: (await createPromotionCode({ ...asOperator(ctx), sealer: ctx.sealer }, m.merchantId, { code: 'ESCAPE', percentOff: 5 }, undefined))
        .promotionCodeId,
    };
    // Audit entries whose details carry hostile values: changes made through the portal itself.
    await browser.get(`/portal/links/${samples.reference}/edit`);
    await browser.post(`/portal/links/${samples.reference}/edit`, { description: `${HOSTILE} again` });
    await browser.get('/portal/themes/new');
    await browser.postMultipart('/portal/themes', { name: `${HOSTILE} 2`, accentColor: '#1f5eff', backgroundColor: '#ffffff', buttonShape: 'rounded' });
  }, 120_000);
  afterAll(async () => {
    await ctx.close();
  });

  const pathFor = (route: RouteEntry): string =>
    route.url.replace(/:(\w+)/g, (_m, name: string) => {
      const sample = samples[name];
      if (sample === undefined || sample === '') throw new Error(`no sample for :${name} (${route.url}): add one`);
      return encodeURIComponent(sample);
    });

  /** Every text-like field of every form of a page with its action, for posting back hostile values. */
  const formsOf = (html: string): { action: string; names: string[] }[] =>
    [...html.matchAll(/<form\b[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/g)].flatMap((f) => {
      const action = /action="([^"]*)"/.exec(f[0])?.[1]?.replace(/&amp;/g, '&');
      if (action === undefined || DESTRUCTIVE.test(action.split('?')[0] ?? '')) return [];
      const names = [...(f[1] ?? '').matchAll(/<(?:input|textarea|select)\b[^>]*\bname="([^"]+)"/g)].map((n) => n[1] ?? '').filter((n) => n !== '_csrf');
      return [{ action, names: [...new Set(names)] }];
    });

  for (const lang of ['is', 'en'] as const) {
    it(`in ${lang}: every page, with hostile query strings and with its forms posted back full of hostile values`, { timeout: 300_000 }, async () => {
      await browser.get('/portal/account');
      expect((await browser.post('/portal/account/language', { language: lang })).statusCode).toBe(303);
      const routes = ctx.app.routeTable.filter((r) => r.url.startsWith('/portal') && r.method === 'GET' && !NOT_PAGES.test(r.url));
      const failures: string[] = [];
      const pages = new Set<string>();
      /** Answers that showed a hostile value (escaped): the check saw the values it is about. */
      let showing = 0;
      let posts = 0;
      const blank: string[] = [];
      const visitor = new PortalBrowser(ctx);
      // A visitor's language is their cookie's (src/web/lang.ts).
      visitor.cookies.set(LANG_COOKIE, lang);
      const isPage = (res: LightMyRequestResponse): boolean => String(res.headers['content-type'] ?? '').startsWith('text/html');
      const check = (what: string, res: LightMyRequestResponse): void => {
        if (res.statusCode >= 500) failures.push(`${what}: ${res.statusCode}`);
        if (!isPage(res)) return;
        if (shows(res.body)) showing += 1;
        const found = unescaped(res.body);
        if (found.length > 0) failures.push(`${what}: ${found.join(', ')}`);
      };
      for (const route of routes) {
        const path = pathFor(route);
        let plain = await browser.get(path);
        // A page only for visitors (the sign-in page sends a signed-in user on): as a visitor sees it.
        const who = plain.statusCode === 303 ? visitor : browser;
        if (who === visitor) plain = await visitor.get(path);
        check(`GET ${route.url}`, plain);
        // The page itself, not a refusal: the owner may open every page.
        if (plain.statusCode !== 200) failures.push(`GET ${route.url}: ${plain.statusCode}`);
        // An e-mail's HTML is in the language it was sent in, not the reader's.
        if (isPage(plain) && !MAIL_HTML.test(route.url) && !plain.body.includes(`<html lang="${lang}"`)) failures.push(`GET ${route.url}: not in ${lang}`);
        if (isPage(plain)) pages.add(route.url);
        // A signed-in page shows at least the merchant's (hostile) name, the invitation page the invited
        // address: each page is checked against a value it shows.
        if (who === browser && isPage(plain) && !shows(plain.body)) blank.push(route.url);
        check(`GET ${route.url}?<hostile>`, await who.get(`${path}${path.includes('?') ? '&' : '?'}${HOSTILE_QUERY}`));
        if (plain.statusCode !== 200) continue;
        for (const form of formsOf(plain.body)) {
          // Each form from a fresh load of its page (the last post may have changed the page's token).
          await who.get(path);
          const fields = Object.fromEntries(form.names.map((n) => [n, HOSTILE]));
          check(`POST ${form.action} (form of ${route.url})`, await who.post(form.action, fields));
          posts += 1;
        }
      }
      console.log(
        `${lang}: ${pages.size} portal pages rendered, ${posts} forms posted back, ${showing} answers showing a hostile value:\n  ${[...pages].join('\n  ')}`,
      );
      // Every GET route of the portal that is not a file was rendered as a page.
      expect(routes.map((r) => r.url).filter((u) => !pages.has(u))).toEqual([]);
      expect(failures).toEqual([]);
      expect(blank).toEqual([]);
    });
  }
});
