import { CAPABILITIES, type Capability } from '../accounts/service.js';
import type { Role } from '../users/service.js';

// Who may do what in the portal (§The portal: roles). Every portal route names one permission in its
// config; one hook checks it against the signed-in user's role before the handler runs, and every
// object a handler reads or changes is looked up within the session's merchant, so another merchant's
// object is simply not found (404), as in the API.
//
//   owner      everything, users and the audit log included
//   developer  API keys, terminals, origins, webhooks and their deliveries, themes; reads money
//   staff      payment links, checkout sessions, payments, captures, refunds and reversals
//
// An API key acts without a portal user, so a user may give a key only capabilities that stand for
// what the user's own role may do (CAPABILITY_PERMISSION): a developer's keys manage webhooks, and
// links and payments stay with owners and staff through the API as in the portal (docs/portal.md).

const EVERYONE: readonly Role[] = ['owner', 'developer', 'staff'];

const PERMISSIONS = {
  /** The overview, the account page, switching merchant. */
  'portal.use': EVERYONE,
  'links.read': EVERYONE,
  'links.write': ['owner', 'staff'],
  'sessions.read': EVERYONE,
  'payments.read': EVERYONE,
  /** Capture, refund, reverse. */
  'payments.modify': ['owner', 'staff'],
  'webhooks.read': ['owner', 'developer'],
  'webhooks.write': ['owner', 'developer'],
  /** API keys, terminals, allowed origins. */
  'developers.manage': ['owner', 'developer'],
  'themes.manage': ['owner', 'developer'],
  'users.manage': ['owner'],
  'audit.read': ['owner'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/**
 * What each capability of an API key lets its holder do, as the portal permission for the same
 * actions: links (PaymentLinks, TokenizeLinks), checkout sessions, saved-card charges, captures,
 * refunds and reversals (HostedCheckout), webhooks and their deliveries (Webhooks).
 */
export const CAPABILITY_PERMISSION = {
  PaymentLinks: 'links.write',
  TokenizeLinks: 'links.write',
  HostedCheckout: 'payments.modify',
  Webhooks: 'webhooks.write',
} as const satisfies Record<Capability, Permission>;

/** The capabilities a user of this role may give a key on the developers page (none without that page). */
export function keyCapabilitiesFor(role: Role): Capability[] {
  if (!can(role, 'developers.manage')) return [];
  return CAPABILITIES.filter((c) => can(role, CAPABILITY_PERMISSION[c]));
}

/** What a portal route needs: a signed-in user with a permission, or nothing (sign-in, assets). */
export type PortalAccess = { permission: Permission } | { public: true; /** Static files: no session is looked up. */ static?: true };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every portal route (the hook refuses a portal route without it). */
    portal?: PortalAccess;
  }
}
