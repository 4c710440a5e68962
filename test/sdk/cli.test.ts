import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveService, type LiveService } from './helpers.js';

// The merchant operations of the built `paylinks` command (issue 6) against the live service: tables
// for people, --json for scripts, options or PAYLINKS_BASE_URL / PAYLINKS_API_KEY.

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/paylinks.js');

// Each command is a fresh node process (about half a second here): a generous per-test timeout.
describe('paylinks links, webhooks, deliveries and trigger', { timeout: 120_000 }, () => {
  let live: LiveService;
  let flags: string[];

  beforeAll(async () => {
    live = await startLiveService();
    flags = ['--base-url', live.baseUrl, '--api-key', live.ctx.merchant.apiKey];
  });
  afterAll(async () => {
    await live.close();
  });

  async function paylinks(args: string[], env: Record<string, string> = {}): Promise<string> {
    const { stdout } = await run(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    return stdout;
  }
  const json = async (...args: string[]) => JSON.parse((await paylinks([...args, ...flags, '--json'])).trim()) as Record<string, unknown>;

  async function failure(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
    try {
      await paylinks(args, env);
    } catch (err) {
      const e = err as { code: number; stderr: string };
      return { code: e.code, stderr: e.stderr };
    }
    throw new Error('expected the command to fail');
  }

  it('creates, lists, reads and disables links', async () => {
    const t = live.ctx.merchant.terminalIdentifier;
    const created = await json('links', 'create', '--terminal', t, '--amount', '48900', '--currency', 'ISK', '--description', 'Kaffi');
    const ref = created.paymentLinkReference as string;
    expect(created.url).toBe(`${live.ctx.config.publicBaseUrl}/pay/${ref}`);
    live.ctx.clock.advance(1000);
    const two = await json('links', 'create', '--terminal', t, '--amount', '3000', '--currency', 'ISK', '--item', 'Kleina:2:1000', '--item', 'Te:1:1000');

    const got = await json('links', 'get', two.paymentLinkReference as string);
    expect((got.paymentLink as { items: unknown[] }).items).toEqual([
      { name: 'Kleina', quantity: 2, unitPrice: 1000, amountWithoutDiscount: 2000, amount: 2000 },
      { name: 'Te', quantity: 1, unitPrice: 1000, amountWithoutDiscount: 1000, amount: 1000 },
    ]);

    const list = await json('links', 'list', '--page-size', '1');
    expect(list.totalCount).toBe(2);
    expect((list.data as { paymentLinkReference: string }[]).map((l) => l.paymentLinkReference)).toEqual([two.paymentLinkReference]);
    const all = await json('links', 'list', '--all', '--page-size', '1');
    expect((all.data as unknown[]).length).toBe(2);

    const table = await paylinks(['links', 'list', ...flags]);
    const lines = table.trim().split('\n');
    expect(lines[0]).toMatch(/^REFERENCE\s+TYPE\s+AMOUNT\s+CURRENCY\s+CREATED\s+DESCRIPTION$/);
    expect(lines[1]).toContain(two.paymentLinkReference as string);
    expect(lines[2]).toMatch(new RegExp(`^${ref}\\s+PayByLink\\s+48900\\s+ISK\\s+\\S+\\s+Kaffi$`));
    expect(lines.at(-1)).toBe('2 shown of 2');

    const details = await paylinks(['links', 'get', ref, ...flags]);
    expect(details).toMatch(/status\s+Active/);
    expect(details).toMatch(/amount\s+48900 ISK/);

    expect(await paylinks(['links', 'disable', ref, ...flags])).toBe(`disabled ${ref}\n`);
    expect(((await json('links', 'get', ref)).paymentLink as { status: string }).status).toBe('Disabled');
  });

  it('reads the service address and key from PAYLINKS_BASE_URL and PAYLINKS_API_KEY', async () => {
    const out = await paylinks(['links', 'list', '--json'], { PAYLINKS_BASE_URL: live.baseUrl, PAYLINKS_API_KEY: live.ctx.merchant.apiKey });
    expect(JSON.parse(out)).toHaveProperty('totalCount');
    const missing = await failure(['links', 'list'], { PAYLINKS_BASE_URL: live.baseUrl });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('PAYLINKS_API_KEY');
  });

  it('prints every failing field of a D2 error and exits 1', async () => {
    const r = await failure(['links', 'create', '--terminal', 'short', '--amount', '100', '--currency', 'XXX', ...flags]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('400 VALIDATION_FAILED');
    expect(r.stderr).toMatch(/terminalIdentifier: \w+/);
    expect(r.stderr).toMatch(/currency: \w+/);
    const unauth = await failure(['links', 'list', '--base-url', live.baseUrl, '--api-key', 'pk_nope']);
    expect(unauth.stderr).toContain('401 UNAUTHENTICATED');
  });

  it('registers and lists webhooks, triggers a sandbox event, traces and redelivers its delivery', async () => {
    const wh = await json('webhooks', 'register', '--url', 'https://127.0.0.1:9/hooks', '--event-types', 'Authorization,Refund', '--description', 'shop');
    expect(wh.webhookId).toMatch(/^wh_/);
    expect(wh.hmacKey).toMatch(/^[0-9a-f]{64}$/);
    const human = await paylinks(['webhooks', 'register', '--url', 'https://127.0.0.1:9/other', ...flags]);
    expect(human).toMatch(/apiKey\s+\S+\s+\(shown only now\)/);
    expect(human).toMatch(/hmacKey\s+[0-9a-f]{64}\s+\(shown only now\)/);

    const whList = await paylinks(['webhooks', 'list', ...flags]);
    expect(whList).toMatch(/^WEBHOOK\s+ENABLED\s+EVENT TYPES\s+CREATED\s+URL$/m);
    expect(whList).toMatch(new RegExp(`^${wh.webhookId as string}\\s+true\\s+Authorization,Refund\\s+\\S+\\s+https://127.0.0.1:9/hooks$`, 'm'));
    expect(((await json('webhooks', 'list')).data as unknown[]).length).toBe(2);

    const ev = await json('trigger', 'Authorization', '--amount', '48900', '--currency', 'ISK', '--merchant-reference', 'order-1', '--data', 'cardSummary=4242');
    expect(ev.payfacReference).toEqual(expect.any(String));
    const ds = await json('deliveries', 'list', '--payfac-reference', ev.payfacReference as string, '--webhook', wh.webhookId as string);
    expect(ds.totalCount).toBe(1);
    const deliveryId = (ds.data as { deliveryId: string }[])[0]?.deliveryId ?? '';

    const table = await paylinks(['deliveries', 'list', '--payfac-reference', ev.payfacReference as string, ...flags]);
    expect(table).toMatch(/^DELIVERY\s+STATE\s+ATTEMPTS\s+EVENT\s+PAYFACREFERENCE\s+NEXT ATTEMPT\s+WEBHOOK$/m);
    expect(table).toMatch(new RegExp(`^${deliveryId}\\s+Pending\\s+0\\s+Authorization\\s+${ev.payfacReference as string}\\s`, 'm'));
    expect(table.trim().split('\n').at(-1)).toBe('2 shown of 2'); // both webhooks take Authorization

    const one = await json('deliveries', 'get', deliveryId);
    expect(JSON.parse((one.delivery as { body: string }).body)).toMatchObject({ merchantReference: 'order-1', amount: '48900', additionalData: { eventType: 'Authorization', cardSummary: '4242' } });
    expect(await paylinks(['deliveries', 'get', deliveryId, ...flags])).toMatch(/state\s+Pending/);

    const re = await json('deliveries', 'redeliver', deliveryId);
    expect(re.deliveryId).not.toBe(deliveryId);
    expect((await json('deliveries', 'list', '--payfac-reference', ev.payfacReference as string, '--webhook', wh.webhookId as string)).totalCount).toBe(2);

    const refused = await failure(['trigger', 'Payout', ...flags]);
    expect(refused.stderr).toContain('unknown event type Payout');
  });
});
