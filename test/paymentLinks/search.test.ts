import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/database.js';
import { ManualClock } from '../../src/clock.js';
import { searchPaymentLinks } from '../../src/paymentLinks/service.js';
import { searchLinks } from '../../src/paymentLinks/sql.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

// The portal's link search (src/paymentLinks/sql.ts, searchLinks) through the trigram index of
// migrations/0029_link_search_trigram.sql: the same links found as by reading every one, and the
// index in the plan once a merchant has enough links for it to matter.

const MERCHANT = 'm_search';
const BIG = 'm_search_big';

const DESCRIPTIONS = [
  'Lopapeysa, GRÁ',
  '100% wool',
  '100 wool',
  'a_b c',
  'aXb c',
  'back\\slash',
  'Winter sale 1',
  'Winter sale 2',
  'Summer SALE',
  'ab',
  'Cab fare',
  '',
  'Hætt',
];

interface Made {
  reference: string;
  description: string;
  disabled: boolean;
}

async function insertLinks(db: Queryable, merchantId: string, terminal: string, count: number, description: string): Promise<void> {
  await db.query(
    `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, description, amount, currency, culture, created_at, updated_at)
     SELECT $1 || lpad(i::text, 8, '0'), $2, $3, 'PayByLink', replace($4, '#', i::text), 1000, 'EUR', 'en-US',
            timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
     FROM generate_series(1, $5::int) AS i`,
    [`PL${merchantId.slice(-3).toUpperCase()}`, merchantId, terminal, description, count],
  );
}

describe('searching a merchant’s links by text', () => {
  let t: TestDatabase;
  const clock = new ManualClock('2026-06-01T00:00:00Z');
  const made: Made[] = [];

  beforeAll(async () => {
    t = await createTestDatabase({ poolSize: 2 });
    const db = t.db.pool;
    await db.query(`INSERT INTO merchants (id, name) VALUES ($1, 'Search'), ($2, 'Search, big')`, [MERCHANT, BIG]);
    await db.query(`INSERT INTO terminals (terminal_identifier, merchant_id) VALUES ('SEARCHTERM01', $1), ('SEARCHTERM02', $2)`, [MERCHANT, BIG]);
    for (const [i, description] of DESCRIPTIONS.entries()) {
      const reference = `PLSEARCH${String(i).padStart(4, '0')}`;
      const disabled = i % 4 === 0;
      await db.query(
        `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, description, amount, currency, culture, created_at, updated_at, disabled_at)
         VALUES ($1, $2, 'SEARCHTERM01', 'PayByLink', $3, 1000, 'EUR', 'en-US', $4, $4, $5)`,
        [reference, MERCHANT, description, new Date(Date.UTC(2026, 0, 1, 0, 0, i)), disabled ? new Date(Date.UTC(2026, 0, 2)) : null],
      );
      made.push({ reference, description, disabled });
    }
    // Another merchant's links, enough for the planner to weigh an index against reading them all:
    // every one holds "order", three hold "winter sale".
    await insertLinks(db, BIG, 'SEARCHTERM02', 20_000, 'Order # shoes');
    await db.query(`UPDATE payment_links SET description = 'Winter sale ' || reference WHERE merchant_id = $1 AND reference <= 'PLBIG00000003'`, [BIG]);
    // As autovacuum does on PostgreSQL: the rows inserted wait in the index's pending list (GIN's
    // fast update), which the planner counts as read on every search, until a vacuum merges them.
    await db.query('VACUUM ANALYZE payment_links');
  }, 120_000);
  afterAll(async () => {
    await t.drop();
  });

  /** What the search has always answered: a piece of the description in any case, or the whole reference; newest first. */
  const expected = (text: string, status: 'Disabled' | null): string[] =>
    made
      .filter((m) => m.description.toLowerCase().includes(text.toLowerCase()) || m.reference === text)
      .filter((m) => status === null || m.disabled)
      .map((m) => m.reference)
      .reverse();

  const search = async (text: string, status: 'Disabled' | null): Promise<string[]> =>
    (await searchPaymentLinks({ db: t.db, clock }, MERCHANT, { status, text }, null, 100)).links.map((l) => l.paymentLinkReference);

  const TEXTS = [
    'gRá',
    'lopapeysa, grá',
    '100%',
    '0% w',
    '%',
    '_',
    'a_b',
    '\\',
    'back\\slash',
    'winter',
    'WINTER SALE 2',
    'ab',
    'á',
    'hÆtt',
    'PLSEARCH0002',
    'plsearch0002',
    'nothing like it',
    ' ',
  ];

  it('finds the same links as before the index, in any case, with % _ and \\ taken literally', async () => {
    for (const text of TEXTS) {
      for (const status of [null, 'Disabled'] as const) {
        expect(await search(text, status), `"${text}" ${status ?? ''}`).toEqual(expected(text, status));
      }
    }
    // The cases that tell a literal % and _ from LIKE's wildcards find something.
    expect(await search('100%', null)).toEqual(['PLSEARCH0001']);
    expect(await search('a_b', null)).toEqual(['PLSEARCH0003']);
  });

  /** The statement searchLinks runs for a text, and the plan PostgreSQL makes for it with these values. */
  async function planOf(text: string): Promise<{ prepared: boolean; plan: string }> {
    let seen: { prepared: boolean; text: string; values: readonly unknown[] } | undefined;
    const recorder: Queryable = {
      query: ((q: string | { name: string; text: string; values: readonly unknown[] }, values?: readonly unknown[]) => {
        seen = typeof q === 'string' ? { prepared: false, text: q, values: values ?? [] } : { prepared: true, text: q.text, values: q.values };
        return t.db.pool.query(q as never, values as never);
      }) as Queryable['query'],
    };
    await searchLinks(recorder, BIG, { status: null, text, now: clock.now() }, null, 21);
    if (!seen) throw new Error('no statement ran');
    if (!seen.prepared) {
      const { rows } = await t.db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${seen.text}`, [...seen.values]);
      return { prepared: false, plan: rows.map((r) => r['QUERY PLAN']).join('\n') };
    }
    // A prepared statement runs its generic plan after its first five runs, made without the values.
    const client = await t.db.pool.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE planned AS ${seen.text}`);
      const literals = seen.values.map((v) => `'${(v instanceof Date ? v.toISOString() : String(v)).replace(/'/g, "''")}'`).join(', ');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE planned (${literals})`);
      await client.query('DEALLOCATE planned');
      await client.query('RESET plan_cache_mode');
      return { prepared: true, plan: rows.map((r) => r['QUERY PLAN']).join('\n') };
    } finally {
      client.release();
    }
  }

  it(`a rare text is found through the trigram index (${TEST_DB})`, async () => {
    const rare = await planOf('winter sale');
    expect(rare.plan).toContain('payment_links_description_trgm_idx');
    // Planned for its value, not as a prepared statement's one generic plan: a text every link
    // holds is read by walking the merchant's links newest first, which stops at a full page.
    expect(rare.prepared).toBe(false);
    const common = await planOf('order');
    expect(common.plan).not.toContain('payment_links_description_trgm_idx');
    expect(common.plan).toContain('payment_links_merchant_created_idx');
    expect(await searchLinks(t.db.pool, BIG, { status: null, text: 'winter sale', now: clock.now() }, null, 21)).toHaveLength(3);
  });

  it('a text without three letters or digits in a row, which the index cannot serve, walks the merchant’s links', async () => {
    for (const text of ['sh', 'zz', '% _']) {
      const short = await planOf(text);
      expect(short.plan, text).not.toContain('payment_links_description_trgm_idx');
      expect(short.plan, text).toContain('payment_links_merchant_created_idx');
    }
  });

  it('the same search asked together is read once, and each caller gets the page of its own request', async () => {
    let sent = 0;
    const pool = t.db.pool;
    const original = pool.query;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as { query: unknown }).query = (...args: unknown[]) => {
      sent++;
      return query(...args);
    };
    try {
      const ask = (text: string, status: 'Disabled' | null, at = clock.now()) =>
        searchPaymentLinks({ db: t.db, clock: new ManualClock(at.toISOString()) }, MERCHANT, { status, text }, null, 100);
      const same = await Promise.all([ask('winter', null), ask('winter', null), ask('winter', null)]);
      expect(sent).toBe(1);
      for (const page of same) expect(page.links.map((l) => l.paymentLinkReference)).toEqual(expected('winter', null));
      expect(same[0]?.links).not.toBe(same[1]?.links);
      // A different text, or the same status filter at another time of the clock, is a search of its own.
      sent = 0;
      const later = new Date(clock.now().getTime() + 1);
      const apart = await Promise.all([ask('winter', null), ask('sale', null), ask('winter', 'Disabled'), ask('winter', 'Disabled', later)]);
      expect(sent).toBe(4);
      expect(apart[2]?.links.map((l) => l.paymentLinkReference)).toEqual(expected('winter', 'Disabled'));
      expect(apart[1]?.links.map((l) => l.paymentLinkReference)).toEqual(expected('sale', null));
    } finally {
      pool.query = original;
    }
  });
});
