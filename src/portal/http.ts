import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { App } from '../http/app.js';
import type { Metrics } from '../metrics.js';
import type { PortalScript } from './assets.js';
import type { Acquirer } from '../payments/acquirer.js';
import type { Sealer } from '../sealing.js';
import type { Resolver } from '../webhooks/service.js';
import { ApiError } from '../errors.js';
import { merchantsFor, type PortalSession, type SessionPolicy } from '../users/service.js';
import { negotiateLang } from '../web/lang.js';
import { formToken } from '../web/formTokens.js';
import { FieldErrors, publicView, signedInView, type PublicView, type View } from './view.js';
import { CORE, ROLE_KEY, translator } from './i18n.js';

// What the portal's route files share: the session of the request, its view (language, user,
// merchant, form token), reading a posted form, and answering with a page or a redirect.

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user of a portal request (set by the portal's access hook), or null. */
    portalSession: PortalSession | null;
    /** Whether the body was parsed (set after the body parsers; see the portal's error handler). */
    portalBodyRead: boolean;
  }
}

/** What the portal's areas are given: what the app provides (src/http/app.ts), and the portal's own session rules. */
export interface PortalDeps {
  config: Config;
  db: Database;
  clock: Clock;
  sealer: Sealer;
  acquirer: Acquirer;
  metrics: Metrics;
  /** DNS for the webhook address rules; null: the system's. */
  webhookResolver: Resolver | null;
  sessionPolicy: SessionPolicy;
  /** Cookies only over https (production, or a public base URL that is https). */
  secureCookies: boolean;
}

const SESSION_COOKIE = 'paylinks_session';

/** The session cookie's name: `__Host-` keeps it to this host and path when it can be Secure. */
export function sessionCookieName(secure: boolean): string {
  return secure ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
}

/** The signed-in session of a route that needs one (the access hook has made sure there is one). */
export function sessionOfRequest(request: FastifyRequest): PortalSession {
  const s = request.portalSession;
  if (!s) throw new ApiError('UNAUTHENTICATED', 'sign in first');
  return s;
}

/**
 * Where the language switch brings the reader back: this page, or for the answer to a post (a form
 * shown again with its errors; a post's address may have no page of its own) the part of the portal
 * it belongs to.
 */
function pageAddressOf(request: FastifyRequest): string {
  const pattern = request.routeOptions.url;
  if (request.method === 'GET' || (pattern !== undefined && request.server.hasRoute({ method: 'GET', url: pattern }))) return request.url;
  const section = /^\/portal\/[a-z-]+/.exec(request.url)?.[0];
  return section ?? '/portal';
}

export function publicViewFor(request: FastifyRequest, reply: FastifyReply): PublicView {
  // A signed-in user's saved choice, else the visitor's (their cookie, else their browser's).
  const lang = negotiateLang(request, [request.portalSession?.language], 'en');
  return publicView(lang, formToken(request, reply), pageAddressOf(request));
}

/** The view of a signed-in page: the user, the merchant's name (read with the session), the form token. */
export async function viewFor(request: FastifyRequest, reply: FastifyReply, deps: Pick<PortalDeps, 'db'>): Promise<View> {
  const session = sessionOfRequest(request);
  const name = session.merchantName;
  const merchants = await merchantsFor(deps.db, session);
  // The switcher names each merchant with the person's role there (a role per membership).
  const t = translator(CORE, session.language);
  return signedInView(
    session,
    formToken(request, reply),
    pageAddressOf(request),
    { merchantId: session.merchantId, name: name ?? session.merchantId },
    merchants.map((m) => ({ merchantId: m.merchantId, name: `${m.name} · ${t(ROLE_KEY[m.role])}` })),
  );
}

/** A form post's fields: one value, or several for a repeated name; a file as its bytes. */
export class Form {
  private readonly fields: Record<string, unknown>;

  constructor(body: unknown) {
    this.fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  }

  /** The field's value (the first, if repeated); '' when absent. */
  text(name: string): string {
    const v = this.fields[name];
    const first = Array.isArray(v) ? v[0] : v;
    return typeof first === 'string' ? first : '';
  }

  /** Every value of a repeated field. */
  texts(name: string): string[] {
    const v = this.fields[name];
    const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
    return list.filter((x): x is string => typeof x === 'string');
  }

  /** The field's value when it was sent exactly once, as text; undefined otherwise (absent, repeated, a file, a JSON value that is no string). */
  single(name: string): string | undefined {
    const v = this.fields[name];
    const one = Array.isArray(v) && v.length === 1 ? v[0] : v;
    return typeof one === 'string' ? one : undefined;
  }

  has(name: string): boolean {
    return Object.hasOwn(this.fields, name);
  }

  /** Every field name, in the order the browser sent them. */
  names(): string[] {
    return Object.keys(this.fields);
  }

  /** An uploaded file's bytes, or undefined when none was chosen. */
  file(name: string): Buffer | undefined {
    const v = this.fields[name];
    return Buffer.isBuffer(v) && v.length > 0 ? v : undefined;
  }
}

/** A whole number typed in a form as the API takes it; other text as typed, so that the API's own error names it; blank: undefined. */
export function wholeNumberOf(text: string): number | string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  return /^-?\d{1,15}$/.test(t) ? Number(t) : t;
}

export function formOf(request: FastifyRequest): Form {
  return new Form(request.body);
}

export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** After a post that changed something: see the result with a GET (the browser's back button stays harmless). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('Location', location).send();
}

/** A path inside the portal to go back to, or the portal's home (never another site: no open redirect). */
export function safeReturnPath(raw: string, fallback = '/portal'): string {
  return /^\/portal(?:[/?#]|$)/.test(raw) && !raw.startsWith('//') && !raw.includes('\\') && !/[\r\n]/.test(raw) ? raw : fallback;
}

/**
 * Runs a change through its service; the service's refusal with field errors (the API's 400) comes
 * back as those errors, for the form to show beside its fields. Anything else is thrown on.
 */
export async function refusable<R>(run: () => Promise<R>): Promise<{ ok: R } | { errors: FieldErrors }> {
  try {
    return { ok: await run() };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'VALIDATION_FAILED' && err.errors) return { errors: new FieldErrors(err.errors) };
    throw err;
  }
}

/** How many rows a list page of the portal shows (links, payments, sessions, webhooks and their deliveries). */
export const PAGE_SIZE = 20;

/** The notice a form's page shows after it redirected with `?done=created` or `?done=saved`; none for anything else. */
export function savedNotice(done: unknown): 'created' | 'saved' | null {
  return done === 'created' || done === 'saved' ? done : null;
}

/** Page numbers from a query (from 0, as in the API); anything else is the first page. */
export function pageParam(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 0;
  return n;
}

/**
 * One part of the portal (links, payments, ...): its routes, and the style rules and script functions
 * its pages need (added to the portal's one stylesheet and one script).
 */
export interface PortalArea {
  routes(portal: App, deps: PortalDeps): void | Promise<void>;
  styles?: string;
  scripts?: readonly PortalScript[];
}
