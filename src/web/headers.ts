import type { FastifyInstance, FastifyReply } from 'fastify';

// The headers of every HTML page, shopper's and portal's, set by one hook. Each part keeps its own
// Content-Security-Policy (the portal previews uploaded logos from blob: URLs and its scripts fetch
// from this origin; the shopper's pages need neither), but all are written here, side by side, so a
// change to one is seen beside the others: the API reference's too, which its UI library serves.

export const CSP = {
  /** One script of our own (checkout.js: card checks before the form is sent); no inline script at all. */
  shopper: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  /** Script-free, inline-free pages: the only script and stylesheet are the portal's own files. */
  portal:
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; connect-src 'self'",
  /**
   * An e-mail's HTML as it was sent, opened from the portal's "Sent e-mails": its inline styles and
   * nothing else, in a sandbox (no script, no form, its own opaque origin), so a message can never act
   * as a portal page.
   */
  mail: "default-src 'none'; style-src 'unsafe-inline'; sandbox; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  /**
   * The API reference (/docs): the UI library's own files only, and data: images and fonts. One inline
   * style, allowed by its hash and by nothing else: the two fill colours in the <style> of the small
   * logo the UI draws from its script (`.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}`),
   * which the browser otherwise refuses with an error in the console. The styles the UI sets on
   * elements from its script go through the DOM's style properties, which a policy does not govern.
   * What is lost: the alignment of a table column in an operation's Markdown description.
   */
  docs:
    "default-src 'none'; script-src 'self'; style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; img-src 'self' data:; " +
    "connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
} as const;

export type PagePolicy = keyof typeof CSP;

/**
 * The headers every HTML page carries: its Content-Security-Policy (no inline script anywhere), no
 * framing, no sniffing, no referrer leaving the service, and no caching of pages that show a
 * shopper's or a merchant's data. The referrer policy is same-origin rather than no-referrer: under
 * no-referrer a browser sends the page's own forms with `Origin: null`, which is what a page of
 * another site can send too (from a sandboxed frame); under same-origin they carry the service's
 * origin, and a post with `Origin: null` is refused (src/web/formTokens.ts).
 */
export function pageHeaders(reply: FastifyReply, policy: PagePolicy): FastifyReply {
  return reply
    .header('Content-Security-Policy', CSP[policy])
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'same-origin')
    .header('X-Frame-Options', 'DENY')
    .header('Cache-Control', 'no-store');
}

/** Every answer of this context gets the page headers of its policy (a static file overrides Cache-Control). */
export function usePageHeaders(scope: FastifyInstance, policy: PagePolicy): void {
  scope.addHook('onRequest', (_request, reply, done) => {
    pageHeaders(reply, policy);
    done();
  });
}
