import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { startLiveService, type LiveService } from './helpers.js';
import { testWorker } from '../webhooks/helpers.js';
import { paidSession } from '../modifications/helpers.js';

// The merchant operations of the built `paylinks` command  against the live service: tables
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

  it('creates a link with its messages and terms, and shows them only when the link has them', async () => {
    const t = live.ctx.merchant.terminalIdentifier;
    const texts = [
      '--completion-message',
      'Takk fyrir!\nSent innan tveggja daga.',
      '--inactive-message',
      'Útsalan er búin.',
      '--terms-url',
      'https://shop.example/terms',
    ];
    const created = await json('links', 'create', '--terminal', t, '--amount', '1000', '--currency', 'ISK', ...texts);
    const ref = created.paymentLinkReference as string;
    expect((await json('links', 'get', ref)).paymentLink).toMatchObject({
      completionMessage: 'Takk fyrir!\nSent innan tveggja daga.',
      inactiveMessage: 'Útsalan er búin.',
      termsUrl: 'https://shop.example/terms',
    });
    const details = await paylinks(['links', 'get', ref, ...flags]);
    // A message's second line stays in the VALUE column, under its first.
    expect(details).toMatch(/^completionMessage( +)Takk fyrir!\n {17}\1Sent innan tveggja daga\.$/m);
    expect(details).toMatch(/inactiveMessage\s+Útsalan er búin\./);
    expect(details).toMatch(/termsUrl\s+https:\/\/shop\.example\/terms/);
    const plain = await json('links', 'create', '--terminal', t, '--amount', '1000', '--currency', 'ISK');
    expect(await paylinks(['links', 'get', plain.paymentLinkReference as string, ...flags])).not.toMatch(/completionMessage|inactiveMessage|termsUrl/);
    // The service's rule, as the API and the portal have it.
    const bad = await failure(['links', 'create', '--terminal', t, '--amount', '1000', '--currency', 'ISK', '--terms-url', 'ftp://x', ...flags]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/termsUrl: INVALID_URL/);
  });

  it('creates a link with custom fields (--custom-field, repeatable JSON) and shows them only when the link has them', async () => {
    const t = live.ctx.merchant.terminalIdentifier;
    const size = '{"key":"size","type":"Dropdown","label":"Stærð","labelEn":"Size","required":true,"options":["S","M"]}';
    const note = '{"key":"note","type":"Text","label":"Athugasemd","required":false,"maxLength":40}';
    const created = await json('links', 'create', '--terminal', t, '--amount', '1000', '--currency', 'ISK', '--custom-field', size, '--custom-field', note);
    const ref = created.paymentLinkReference as string;
    expect((await json('links', 'get', ref)).paymentLink).toMatchObject({
      customFields: [
        { key: 'size', type: 'Dropdown', label: 'Stærð', labelEn: 'Size', required: true, options: ['S', 'M'] },
        { key: 'note', type: 'Text', label: 'Athugasemd', required: false, maxLength: 40 },
      ],
    });
    const details = await paylinks(['links', 'get', ref, ...flags]);
    expect(details).toMatch(/size\s+Dropdown, required, Stærð \/ Size, options: S \| M/);
    expect(details).toMatch(/note\s+Text, optional, Athugasemd, at most 40 characters/);
    const plain = await json('links', 'create', '--terminal', t, '--amount', '1000', '--currency', 'ISK');
    expect(await paylinks(['links', 'get', plain.paymentLinkReference as string, ...flags])).not.toMatch(/CUSTOM FIELD|ANSWERS/);
    // Not JSON: the command line's own mistake (exit 2); the service's rule as the API and the portal have it (exit 1).
    const notJson = await failure(['links', 'create', '--terminal', t, '--amount', '1000', '--currency', 'ISK', '--custom-field', 'size=S', ...flags]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('a custom field is a JSON object');
    const bad = await failure([
      'links',
      'create',
      '--terminal',
      t,
      '--amount',
      '1000',
      '--currency',
      'ISK',
      '--custom-field',
      '{"key":"n","type":"Number","label":"N","required":true,"options":["1"]}',
      ...flags,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/customFields\[0\]\.options: NOT_ALLOWED/);
  });

  it('creates a link whose items the shopper may change the quantity of, and shows the ranges', async () => {
    const t = live.ctx.merchant.terminalIdentifier;
    const items = ['--item', 'Mug:2:1000', '--item', 'Tea:1:1500:1000', '--adjustable-quantity', '1:0:10'];
    const created = await json('links', 'create', '--terminal', t, '--amount', '3000', '--currency', 'EUR', ...items);
    const ref = created.paymentLinkReference as string;
    const link = (await json('links', 'get', ref)).paymentLink as { items: Record<string, unknown>[] };
    expect(link.items[0]).toMatchObject({ name: 'Mug', quantity: 2, adjustableQuantity: { minimum: 0, maximum: 10 } });
    expect(link.items[1]).not.toHaveProperty('adjustableQuantity');
    expect(await paylinks(['links', 'get', ref, ...flags])).toMatch(/SHOPPER CHOOSES[\s\S]*Mug\s+2\s+1000\s+2000\s+0-10/);
    // The service's rule, as the API and the portal have it; and an item that is not there.
    const bad = await failure([
      'links',
      'create',
      '--terminal',
      t,
      '--amount',
      '3000',
      '--currency',
      'EUR',
      ...items.slice(0, 4),
      '--adjustable-quantity',
      '1:3:10',
      ...flags,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/items\[0\]\.adjustableQuantity: RANGE/);
    const none = await failure([
      'links',
      'create',
      '--terminal',
      t,
      '--amount',
      '3000',
      '--currency',
      'EUR',
      ...items.slice(0, 4),
      '--adjustable-quantity',
      '3:0:1',
      ...flags,
    ]);
    expect(none.stderr).toMatch(/names item 3, but there are 2/);
  });

  it('reads the service address and key from PAYLINKS_BASE_URL and PAYLINKS_API_KEY', async () => {
    const out = await paylinks(['links', 'list', '--json'], { PAYLINKS_BASE_URL: live.baseUrl, PAYLINKS_API_KEY: live.ctx.merchant.apiKey });
    expect(JSON.parse(out)).toHaveProperty('totalCount');
    const missing = await failure(['links', 'list'], { PAYLINKS_BASE_URL: live.baseUrl });
    // A mistake in the command line itself: exit 2 (the service's refusals exit 1).
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('PAYLINKS_API_KEY');
  });

  it('prints every failing field of a refusal and exits 1', async () => {
    const r = await failure(['links', 'create', '--terminal', 'short', '--amount', '100', '--currency', 'XXX', ...flags]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('400 VALIDATION_FAILED');
    expect(r.stderr).toMatch(/terminalIdentifier: \w+/);
    expect(r.stderr).toMatch(/currency: \w+/);
    const unauth = await failure(['links', 'list', '--base-url', live.baseUrl, '--api-key', 'pk_nope']);
    expect(unauth.stderr).toContain('401 UNAUTHENTICATED');
  });

  it('adjusts the authorisation of a payment: Received with its own payfacReference; a payment captured at once is refused', async () => {
    const p = await paidSession(live.ctx, { isManualCapture: true });
    const r = await json('payments', 'adjust', p.payfacReference, '--amount', '15000', '--currency', 'EUR', '--reference', 'order-9');
    expect(r).toMatchObject({ status: 'Received', payfacReference: expect.stringMatching(/^\d{16}$/) });
    expect(r.payfacReference).not.toBe(p.payfacReference);
    const { rows } = await live.ctx.tdb.db.pool.query('SELECT kind, amount, reference FROM modifications WHERE payfac_reference = $1', [r.payfacReference]);
    expect(rows).toEqual([{ kind: 'Adjustment', amount: 15000, reference: 'order-9' }]);
    const human = await paylinks(['payments', 'adjust', p.payfacReference, '--amount', '16000', '--currency', 'EUR', '--reference', 'order-9', ...flags]);
    expect(human).toMatch(/^status\s+Received$/m);

    const captured = await paidSession(live.ctx);
    const refused = await failure(['payments', 'adjust', captured.payfacReference, '--amount', '100', '--currency', 'EUR', '--reference', 'o', ...flags]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('409 INVALID_STATE');
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

    const ev = await json(
      'trigger',
      'Authorization',
      '--amount',
      '48900',
      '--currency',
      'ISK',
      '--merchant-reference',
      'order-1',
      '--data',
      'cardSummary=4242',
    );
    expect(ev.payfacReference).toEqual(expect.any(String));
    const ds = await json('deliveries', 'list', '--payfac-reference', ev.payfacReference as string, '--webhook', wh.webhookId as string);
    expect(ds.totalCount).toBe(1);
    const deliveryId = (ds.data as { deliveryId: string }[])[0]?.deliveryId ?? '';

    const table = await paylinks(['deliveries', 'list', '--payfac-reference', ev.payfacReference as string, ...flags]);
    expect(table).toMatch(/^DELIVERY\s+STATE\s+ATTEMPTS\s+EVENT\s+PAYFACREFERENCE\s+NEXT ATTEMPT\s+WEBHOOK$/m);
    expect(table).toMatch(new RegExp(`^${deliveryId}\\s+Pending\\s+0\\s+Authorization\\s+${ev.payfacReference as string}\\s`, 'm'));
    expect(table.trim().split('\n').at(-1)).toBe('2 shown of 2'); // both webhooks take Authorization

    const one = await json('deliveries', 'get', deliveryId);
    expect(JSON.parse((one.delivery as { body: string }).body)).toMatchObject({
      merchantReference: 'order-1',
      amount: '48900',
      additionalData: { eventType: 'Authorization', cardSummary: '4242' },
    });
    expect(await paylinks(['deliveries', 'get', deliveryId, ...flags])).toMatch(/state\s+Pending/);

    const re = await json('deliveries', 'redeliver', deliveryId);
    expect(re.deliveryId).not.toBe(deliveryId);
    expect((await json('deliveries', 'list', '--payfac-reference', ev.payfacReference as string, '--webhook', wh.webhookId as string)).totalCount).toBe(2);

    const refused = await failure(['trigger', 'Payout', ...flags]);
    expect(refused.stderr).toContain('unknown event type Payout');
  });

  it('reads, updates, rotates and deletes a webhook; shows a delivery with its attempts; advances and redelivers it', async () => {
    const receiver = createServer((_req, res) => res.writeHead(500).end('not today\nsecond line'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const worker = testWorker(live.ctx);
    await worker.start();
    try {
      const wh = await json('webhook', 'register', '--url', url, '--event-types', 'Capture');
      const id = wh.webhookId as string;
      expect((await json('webhook', 'get', id)).webhook as { url: string; kind: string }).toMatchObject({ url, kind: 'url' });
      expect(await paylinks(['webhook', 'get', id, ...flags])).toMatch(/eventTypes\s+Capture/);

      const updated = (await json('webhook', 'update', id, '--description', 'shop hook', '--event-types', 'all')).webhook as {
        description: string;
        eventTypes: string[];
      };
      expect(updated).toMatchObject({ description: 'shop hook', eventTypes: [] });
      expect((await json('webhook', 'update', id, '--max-in-flight', '3', '--rate-limit', '40')).webhook).toMatchObject({ maxInFlight: 3, rateLimit: 40 });
      expect((await json('webhook', 'update', id, '--rate-limit', 'none')).webhook).toMatchObject({ maxInFlight: 3, rateLimit: null });
      expect((await json('webhook', 'update', id, '--ordering', 'fifo')).webhook).toMatchObject({ ordering: 'fifo', maxInFlight: 3 });
      expect(await paylinks(['webhook', 'get', id, ...flags])).toMatch(/ordering\s+fifo/);
      const badOrdering = await failure(['webhook', 'update', id, '--ordering', 'sorted', ...flags]);
      expect(badOrdering.stderr).toMatch(/--ordering.*sorted.*unordered, fifo/s);
      expect((await json('webhook', 'update', id, '--ordering', 'unordered')).webhook).toMatchObject({ ordering: 'unordered' });
      const ordered = await json('webhook', 'register', '--url', url, '--event-types', 'Refund', '--ordering', 'fifo');
      expect(ordered.ordering).toBe('fifo');
      await json('webhook', 'delete', ordered.webhookId as string);
      const nothing = await failure(['webhook', 'update', id, ...flags]);
      expect(nothing.code).toBe(2);
      expect(nothing.stderr).toContain('nothing to change');
      const badUrl = await failure(['webhook', 'update', id, '--url', 'http://example.com/x', ...flags]);
      expect(badUrl.code).toBe(1);
      expect(badUrl.stderr).toMatch(/url: FORMAT must be an absolute https URL/);

      const ev = await json('trigger', 'Capture', '--amount', '700', '--currency', 'EUR');
      await worker.settled();
      const list = await json('delivery', 'list', '--payfac-reference', ev.payfacReference as string, '--webhook', id);
      const deliveryId = (list.data as { deliveryId: string }[])[0]?.deliveryId as string;
      const shown = await paylinks(['delivery', 'show', deliveryId, ...flags]);
      expect(shown).toMatch(/^ATTEMPT\s+SENT\s+STATUS\s+MS\s+ERROR\s+CORRELATION ID\s+ANSWER$/m);
      expect(shown, shown).toMatch(/^1\s+\S+\s+500\s+\d+\s+status\s+[0-9a-f-]{36}\s+not today$/m);
      expect(shown).not.toContain('body  ');
      expect(await paylinks(['delivery', 'show', deliveryId, '--body', ...flags])).toContain(
        `body  {"checkoutReference":null,"payfacReference":"${ev.payfacReference as string}"`,
      );

      // Its next attempt is a minute away on the service's clock; advance makes it due now.
      const advanced = await json('delivery', 'advance', deliveryId);
      expect(advanced.deliveryId).toBe(deliveryId);
      await worker.settled();
      expect(((await json('delivery', 'show', deliveryId)).delivery as { attemptCount: number }).attemptCount).toBe(2);

      const rotated = await json('webhook', 'rotate', id);
      expect(rotated.hmacKey).toMatch(/^[0-9a-f]{64}$/);
      expect(rotated.hmacKey).not.toBe(wh.hmacKey);
      const deleted = await paylinks(['webhook', 'delete', id, ...flags]);
      expect(deleted).toBe(`deleted ${id}\n`);
      const gone = await failure(['webhook', 'get', id, ...flags]);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain('404 NOT_FOUND');
      const advanceDone = await failure(['delivery', 'advance', deliveryId, ...flags]);
      expect(advanceDone.stderr).toContain('409 INVALID_STATE');
    } finally {
      await worker.stop(5_000);
      receiver.close();
    }
  });

  it('describes every command in --help without internal labels, and offers --json wherever it prints a result', async () => {
    const { buildCli } = await import('../../src/cli.js');
    const missing: string[] = [];
    const labelled: string[] = [];
    const noJson: string[] = [];
    const walk = (cmd: Command, path: string[]): void => {
      for (const sub of cmd.commands) {
        const name = [...path, sub.name()].join(' ');
        if (sub.description().trim() === '') missing.push(name);
        const texts = [sub.description(), ...sub.options.map((o) => o.description)];
        if (texts.some((t) => /\bD\d{1,2}\b|issue \d|interface\.md/.test(t))) labelled.push(name);
        if (sub.commands.length === 0 && !['serve', 'worker', 'migrate'].includes(sub.name()) && !sub.options.some((o) => o.long === '--json'))
          noJson.push(name);
        walk(sub, [...path, sub.name()]);
      }
    };
    walk(buildCli(), []);
    expect(missing).toEqual([]);
    expect(labelled).toEqual([]);
    expect(noJson).toEqual([]);
  });
});
