import { auditOfRows } from '../audit/service.js';
import { BatchWriter, perDatabase } from '../db/batch.js';
import type { Database } from '../db/database.js';
import type { ApiError, FieldError } from '../errors.js';
import { fieldErrors } from './rules.js';
import * as sql from './sql.js';

// Link creates without an Idempotency-Key, written together (src/paymentLinks/service.ts,
// createPaymentLink): the creates that arrive in one turn share one INSERT of their links and their
// audit entries (docs/performance.md).

/** The terminal a create names is not its merchant's, or does not exist (§Authentication). */
export const TERMINAL_NOT_FOUND: FieldError = {
  field: 'terminalIdentifier',
  code: 'TERMINAL_NOT_FOUND',
  message: "is not a terminal of the API key's merchant",
};

/** The INSERT refused the terminal: it is not the merchant's (§Authentication), or it does not exist. */
export function isForeignTerminal(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown };
  return e.code === '23503' && e.constraint === 'payment_links_terminal_owner_fkey';
}

/** A link to create and its audit entry. */
interface LinkWrite {
  link: sql.NewLink;
  audit: Parameters<typeof auditOfRows>[0][number];
}

/** Creates without an Idempotency-Key; a link naming another merchant's terminal is refused by the statement itself, alone (§Authentication). */
export const linkWriter = perDatabase((db: Database) => {
  const foreign = (): ApiError => fieldErrors([TERMINAL_NOT_FOUND]);
  const insert = async (writes: readonly LinkWrite[]) =>
    sql.insertLinks(
      db.pool,
      writes.map((w) => w.link),
      auditOfRows(writes.map((w) => w.audit)),
    );
  return new BatchWriter<LinkWrite>(
    async (writes) => {
      const refused = new Set((await insert(writes)).foreignTerminal);
      return writes.map((w) => (refused.has(w.link.reference) ? foreign() : undefined));
    },
    async (write) => {
      if ((await insert([write])).foreignTerminal.length > 0) throw foreign();
    },
  );
});
