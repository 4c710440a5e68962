import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { TEST_DB } from '../helpers/db.js';
import { Shopper } from '../checkout/fixtures.js';

// docs/api.md is checked against the service: every request in it is sent, in order, to a fresh
// service, and the answer must have the status and the shape (every key, recursively) of the example
// printed under it. `{{name}}` in a request stands for a value an earlier answer gave (the last one
// of that name), or for the merchant's apiKey and terminalIdentifier. HTML comments in the guide
// (invisible on a rendered page) stand for what a shopper does in a browser:
//   <!-- shopper pays {{checkoutReference}} -->      pays that checkout with 4242 4242 4242 4242
//   <!-- paid session NAME {json} -->                 a session created with those fields and paid;
//                                                    sets NAME.checkoutReference, NAME.payfacReference
//                                                    and, for a saved card, NAME.tokenValue
// PAYLINKS_UPDATE_DOCS=1 writes the answers the service gave into the guide instead of comparing.

const GUIDE = fileURLToPath(new URL('../../docs/api.md', import.meta.url));
const UPDATE = process.env.PAYLINKS_UPDATE_DOCS === '1';
const CARD = '4242424242424242';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The shape of a JSON value: its keys and the kinds of its leaves, arrays by their first element. */
export function shapeOf(v: Json): unknown {
  if (Array.isArray(v)) return v.length === 0 ? [] : [shapeOf(v[0] as Json)];
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shapeOf(v[k] as Json)]));
  return v === null ? 'null' : typeof v;
}

function remember(vars: Map<string, string>, v: Json, seen = new Set<string>()): void {
  if (Array.isArray(v)) {
    for (const item of v) remember(vars, item, seen);
    return;
  }
  if (v === null || typeof v !== 'object') return;
  for (const [k, value] of Object.entries(v)) {
    if ((typeof value === 'string' || typeof value === 'number') && !seen.has(k)) {
      seen.add(k);
      vars.set(k, String(value));
    } else {
      remember(vars, value as Json, seen);
    }
  }
}

interface Step {
  kind: 'request' | 'pay' | 'paidSession';
  text: string;
  /** Where the example answer's block sits in the guide, to compare or rewrite it. */
  answer?: { status: number; json: string; start: number; end: number };
}

const STEP = /```http\n([\s\S]*?)```\n+→ `(\d{3})[^`\n]*`\n+```json\n([\s\S]*?)```|<!-- shopper pays (\S+) -->|<!-- paid session (\S+) (\{.*?\}) -->/g;

function stepsOf(guide: string): Step[] {
  const steps: Step[] = [];
  for (const m of guide.matchAll(STEP)) {
    if (m[1] !== undefined) {
      const json = m[3] ?? '';
      const start = (m.index ?? 0) + m[0].length - json.length - 3;
      steps.push({ kind: 'request', text: m[1], answer: { status: Number(m[2]), json, start, end: start + json.length } });
    } else if (m[4] !== undefined) steps.push({ kind: 'pay', text: m[4] });
    else steps.push({ kind: 'paidSession', text: `${m[5]} ${m[6]}` });
  }
  return steps;
}

describe.skipIf(TEST_DB !== 'pglite')('the API guide (docs/api.md)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ PUBLIC_BASE_URL: 'http://127.0.0.1:8080' });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('shows answers the service really gives to the requests it shows', async () => {
    const guide = readFileSync(GUIDE, 'utf8');
    const steps = stepsOf(guide);
    expect(steps.filter((s) => s.kind === 'request').length).toBeGreaterThanOrEqual(25);
    const vars = new Map<string, string>([
      ['apiKey', ctx.merchant.apiKey],
      ['terminalIdentifier', ctx.merchant.terminalIdentifier],
    ]);
    const fill = (text: string) =>
      text.replace(/\{\{([\w.]+)\}\}/g, (_all, name: string) => {
        const value = vars.get(name);
        if (value === undefined) throw new Error(`the guide uses {{${name}}} before any answer gave it`);
        return value;
      });
    const rewrites: { start: number; end: number; json: string; status: number }[] = [];
    const mismatches: string[] = [];

    for (const step of steps) {
      if (step.kind === 'pay') {
        const reference = fill(step.text);
        const res = await new Shopper(ctx).payWith(`/checkout/${reference}`, CARD);
        expect(res.statusCode, `paying ${reference}`).toBeLessThan(400);
        continue;
      }
      if (step.kind === 'paidSession') {
        const [name = '', json = '{}'] = [step.text.slice(0, step.text.indexOf(' ')), step.text.slice(step.text.indexOf(' ') + 1)];
        const fields = JSON.parse(fill(json)) as Record<string, unknown>;
        const body = { amount: 12345, currency: 'EUR', returnUrl: 'https://shop.example.com/thanks', reference: `order-${name}`, terminalIdentifier: ctx.merchant.terminalIdentifier, ...fields };
        const created = await ctx.app.inject({ method: 'POST', url: '/api/v1/hostedcheckout', headers: { 'x-api-key': ctx.merchant.apiKey, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
        const { checkoutReference } = JSON.parse(created.body) as { checkoutReference: string };
        await new Shopper(ctx).payWith(`/checkout/${checkoutReference}`, CARD);
        const status = await ctx.app.inject({ method: 'GET', url: `/api/v1/hostedcheckout/status/${checkoutReference}`, headers: { 'x-api-key': ctx.merchant.apiKey } });
        const { payfacReference } = JSON.parse(status.body) as { payfacReference: string };
        vars.set(`${name}.checkoutReference`, checkoutReference);
        vars.set(`${name}.payfacReference`, payfacReference);
        if ('recurringProcessingModel' in fields) {
          const { rows } = await ctx.tdb.db.pool.query<{ token: string }>(
            "SELECT message->'additionalData'->>'token' AS token FROM webhook_events WHERE event_type = 'Tokenization' AND message->>'checkoutReference' = $1",
            [checkoutReference],
          );
          vars.set(`${name}.tokenValue`, rows[0]?.token ?? '');
        }
        continue;
      }
      const text = fill(step.text);
      const [head = '', ...rest] = text.split('\n\n');
      const [line = '', ...headerLines] = head.split('\n');
      const [method = 'GET', url = '/'] = line.split(' ');
      const headers = Object.fromEntries(headerLines.filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const payload = rest.join('\n\n').trim();
      const res = await ctx.app.inject({ method: method as 'GET', url, headers, ...(payload !== '' ? { payload } : {}) });
      const answer = JSON.parse(res.body) as Json;
      const documented = step.answer;
      if (documented === undefined) continue;
      if (UPDATE) rewrites.push({ start: documented.start, end: documented.end, json: `${JSON.stringify(answer, null, 2)}\n`, status: res.statusCode });
      else {
        const where = `${method} ${url}`;
        if (res.statusCode !== documented.status) mismatches.push(`${where}: answered ${res.statusCode}, the guide says ${documented.status}: ${res.body.slice(0, 300)}`);
        else if (JSON.stringify(shapeOf(answer)) !== JSON.stringify(shapeOf(JSON.parse(documented.json) as Json))) {
          mismatches.push(`${where}: the answer's shape differs from the guide's\n  service: ${JSON.stringify(shapeOf(answer))}\n  guide:   ${JSON.stringify(shapeOf(JSON.parse(documented.json) as Json))}`);
        }
      }
      // The merchant's key and terminal stay what they are (a webhook's answer has an apiKey of its own).
      const fixed = new Set(['apiKey', 'terminalIdentifier']);
      const seen = new Map<string, string>();
      remember(seen, answer);
      for (const [k, v] of seen) if (!fixed.has(k)) vars.set(k, v);
    }

    if (UPDATE) {
      let out = guide;
      for (const r of rewrites.sort((a, b) => b.start - a.start)) {
        out = out.slice(0, r.start) + r.json + out.slice(r.end);
        const before = out.lastIndexOf('→ `', r.start);
        out = `${out.slice(0, before)}→ \`${r.status}\`${out.slice(out.indexOf('\n', before))}`;
      }
      writeFileSync(GUIDE, out);
    }
    expect(mismatches.join('\n\n')).toBe('');
  });
});
