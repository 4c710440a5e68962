import type { Database } from '../db/database.js';
import { BatchLoader, perDatabase } from '../db/batch.js';
import type { Keyset } from '../db/keyset.js';
import * as sql from './sql.js';

/** One search of the portal's link list: what searchLinks is asked, the clock's time included. */
export interface LinkSearchQuery {
  merchantId: string;
  status: string | null;
  text: string | null;
  now: Date;
  keyset: Keyset | null;
  limit: number;
}

type Found = Awaited<ReturnType<typeof sql.searchLinks>>;

/**
 * The same search asked more than once in one turn of the event loop is read once, by a query sent
 * after every one of them was asked (src/db/batch.ts): a text found through the trigram index reads
 * its posting lists for every request, about 600 pages of the index at 200,000 links for a text
 * whose words every link holds (docs/performance.md, Link search). The clock's time is part of a
 * search only when it filters by status; a text alone matches the same links at any time.
 */
const searches = perDatabase(
  (db: Database) =>
    new BatchLoader<string, Found>(async (keys) => {
      const found = await Promise.all(
        keys.map(async (key) => {
          const s = JSON.parse(key) as Omit<LinkSearchQuery, 'now'> & { now: number };
          const rows = await sql.searchLinks(db.pool, s.merchantId, { status: s.status, text: s.text, now: new Date(s.now) }, s.keyset, s.limit);
          return [key, rows] as const;
        }),
      );
      return new Map(found);
    }),
);

/** The links matching the search; every caller gets rows of its own to keep. */
export async function searchLinksShared(db: Database, q: LinkSearchQuery): Promise<Found> {
  const key = JSON.stringify({
    merchantId: q.merchantId,
    status: q.status,
    text: q.text,
    now: q.status !== null ? q.now.getTime() : 0,
    keyset: q.keyset,
    limit: q.limit,
  });
  return [...((await searches(db).get(key)) ?? [])];
}
