import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, AppDeps } from '../deps.js';
import { notFound } from '../errors.js';
import { themeLogo, themeStylesheet } from './service.js';

// A theme's stylesheet and logo, for the payment pages (whose CSP allows styles and images from this
// origin only, so a theme cannot be an inline style). Served to anyone who names the theme's key: a
// look is not a secret, and the pages link them only for their own merchant's theme. The URL carries
// the theme's version, so an hour's caching never shows an old look after an edit; the ETag changes
// with the content too.

const CACHE = 'public, max-age=3600';

function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('Cache-Control', CACHE).header('ETag', etag).header('X-Content-Type-Options', 'nosniff').header('Cross-Origin-Resource-Policy', 'same-origin');
  return request.headers['if-none-match'] === etag;
}

export async function themeAssetRoutes(app: App, deps: Pick<AppDeps, 'db'>): Promise<void> {
  const { db } = deps;

  app.get<{ Params: { themeKey: string } }>('/assets/themes/:themeKey/theme.css', { schema: { hide: true } }, async (request, reply) => {
    const sheet = await themeStylesheet(db, request.params.themeKey);
    if (!sheet) throw notFound('theme');
    if (notModified(request, reply, sheet.etag)) return reply.code(304).send();
    return reply.type('text/css; charset=utf-8').send(sheet.css);
  });

  app.get<{ Params: { themeKey: string } }>('/assets/themes/:themeKey/logo', { schema: { hide: true } }, async (request, reply) => {
    const logo = await themeLogo(db, request.params.themeKey);
    if (!logo) throw notFound('theme logo');
    // Opened on its own, the image is a document: it may run nothing and load nothing.
    reply.header('Content-Security-Policy', "default-src 'none'; sandbox");
    if (notModified(request, reply, logo.etag)) return reply.code(304).send();
    return reply.type(logo.type).send(logo.bytes);
  });
}
