import { htmlOf, type Html } from './jsx-runtime.js';

// The one HTML renderer (docs/style.md, Pages through one renderer): every page of the service, the
// shopper's and the portal's, is JSX written to a string on the server by src/html/jsx-runtime.ts (no
// script renders pages in the browser). Every text and attribute value is escaped by that runtime, and
// nothing can hand it raw HTML (test/unit/pagesEscape.test.ts renders every shopper page,
// test/portal/pagesEscape.test.ts every portal page in both languages, with hostile values).

/** A whole document: the doctype and the page's markup. */
export function renderDocument(doc: Html): string {
  return `<!doctype html>\n${htmlOf(doc)}\n`;
}
