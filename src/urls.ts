// URLs the service hands back to a shop.

/** returnUrl with checkoutReference added to its query, its own parameters and fragment kept byte for byte. */
export function withCheckoutReference(returnUrl: string, checkoutReference: string): string {
  const hashAt = returnUrl.indexOf('#');
  const base = hashAt === -1 ? returnUrl : returnUrl.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : returnUrl.slice(hashAt);
  const sep = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}checkoutReference=${encodeURIComponent(checkoutReference)}${hash}`;
}
