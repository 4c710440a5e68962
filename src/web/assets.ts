import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';

// The static files of the pages (stylesheets, scripts, the icon) and the themes' files, all answered
// by one function: served by the app itself (no CDN: the service may run without internet), each
// with a strong ETag of its content, so that a browser keeps its copy and asks again only with
// If-None-Match (a 304 with no body while the file is unchanged). An address that names the file's
// version (`?v=`, as a theme's does, or assetHref below) never changes meaning, so it is cached for a
// year as immutable; a plain address is kept for an hour and then revalidated.

const CACHE_PLAIN = 'public, max-age=3600';
const CACHE_VERSIONED = 'public, max-age=31536000, immutable';

/** A file of the pages, kept in code so that the build needs no asset copying. */
export interface Asset {
  path: string;
  type: string;
  body: string | Buffer;
  etag: string;
}

export function asset(path: string, type: string, body: string | Buffer): Asset {
  return { path, type, body, etag: etagOf(body) };
}

/** A strong ETag of the content: the same bytes on every instance and after every restart. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
}

/** The file's address with its version, for pages whose links may carry one (cached for a year). */
export function assetHref(a: Asset): string {
  return `${a.path}?v=${a.etag.slice(1, 9)}`;
}

/** Whether the request's If-None-Match names this ETag (a list, weak or strong, or `*`). */
function unchanged(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/**
 * Answers a static file: its ETag and caching, 304 when the browser's copy is current, else the
 * bytes. `version`: what a `?v=` must say for the address to be cached as immutable.
 */
export function sendStatic(
  request: FastifyRequest,
  reply: FastifyReply,
  file: { type: string; body: string | Buffer; etag: string; version?: string },
): FastifyReply {
  const v = (request.query as { v?: unknown } | undefined)?.v;
  const versioned = file.version !== undefined && v === file.version;
  reply
    .header('Cache-Control', versioned ? CACHE_VERSIONED : CACHE_PLAIN)
    .header('ETag', file.etag)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cross-Origin-Resource-Policy', 'same-origin');
  if (unchanged(request, file.etag)) return reply.code(304).send();
  return reply.type(file.type).send(file.body);
}

/** Routes for a part's files (GET, and HEAD with it), at their paths less the context's prefix. */
export function serveAssets(scope: FastifyInstance, assets: readonly Asset[], opts: { prefix?: string; route?: RouteShorthandOptions } = {}): void {
  const prefix = opts.prefix ?? '';
  for (const a of assets) {
    const file = { ...a, version: a.etag.slice(1, 9) };
    scope.get(a.path.slice(prefix.length), { schema: { hide: true }, ...opts.route }, async (request, reply) => sendStatic(request, reply, file));
  }
}

/** A card in the accent blue: the tab's icon on every page (and at /favicon.ico for clients that ask there). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f5eff"/><rect x="6" y="9" width="20" height="14" rx="2.5" fill="#fff"/><rect x="6" y="12" width="20" height="3" fill="#1f5eff"/><rect x="9" y="18" width="7" height="2" rx="1" fill="#1f5eff"/></svg>\n`;

/** The files every part of the site shares. */
export const SHARED_ASSETS: readonly Asset[] = [asset('/favicon.svg', 'image/svg+xml', FAVICON_SVG), asset('/favicon.ico', 'image/svg+xml', FAVICON_SVG)];
