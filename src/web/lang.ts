import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLang, type Lang } from '../lang.js';

// The reader's language from a request (the shopper's and the portal's pages): the choice kept in a
// cookie, the query or the form, else the browser's. The languages themselves and their dictionaries
// are src/lang.ts, re-exported here for the pages.

export { LANGS, isLang, messages, otherLang, translator, type Lang, type Messages, type Translate } from '../lang.js';

/** The cookie that keeps a visitor's choice of language (the portal's sign-in pages; a signed-in user's choice is saved with the user). */
export const LANG_COOKIE = 'paylinks_lang';

/** Keeps the visitor's choice for a year. */
export function rememberLang(reply: FastifyReply, lang: Lang, secure: boolean): void {
  reply.setCookie(LANG_COOKIE, lang, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: 365 * 86_400 });
}

/**
 * The language of a page: the first of the given choices that is a language (a ?lang= or a form's
 * lang, then what the page's owner set: a link's culture, a user's language), else the visitor's
 * earlier choice (the cookie), else their browser's (Accept-Language), else `fallback`.
 */
export function negotiateLang(request: FastifyRequest, choices: readonly (string | null | undefined)[], fallback: Lang): Lang {
  for (const choice of choices) if (isLang(choice)) return choice;
  const chosen = request.cookies?.[LANG_COOKIE];
  if (isLang(chosen)) return chosen;
  const accept = request.headers['accept-language'] ?? '';
  if (/^\s*is\b/i.test(accept)) return 'is';
  if (/^\s*en\b/i.test(accept)) return 'en';
  return fallback;
}
