import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createLink, createSession, payByLink, Shopper } from './fixtures.js';

// §The simulated acquirer: the full card number and the CVC are never stored or logged. After payments with every test
// card (and a form with mistakes), the whole database as text and every log line are searched.

const CARDS = ['4242424242424242', '4000000000003220', '4000000000000002', '4000000000000069', '4000000000003063', '5555555555554444'];
const CVC = '987';
const CVC_FIELD = /\bcvc["']?\s*[:=]/i;

function allValues(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => allValues(x, out));
  else if (v !== null && typeof v === 'object') Object.values(v).forEach((x) => allValues(x, out));
  else out.push(String(v));
  return out;
}

describe('no card number or CVC in the database or the logs (§The simulated acquirer)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'trace' });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('pays with every test card, then finds neither in any table or log line', async () => {
    const link = await createLink(ctx, payByLink(ctx, { shopperInfo: [{ field: 'Ssn', requirementType: 'Required' }] }));
    const newSession = async () => `/checkout/${await createSession(ctx, { recurringProcessingModel: 'CardOnFile' })}`;
    for (const kind of ['link', 'session']) {
      for (const card of CARDS) {
        // A session is paid once: each card gets its own.
        const path = kind === 'link' ? `/pay/${link}` : await newSession();
        const s = new Shopper(ctx);
        const res = await s.payWith(path, card.replace(/(\d{4})/g, '$1 ').trim(), { cvc: CVC, 'shopper-Ssn': '0101302989' });
        expect(res.body).not.toContain(card);
        const challenge = /name="challenge" value="([^"]+)"/.exec(res.body)?.[1];
        if (challenge) await s.post(`${path}/3ds`, { challenge, action: 'confirm' });
      }
      // A form with a mistake is shown again without the card in it.
      const path = kind === 'link' ? `/pay/${link}` : await newSession();
      const bad = await new Shopper(ctx).payWith(path, CARDS[0] as string, { cvc: CVC, expiryDate: '13/99', 'shopper-Ssn': '' });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).not.toContain(CARDS[0]);
      expect(bad.body).not.toContain(`value="${CVC}"`);
    }

    const { rows: tables } = await ctx.tdb.db.pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['payments', 'payment_link_submissions', 'webhook_events', 'checkout_sessions', 'three_d_challenges']),
    );
    const dump: string[] = [];
    const values: string[] = [];
    for (const { table_name } of tables) {
      const { rows } = await ctx.tdb.db.pool.query<{ row: Record<string, unknown> }>(`SELECT to_jsonb(t) AS row FROM "${table_name}" t`);
      for (const r of rows) {
        dump.push(`${table_name}: ${JSON.stringify(r.row)}`);
        // JSON columns and text columns holding JSON (delivery bodies) are opened up too.
        allValues(r.row, values);
      }
    }
    const expanded = values.flatMap((v) => {
      try {
        return [v, ...allValues(JSON.parse(v))];
      } catch {
        return [v];
      }
    });
    const text = dump.join('\n');
    expect(text).toContain('424242******4242');
    const payments = await ctx.tdb.db.pool.query('SELECT 1 FROM payments');
    expect(payments.rowCount).toBeGreaterThanOrEqual(10);
    for (const card of CARDS) {
      expect(text).not.toContain(card);
      expect(text.replace(/\D/g, ' ')).not.toMatch(new RegExp(`\\b${card}\\b`));
    }
    // The CVC as a stored value anywhere, or next to a masked number.
    expect(expanded.filter((v) => v === CVC)).toEqual([]);
    // A field named cvc (as a key or a form field), not the letters by chance inside a random id.
    expect(text).not.toMatch(CVC_FIELD);

    const logs = ctx.logs.join('\n');
    expect(ctx.logs.length).toBeGreaterThan(10);
    for (const card of CARDS) expect(logs).not.toContain(card);
    expect(logs).not.toMatch(CVC_FIELD);
    expect(logs).not.toContain(`"${CVC}"`);
  });
});
