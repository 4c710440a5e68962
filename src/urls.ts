// URLs the service hands out: to a shop, and to the people of the portal.

/** returnUrl with checkoutReference added to its query, its own parameters and fragment kept byte for byte. */
export function withCheckoutReference(returnUrl: string, checkoutReference: string): string {
  const hashAt = returnUrl.indexOf('#');
  const base = hashAt === -1 ? returnUrl : returnUrl.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : returnUrl.slice(hashAt);
  const sep = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}checkoutReference=${encodeURIComponent(checkoutReference)}${hash}`;
}

/** The portal's address of a one-time link (a sign-in link from the operator, an owner's invitation). */
export function portalLinkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/portal/link/${token}`;
}
