import type { Clock } from './clock.js';
import type { Database } from './db/database.js';

// Who makes a change, and what every operation that changes state is given besides its input
// (docs/architecture.md, "One shape for every write"). The API, the portal, the shopper's pages and
// the operator's CLI only say who is acting; the operation checks, changes and records its audit entry
// with the change, in one transaction.

export type Actor =
  /** A person signed in to the portal. */
  | { kind: 'user'; userId: string; email: string }
  /** One of the merchant's API keys: its id and first and last characters, never the key. */
  | { kind: 'key'; keyId: string; display: string | null }
  /** The operator, at the command line of the machine that runs the service. */
  | { kind: 'operator' }
  /** A partner's key: what it changes (webhooks of its own) belongs to no merchant's log. */
  | { kind: 'partner'; keyId: string };

export const OPERATOR: Actor = Object.freeze({ kind: 'operator' });

/** The context of an operation that changes state: the database it opens its transaction on, the clock, who acts. */
export interface Operation {
  db: Database;
  clock: Clock;
  actor: Actor;
}
