import { insideTransaction } from '../../src/db/database.js';
import type { Acquirer } from '../../src/payments/acquirer.js';

/**
 * The acquirer `inner`, watched: each call made while a transaction of withTransaction is open (which
 * would hold a pooled connection and its row locks for as long as the acquirer takes) is written into
 * `calls.inside` with its name; every call is counted in `calls.all`.
 */
export function watchedAcquirer(inner: Acquirer): { acquirer: Acquirer; calls: { all: string[]; inside: string[] } } {
  const calls = { all: [] as string[], inside: [] as string[] };
  const seen = (name: string): void => {
    calls.all.push(name);
    if (insideTransaction()) calls.inside.push(name);
  };
  return {
    calls,
    acquirer: {
      authorise: (r) => (seen('authorise'), inner.authorise(r)),
      completeChallenge: (s, c) => (seen('completeChallenge'), inner.completeChallenge(s, c)),
      authoriseToken: (r) => (seen('authoriseToken'), inner.authoriseToken(r)),
      modify: (r) => (seen('modify'), inner.modify(r)),
    },
  };
}
