import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext } from '../helpers/app.js';
import { createUser, redeemLink, type Role, type UserOwner } from '../../src/users/service.js';
import { sessionPolicyOf } from '../../src/portal/routes.js';
import { secureCookies as secureCookiesOf } from '../../src/web/layer.js';
import { sessionCookieName } from '../../src/portal/http.js';
import { LANG_COOKIE } from '../../src/web/lang.js';

// A browser for the portal through app.inject: it keeps cookies, takes the form token of the last page
// it loaded, and posts forms the way a browser does (application/x-www-form-urlencoded).

export const PASSWORD = 'correct horse battery staple';

export class PortalBrowser {
  readonly cookies = new Map<string, string>();
  csrf = '';
  /** The last page's HTML. */
  html = '';
  /** Headers sent with every request besides the cookies (a proxy's X-Forwarded-For). */
  headers: Record<string, string> = {};

  /** The network address the requests come from (the sign-in's limits count by it). */
  constructor(
    readonly ctx: TestContext,
    readonly remoteAddress = '127.0.0.1',
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Takes Set-Cookie (a cleared cookie is forgotten) and the page's form token. */
  remember(res: LightMyRequestResponse): void {
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || attrs.some((a) => /^\s*max-age=0$/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    if ((res.headers['content-type'] ?? '').toString().startsWith('text/html')) {
      this.html = res.body;
      const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
      if (m?.[1]) this.csrf = m[1];
    }
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const res = await this.ctx.app.inject({ method: 'GET', url, remoteAddress: this.remoteAddress, headers: { ...this.headers, cookie: this.cookieHeader() } });
    this.remember(res);
    return res;
  }

  /** Posts a form with the current token (give `_csrf` to send another, or null to send none). */
  async post(url: string, fields: Record<string, string | string[]> | URLSearchParams, opts: { csrf?: string | null } = {}): Promise<LightMyRequestResponse> {
    const body = fields instanceof URLSearchParams ? fields : new URLSearchParams();
    if (!(fields instanceof URLSearchParams)) {
      for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    }
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null && !body.has('_csrf')) body.set('_csrf', token);
    const res = await this.ctx.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.remoteAddress,
      headers: { ...this.headers, 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader() },
      payload: body.toString(),
    });
    this.remember(res);
    return res;
  }

  /**
   * Posts a multipart form (a file upload) as a browser does: the text fields first (the token among
   * them), then the files, each with the name and type the browser would give.
   */
  async postMultipart(
    url: string,
    fields: Record<string, string>,
    files: Record<string, { filename: string; type: string; bytes: Buffer }> = {},
    opts: { csrf?: string | null } = {},
  ): Promise<LightMyRequestResponse> {
    const form = new FormData();
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null && !('_csrf' in fields)) form.append('_csrf', token);
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const [k, f] of Object.entries(files)) form.append(k, new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.filename);
    // The platform's own encoder writes the body and its boundary.
    const encoded = new Request('http://portal.test/', { method: 'POST', body: form });
    const res = await this.ctx.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': encoded.headers.get('content-type') ?? '', cookie: this.cookieHeader() },
      payload: Buffer.from(await encoded.arrayBuffer()),
    });
    this.remember(res);
    return res;
  }

  /** Follows a 303 with a GET, as a browser does. */
  async follow(res: LightMyRequestResponse): Promise<LightMyRequestResponse> {
    expect(res.statusCode, res.body.slice(0, 500)).toBe(303);
    return this.get(String(res.headers.location));
  }

  /** Signs in from the sign-in page (signed in already, from the account page: a form token is bound to the session). */
  async signIn(email: string, password = PASSWORD): Promise<LightMyRequestResponse> {
    if ((await this.get('/portal/sign-in')).statusCode === 303) await this.get('/portal/account');
    return this.post('/portal/sign-in', { email, password, next: '/portal' });
  }
}

/**
 * A user with a password (made as the CLI and an invitation make them), and a browser signed in as
 * them: the session the first sign-in link starts is the browser's, as after its page. Signing in with
 * the password (an argon2id verify at production cost) is what test/portal/sessions.test.ts and
 * accountSecurity.test.ts test; here it would only cost time.
 */
export async function portalUser(
  ctx: TestContext,
  role: Role,
  opts: { owner?: UserOwner; email?: string } = {},
): Promise<{ userId: string; email: string; browser: PortalBrowser }> {
  const email = opts.email ?? `${role}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  const link = await createUser(ctx.tdb.db, ctx.clock, {
    email,
    owner: opts.owner ?? { merchantId: ctx.merchant.merchantId },
    role,
    createdBy: null,
  });
  const redeemed = await redeemLink(ctx.tdb.db, ctx.clock, link.token, { password: PASSWORD, confirm: PASSWORD }, sessionPolicyOf(ctx.config));
  if (redeemed.kind !== 'ok') throw new Error(`the sign-in link was not redeemed: ${redeemed.kind}`);
  const browser = new PortalBrowser(ctx);
  browser.cookies.set(sessionCookieName(secureCookiesOf(ctx.config)), redeemed.session.token);
  browser.cookies.set(LANG_COOKIE, redeemed.session.language);
  const res = await browser.get('/portal');
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return { userId: link.userId, email, browser };
}

/** The text of a page without its tags (to look for words in it). */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/** The row of a page's table that names this text (a user's address, say). */
export function rowOf(html: string, text: string): string {
  return (
    (
      html
        .split('<tr>')
        .slice(1)
        .find((r) => r.includes(text)) ?? ''
    ).split('</tr>')[0] ?? ''
  );
}
