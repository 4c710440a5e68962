import { hkdfSync } from 'node:crypto';
import cookie from '@fastify/cookie';
import type { App, AppDeps } from '../deps.js';
import { installFormTokens, type FormPart } from './formTokens.js';
import { SHARED_ASSETS, serveAssets } from './assets.js';

// The web layer: everything that answers HTML (the shopper's pages and the portal) is registered
// inside one Fastify context, which brings what they share: the one cookie parser (@fastify/cookie),
// the one form token (formTokens.ts; each part in a context of its own, with its own secret cookie),
// the files every page links (assets.ts) and one rule for when cookies are Secure. Each part then adds
// its own context inside it for its body parsers, its headers (headers.ts) and its pages; the API
// under /api/v1 is outside it, and neither reads cookies nor takes forms.

/** A part of the site that answers HTML, registered inside the web layer. */
export type WebPart = (web: App, deps: AppDeps) => Promise<void>;

/** Cookies only over https: in production, or when the public base URL is https. */
export function secureCookies(config: AppDeps['config']): boolean {
  return config.env === 'production' || config.publicBaseUrl.startsWith('https:');
}

/** A key of the web layer's own, derived from the service's secret key with a label for its use. */
function derive(secretKey: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), `paylinks web ${label}`, 32));
}

/** The parts of the site, by the name of their form tokens' secret cookie, registered in this order. */
export type WebParts = Readonly<Record<FormPart, WebPart>>;

export async function webLayer(app: App, deps: AppDeps, parts: WebParts): Promise<void> {
  const { config } = deps;
  const secure = secureCookies(config);
  const hmacKey = derive(config.secretKey, 'forms');
  const ownOrigin = new URL(config.publicBaseUrl).origin.toLowerCase();
  await app.register(async (web) => {
    await web.register(cookie, { secret: derive(config.secretKey, 'cookies') });
    web.decorateRequest('formBinding', null);
    serveAssets(web, SHARED_ASSETS);
    for (const [part, routes] of Object.entries(parts) as [FormPart, WebPart][]) {
      await web.register(async (scope) => {
        await installFormTokens(scope, { part, secure, hmacKey, ownOrigin });
        await routes(scope as App, deps);
      });
    }
  });
}
