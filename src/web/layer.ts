import { hkdfSync } from 'node:crypto';
import cookie from '@fastify/cookie';
import type { App, AppDeps } from '../deps.js';
import { installFormTokens } from './formTokens.js';
import { SHARED_ASSETS, serveAssets } from './assets.js';

// The web layer: everything that answers HTML (the shopper's pages and the portal) is registered
// inside one Fastify context, which brings what they share: the one cookie parser (@fastify/cookie),
// the one form token (formTokens.ts), the files every page links (assets.ts) and one rule for when cookies are Secure. Each part then adds its
// own context inside it for its body parsers, its headers (headers.ts) and its pages; the API under
// /api/v1 is outside it, and neither reads cookies nor takes forms.

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

export async function webLayer(app: App, deps: AppDeps, parts: readonly WebPart[]): Promise<void> {
  const { config } = deps;
  await app.register(async (web) => {
    await web.register(cookie, { secret: derive(config.secretKey, 'cookies') });
    await installFormTokens(web, { secure: secureCookies(config), hmacKey: derive(config.secretKey, 'forms') });
    serveAssets(web, SHARED_ASSETS);
    for (const part of parts) await part(web as App, deps);
  });
}
