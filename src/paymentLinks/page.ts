import { openPaymentLink, type Deps } from './service.js';

// A placeholder for the shopper's page (D5, D6) until the checkout pages replace it: it names the
// link's description and status, and counts the visit.

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body><main>${body}</main></body></html>
`;
}

export async function paymentLinkPage(deps: Deps, reference: string): Promise<{ status: number; html: string }> {
  const link = await openPaymentLink(deps, reference);
  if (!link) {
    return { status: 404, html: document('Payment link not found', '<h1>Payment link not found</h1><p>Check the address you were given.</p>') };
  }
  const description = link.description === '' ? 'Payment' : link.description;
  return {
    status: 200,
    html: document(description, `<h1>${escapeHtml(description)}</h1><p>Status: <strong data-status="${link.status}">${link.status}</strong></p>`),
  };
}
