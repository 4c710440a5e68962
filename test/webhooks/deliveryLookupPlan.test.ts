import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/database.js';
import { listDeliveries } from '../../src/webhooks/deliveries/sql.js';
import { call, createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';

// Deliveries are found by payment reference through their event (webhook_events_payfac_idx, then
// webhook_deliveries_event_idx, migration 0039), not by an index of the deliveries' own, which the next
// release drops (migration 0040) so that each of a delivery's three writes adds one index entry fewer.
// This checks that the lookup reads those two indexes, not the table, with a history of 20,000
// deliveries, and that no index of the deliveries holds the reference any more.
// PostgreSQL's planner only: the embedded database answers the same statement (the API tests run it
// on both).

describe.skipIf(TEST_DB !== 'postgres')('finding deliveries by payment reference', () => {
  let ctx: TestContext;
  let merchantId: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    const r = await call(ctx, 'POST', '/api/v1/webhooks', { url: 'https://example.com/hook', eventTypes: ['Capture'] });
    const webhookId = r.body.webhookId as string;
    const { rows } = await ctx.tdb.db.pool.query<{ merchantId: string }>('SELECT merchant_id AS "merchantId" FROM webhooks WHERE id = $1', [webhookId]);
    merchantId = rows[0]?.merchantId ?? '';
    await ctx.tdb.db.pool.query(
      `INSERT INTO webhook_events (id, merchant_id, event_type, payfac_reference, message, created_at)
       SELECT 'ev' || g, $1, 'Capture', 'ref' || g, '{}'::jsonb, now() FROM generate_series(1, 20000) g`,
      [merchantId],
    );
    await ctx.tdb.db.pool.query(
      `INSERT INTO webhook_deliveries (id, event_id, webhook_id, event_type, payfac_reference, body, state, attempt_count, next_attempt_at, created_at, updated_at)
       SELECT 'de' || g, 'ev' || g, $1, 'Capture', 'ref' || g, '{}', 'Delivered', 1, NULL, now(), now() FROM generate_series(1, 20000) g`,
      [webhookId],
    );
    await ctx.tdb.db.pool.query('ANALYZE webhook_events');
    await ctx.tdb.db.pool.query('ANALYZE webhook_deliveries');
  }, 60_000);
  afterAll(async () => {
    await ctx.close();
  });

  it('reads the events’ index of references and the deliveries’ index of events, not the table', async () => {
    const seen: { text: string; values: readonly unknown[] }[] = [];
    const recorder: Queryable = {
      query: ((q: string, values?: readonly unknown[]) => {
        seen.push({ text: q, values: values ?? [] });
        return ctx.tdb.db.pool.query(q, values as unknown[]);
      }) as Queryable['query'],
    };
    const found = await listDeliveries(recorder, { merchantId, partnerId: null }, { payfacReference: 'ref7777' }, 0, 20);
    expect(found.rows.map((d) => [d.id, d.payfacReference])).toEqual([['de7777', 'ref7777']]);
    expect(found.total).toBe(1);
    // The page and its count: both by the two indexes.
    expect(seen).toHaveLength(2);
    for (const s of seen) {
      const { rows } = await ctx.tdb.db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${s.text}`, [...s.values]);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('webhook_events_payfac_idx');
      expect(plan).toContain('webhook_deliveries_event_idx');
      expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
    }
  });

  it('keeps no index of the deliveries by payment reference', async () => {
    const { rows } = await ctx.tdb.db.pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_deliveries' AND indexdef LIKE '%payfac_reference%' ORDER BY indexname",
    );
    expect(rows.map((r) => r.indexname)).toEqual([]);
  });
});
