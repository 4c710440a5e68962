import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

// The one HTML renderer (docs/style.md, Pages through one renderer): every page of the service, the shopper's and the portal's,
// is a Preact component tree rendered to a string on the server (no Preact runs in the browser).
// Every text and attribute value is escaped by the renderer; raw HTML would need the prop
// `dangerouslySetInnerHTML`, which nothing uses (test/unit/pagesEscape.test.ts renders every
// shopper page, test/portal/pagesEscape.test.ts every portal page in both languages, with hostile values).

/** A whole document: the doctype and the rendered tree. */
export function renderDocument(doc: VNode): string {
  return `<!doctype html>\n${renderToString(doc)}\n`;
}
