import { appPart } from '../http/app.js';
import { notFound } from '../errors.js';
import { themeLogo, themeStylesheet } from './service.js';
import { sendStatic } from '../web/assets.js';

// A theme's stylesheet and logo, for the payment pages (whose CSP allows styles and images from this
// origin only, so a theme cannot be an inline style). Served to anyone who names the theme's key: a
// look is not a secret, and the pages link them only for their own merchant's theme. The URL carries
// the theme's version, so an hour's caching never shows an old look after an edit; the ETag changes
// with the content too (src/web/assets.ts answers them, as it does the pages' own files).

export const themeAssetRoutes = appPart('theme-assets', ['db'], async (app) => {
  const deps = { db: app.db };
  const { db } = deps;

  app.get<{ Params: { themeKey: string } }>('/assets/themes/:themeKey/theme.css', { schema: { hide: true } }, async (request, reply) => {
    const sheet = await themeStylesheet(db, request.params.themeKey);
    if (!sheet) throw notFound('theme');
    return sendStatic(request, reply, { type: 'text/css; charset=utf-8', body: sheet.css, etag: sheet.etag });
  });

  app.get<{ Params: { themeKey: string } }>('/assets/themes/:themeKey/logo', { schema: { hide: true } }, async (request, reply) => {
    const logo = await themeLogo(db, request.params.themeKey);
    if (!logo) throw notFound('theme logo');
    // Opened on its own, the image is a document: it may run nothing and load nothing.
    reply.header('Content-Security-Policy', "default-src 'none'; sandbox");
    return sendStatic(request, reply, { type: logo.type, body: logo.bytes, etag: logo.etag });
  });
});
