import { hkdfSync } from 'node:crypto';
import cookie, { Signer, type UnsignResult } from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { App } from '../http/app.js';
import { installFormTokens, type FormPart } from './formTokens.js';
import { SHARED_ASSETS, serveAssets } from './assets.js';

// The web layer: everything that answers HTML (the shopper's pages and the portal) is registered
// inside one Fastify context, which brings what they share: the one cookie parser (@fastify/cookie),
// the one form token (formTokens.ts; each part in a context of its own, with its own secret cookie),
// the files every page links (assets.ts) and one rule for when cookies are Secure. Each part then adds
// its own context inside it for its body parsers, its headers (headers.ts) and its pages; the API
// under /api/v1 is outside it, and neither reads cookies nor takes forms.

/** A part of the site that answers HTML, registered inside the web layer (a plugin of src/http/app.ts's appPart). */
export type WebPart = FastifyPluginAsync;

/** Cookies only over https: in production, or when the public base URL is https. */
export function secureCookies(config: Config): boolean {
  return config.env === 'production' || config.publicBaseUrl.startsWith('https:');
}

/** A key of the web layer's own, derived from the service's secret key with a label for its use. */
function derive(secretKey: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), `paylinks web ${label}`, 32));
}

/** How many signed cookie values the signer keeps its verdict on (a browser's form-token cookie each). */
const SIGNED_KEPT = 10_000;

/**
 * The cookie signer, keeping the values it has found signed: a browser sends the same signed cookie
 * (its form-token secret) with every page, and checking its HMAC again was a measurable part of a
 * page's work (docs/performance.md, The portal's pages). Only a value whose signature matched is
 * kept, as the exact text that matched, so what a lookup answers is what the HMAC would; the kept
 * values are forgotten together when there are too many.
 */
export function rememberingSigner(key: Buffer): Pick<Signer, 'sign' | 'unsign'> {
  const signer = new Signer(key, 'sha256');
  const signed = new Map<string, UnsignResult>();
  return {
    sign: (value) => signer.sign(value),
    unsign: (input) => {
      const known = signed.get(input);
      if (known !== undefined) return known;
      const result = signer.unsign(input);
      if (result.valid) {
        if (signed.size >= SIGNED_KEPT) signed.clear();
        signed.set(input, Object.freeze(result));
      }
      return result;
    },
  };
}

/** The parts of the site, by the name of their form tokens' secret cookie, registered in this order. */
export type WebParts = Readonly<Record<FormPart, WebPart>>;

export async function webLayer(app: App, parts: WebParts): Promise<void> {
  const { config } = app;
  const secure = secureCookies(config);
  const hmacKey = derive(config.secretKey, 'forms');
  const ownOrigin = new URL(config.publicBaseUrl).origin.toLowerCase();
  await app.register(async (web) => {
    await web.register(cookie, { secret: rememberingSigner(derive(config.secretKey, 'cookies')) });
    web.decorateRequest('formBinding', null);
    serveAssets(web, SHARED_ASSETS);
    for (const [part, routes] of Object.entries(parts) as [FormPart, WebPart][]) {
      await web.register(async (scope) => {
        await installFormTokens(scope, { part, secure, hmacKey, ownOrigin });
        await scope.register(routes);
      });
    }
  });
}
