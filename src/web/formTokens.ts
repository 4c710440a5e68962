import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import csrf from '@fastify/csrf-protection';

// The one form token of every HTML form, the shopper's and the portal's (@fastify/csrf-protection in
// its cookie mode). A random secret lives in an HttpOnly cookie, signed with the service's key; a
// form carries a token that is the HMAC of that secret and of what the form is bound to. A post is
// taken only when its token matches the cookie of the same browser and the same binding. The
// shopper's pages and the portal each have a secret cookie of their own: a browser that opens both
// for the first time at once (two tabs, a restored session) gets one secret from each, and neither
// page's answer replaces the secret the other's open form was made with.
//
// - a portal form is bound to the signed-in session (a token from another session is refused), or
//   to nobody before sign-in;
// - a shopper's form is bound to its page, /pay/{reference}, /checkout/{reference} or
//   /charge/{reference}: a token taken from one link's page does not pay another.
//
// The shopper's pages have no session, which is why the cookie mode fits them: the signed secret
// cookie is the browser's own, and nothing is stored on the server. What a token cannot do, pay
// twice, is the payment's rule, not the form's: a link's sales count, a session's status and a 3-D
// Secure step used once are checked by the service inside the payment's transaction.

export const FORM_TOKEN_FIELD = '_csrf';

/** What a form is bound to before anything else is known (never empty: the token library refuses an empty one). */
const UNBOUND = 'nobody';

declare module 'fastify' {
  interface FastifyRequest {
    /** What this request's form tokens are bound to (set by the part of the site that answers it). */
    formBinding: string | null;
  }
}

/** The parts of the site with a secret cookie of their own. */
export type FormPart = 'shopper' | 'portal';

export interface FormTokenOptions {
  /** Whose forms these are (names the secret cookie). */
  part: FormPart;
  /** The secret cookie is Secure, and then host-only (`__Host-`). */
  secure: boolean;
  /** Keys the token's HMAC (the cookie's signature has its own key, given to the cookie parser). */
  hmacKey: Buffer;
  /** The service's own origin (of its public base URL): a post from any other is refused. */
  ownOrigin: string;
}

export function formTokenCookieName(part: FormPart, secure: boolean): string {
  const name = `paylinks_${part}_csrf`;
  return secure ? `__Host-${name}` : name;
}

/** Registers the form tokens of one part on its context (the cookie parser and formBinding are the web layer's). */
export async function installFormTokens(web: FastifyInstance, opts: FormTokenOptions): Promise<void> {
  await web.register(csrf, {
    cookieKey: formTokenCookieName(opts.part, opts.secure),
    cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure: opts.secure, signed: true },
    getUserInfo: bindingOf,
    getToken: tokenOf,
    csrfOpts: { hmacKey: opts.hmacKey, userInfo: true },
  });
  // Every post comes from one of the service's own pages (defence in depth: the token is the rule).
  // Checked before the body is read, after the part's own first hooks (its page headers, the
  // portal's session), so the refusal is the part's own 403 page.
  web.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || !isForeignPost(request, opts.ownOrigin)) done(null, payload);
    else done(new ForeignPostError());
  });
  // Every post carries its form's token: checked after the body is read, before any handler runs.
  web.addHook('preHandler', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') {
      done();
      return;
    }
    web.csrfProtection(request, reply, done);
  });
}

/** Binds this request's form tokens (issued and checked) to a session, a page, or (null) nobody. */
export function bindForms(request: FastifyRequest, binding: string | null): void {
  request.formBinding = binding;
}

/** The token for the forms of the page being answered (sets the secret cookie when the browser has none). */
export function formToken(request: FastifyRequest, reply: FastifyReply): string {
  return reply.generateCsrf({ userInfo: bindingOf(request) });
}

/** Whether an error is the refusal of a post's token (missing, or not this browser's and binding's), or of a post from another site. */
export function isFormTokenError(error: FastifyError): boolean {
  return error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET' || error.code === FOREIGN_POST;
}

const FOREIGN_POST = 'PAYLINKS_FOREIGN_POST';

/** A post sent by a page of another site. */
class ForeignPostError extends Error {
  readonly code = FOREIGN_POST;
  readonly statusCode = 403;
  constructor() {
    super('the form was sent from another site');
    this.name = 'ForeignPostError';
  }
}

/**
 * Whether a browser says this post comes from a page of another site: its Sec-Fetch-Site names
 * another site, or its Origin is neither the service's public origin nor the host the request was
 * sent to (the same service reached by another name, such as localhost for 127.0.0.1), or is
 * `null` without the browser saying the post is same-origin: an opaque origin, as a sandboxed frame or
 * a data: page of another site sends. The service's own pages are sent with Referrer-Policy
 * same-origin (src/web/headers.ts), under which a browser sends their forms with their real origin;
 * a page the release before served (no-referrer) posts `Origin: null` with `Sec-Fetch-Site:
 * same-origin`, and is still taken. No Origin at all says nothing (an older browser, a script): the
 * token decides those.
 */
function isForeignPost(request: FastifyRequest, ownOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === 'null') return site !== 'same-origin';
  if (origin.toLowerCase() === ownOrigin) return false;
  try {
    return new URL(origin).host !== (request.headers.host ?? '').toLowerCase();
  } catch {
    return true;
  }
}

function bindingOf(request: FastifyRequest): string {
  return request.formBinding ?? UNBOUND;
}

/** The token of a posted form, whichever parser read it (the portal's fields, or the shopper's card-safe form). */
function tokenOf(request: FastifyRequest): string | undefined {
  const body: unknown = request.body;
  if (body === null || typeof body !== 'object') return undefined;
  const value = 'get' in body && typeof body.get === 'function' ? (body.get(FORM_TOKEN_FIELD) as unknown) : (body as Record<string, unknown>)[FORM_TOKEN_FIELD];
  return typeof value === 'string' ? value : undefined;
}
