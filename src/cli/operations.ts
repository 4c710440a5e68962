import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  Paylinks,
  PaylinksApiError,
  PaylinksError,
  type CreatePaymentLinkParams,
  type DeliveryState,
  type EventType,
  type Item,
  type LinkType,
  type RecurringProcessingModel,
} from '@paylinks/sdk';

// The merchant's operations at a terminal (issue 6): payment links, webhooks, deliveries and the
// sandbox trigger, all through @paylinks/sdk against a running service, so the CLI exercises the
// same client merchants use. Tables for people; --json prints the response body for scripts.

const EVENT_TYPES: readonly EventType[] = ['Authorization', 'Capture', 'Tokenization', 'Refund', 'TokenDisabled', 'Adjustment'];
const DELIVERY_STATES: readonly DeliveryState[] = ['Pending', 'Delivered', 'Failed'];
const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

interface ClientFlags {
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

class UsageError extends Error {}

function client(flags: ClientFlags): Paylinks {
  // src/config.ts is the one place that reads process.env for the service's own configuration; these
  // two variables configure this command's client of a (possibly remote) service, not the service,
  // so they are read here, where they are used.
  const baseUrl = flags.baseUrl ?? process.env.PAYLINKS_BASE_URL ?? DEFAULT_BASE_URL;
  const apiKey = flags.apiKey ?? process.env.PAYLINKS_API_KEY;
  if (!apiKey) throw new UsageError('an API key is needed: --api-key or PAYLINKS_API_KEY');
  return new Paylinks({ baseUrl, apiKey });
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(headers: string[], rows: (string | number | null | undefined)[][]): string[] {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

function emit(flags: ClientFlags, body: object, human: () => string[]): void {
  if (flags.json) out(JSON.stringify(body));
  else for (const l of human()) out(l);
}

/** Runs an action; an API error becomes its D2 lines (every failing field) on stderr and exit 1. */
function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      if (!(err instanceof PaylinksError) && !(err instanceof UsageError)) throw err;
      process.stderr.write(`paylinks: ${err.message}\n`);
      if (err instanceof PaylinksApiError) for (const e of err.errors) process.stderr.write(`  ${e.field}: ${e.code} ${e.message}\n`);
      process.exit(1);
    }
  };
}

const int = (name: string) => (value: string): number => {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be an integer`);
  return Number(value);
};

/** --item "name:quantity:unitPrice[:amount]" (minor units; amount defaults to quantity × unitPrice). */
function parseItem(value: string, previous: Item[] = []): Item[] {
  const parts = value.split(':');
  const [name, q, p, a] = parts.length > 4 ? [parts.slice(0, -3).join(':'), ...parts.slice(-3)] : parts;
  if (!name || !q || !p || !/^\d+$/.test(q) || !/^\d+$/.test(p) || (a !== undefined && !/^\d+$/.test(a))) {
    throw new InvalidArgumentError('an item is name:quantity:unitPrice[:amount], numbers in minor units');
  }
  const quantity = Number(q);
  const unitPrice = Number(p);
  const amountWithoutDiscount = quantity * unitPrice;
  return [...previous, { name, quantity, unitPrice, amountWithoutDiscount, amount: a !== undefined ? Number(a) : amountWithoutDiscount }];
}

function parseData(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('additional data is key=value');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** The options every operation takes: where the service is, the key, and --json. */
function withClient(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', `the service's base address (env PAYLINKS_BASE_URL; default ${DEFAULT_BASE_URL})`)
    .option('--api-key <key>', 'the merchant API key (env PAYLINKS_API_KEY)')
    .option('--json', 'print the response as one JSON object');
}

const paging = (cmd: Command): Command =>
  cmd.option('--page <n>', 'page number, from 0', int('--page')).option('--page-size <n>', 'page size, 1 to 100', int('--page-size'));

export function registerOperations(program: Command): void {
  // ---------------------------------------------------------------- payment links
  const links = program.command('links').description('payment links of the merchant (interface.md 4.1–4.5)');

  withClient(links.command('create').description('create a payment link (D4); prints its reference and URL'))
    .requiredOption('--terminal <id>', 'terminalIdentifier (12 characters)')
    .requiredOption('--amount <minor>', 'amount in minor units (0 for TokenizeByLink)', int('--amount'))
    .requiredOption('--currency <code>', 'ISO 4217 code, e.g. ISK')
    .addOption(new Option('--type <type>', 'link type').choices(['PayByLink', 'TokenizeByLink']).default('PayByLink'))
    .option('--description <text>', 'description of the link')
    .option('--item <name:quantity:unitPrice[:amount]>', 'an item (repeatable); default one item of the whole amount', parseItem)
    .addOption(new Option('--recurring-processing-model <model>', 'for TokenizeByLink').choices(['CardOnFile', 'Subscription', 'UnscheduledCardOnFile']))
    .option('--return-url <url>', 'where the shopper goes afterwards')
    .option('--expires-at <iso>', 'ISO 8601 UTC expiry')
    .option('--exact-sales-count <n>', 'maximum successful sales', int('--exact-sales-count'))
    .addOption(new Option('--culture <culture>', 'page language').choices(['is', 'en']))
    .option('--idempotency-key <key>', 'Idempotency-Key (D16); default a new one')
    .action(
      action(async (o: ClientFlags & {
        terminal: string; amount: number; currency: string; type: LinkType; description?: string; item?: Item[];
        recurringProcessingModel?: RecurringProcessingModel; returnUrl?: string; expiresAt?: string; exactSalesCount?: number; culture?: 'is' | 'en'; idempotencyKey?: string;
      }) => {
        const items = o.item ?? (o.type === 'PayByLink' ? [{ name: o.description || 'Payment', quantity: 1, unitPrice: o.amount, amountWithoutDiscount: o.amount, amount: o.amount }] : []);
        const params: CreatePaymentLinkParams = {
          type: o.type,
          terminalIdentifier: o.terminal,
          amount: o.amount,
          currency: o.currency,
          items,
          ...(o.recurringProcessingModel ? { recurringProcessingModel: o.recurringProcessingModel } : {}),
          ...(o.description !== undefined ? { description: o.description } : {}),
          ...(o.returnUrl !== undefined ? { returnUrl: o.returnUrl } : {}),
          ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt } : {}),
          ...(o.exactSalesCount !== undefined ? { exactSalesCount: o.exactSalesCount } : {}),
          ...(o.culture !== undefined ? { culture: o.culture } : {}),
        };
        const r = await client(o).paymentLinks.create(params, o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {});
        emit(o, r, () => [`paymentLinkReference  ${r.paymentLinkReference}`, `url                   ${r.url}`]);
      }),
    );

  withClient(paging(links.command('list').description('list payment links, newest first (D9)')))
    .option('--all', 'every page (ignores --page)')
    .action(
      action(async (o: ClientFlags & { page?: number; pageSize?: number; all?: boolean }) => {
        const c = client(o);
        let data;
        let totalCount;
        if (o.all) {
          data = [];
          for await (const e of c.paymentLinks.listAll(o.pageSize !== undefined ? { pageSize: o.pageSize } : {})) data.push(e);
          totalCount = data.length;
        } else {
          ({ data, totalCount } = await c.paymentLinks.list({ ...(o.page !== undefined ? { page: o.page } : {}), ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}) }));
        }
        emit(o, { data, totalCount }, () => [
          ...table(['REFERENCE', 'TYPE', 'AMOUNT', 'CURRENCY', 'CREATED', 'DESCRIPTION'], data.map((l) => [l.paymentLinkReference, l.type, l.amount, l.currency, l.createdAt, l.description])),
          `${data.length} shown of ${totalCount}`,
        ]);
      }),
    );

  withClient(links.command('get').description('a payment link with its status, counts and submissions (4.2)'))
    .argument('<reference>', 'paymentLinkReference')
    .action(
      action(async (reference: string, o: ClientFlags) => {
        const r = await client(o).paymentLinks.get(reference);
        const l = r.paymentLink;
        emit(o, r, () => [
          ...table(['FIELD', 'VALUE'], [
            ['paymentLinkReference', l.paymentLinkReference],
            ['type', l.type],
            ['status', l.status],
            ['amount', `${l.amount} ${l.currency}`],
            ['description', l.description],
            ['url', l.url],
            ['terminalIdentifier', l.terminalIdentifier],
            ['createdAt', l.createdAt],
            ['validUntil', l.validUntil],
            ['sales', `${l.salesCount}${l.maxSalesCount !== null ? ` of ${l.maxSalesCount}` : ''}`],
            ['visitCount', l.visitCount],
            ['returnUrl', l.returnUrl],
          ]),
          ...(l.items.length > 0 ? ['', ...table(['ITEM', 'QUANTITY', 'UNIT PRICE', 'AMOUNT'], l.items.map((i) => [i.name, i.quantity, i.unitPrice, i.amount]))] : []),
          ...(l.submissions.length > 0 ? ['', ...table(['SUBMISSION', 'COMPLETED', 'AMOUNT', 'PAYFACREFERENCE'], l.submissions.map((s, i) => [i + 1, String(s.completed), `${s.amount} ${s.currency}`, s.payfacReference]))] : []),
        ]);
      }),
    );

  withClient(links.command('disable').description('disable a payment link (D8; idempotent)'))
    .argument('<reference>', 'paymentLinkReference')
    .action(
      action(async (reference: string, o: ClientFlags) => {
        const r = await client(o).paymentLinks.disable(reference);
        emit(o, { paymentLinkReference: reference, ...r }, () => [`disabled ${reference}`]);
      }),
    );

  // ---------------------------------------------------------------- webhooks
  const webhooks = program.command('webhooks').description('webhook registrations (D13)');

  withClient(webhooks.command('register').description('register a webhook; prints its apiKey and hmacKey (shown only now)'))
    .requiredOption('--url <url>', 'absolute https URL of the receiver')
    .option('--event-types <list>', `comma-separated, of ${EVENT_TYPES.join(', ')}; default all`, (v: string) => {
      const list = v.split(',').map((s) => s.trim()).filter((s) => s !== '');
      const bad = list.filter((s) => !EVENT_TYPES.includes(s as EventType));
      if (bad.length > 0) throw new InvalidArgumentError(`unknown event type ${bad.join(', ')}`);
      return list as EventType[];
    })
    .option('--description <text>', 'description')
    .option('--idempotency-key <key>', 'Idempotency-Key (D16); default a new one')
    .action(
      action(async (o: ClientFlags & { url: string; eventTypes?: EventType[]; description?: string; idempotencyKey?: string }) => {
        const r = await client(o).webhooks.register(
          { url: o.url, ...(o.eventTypes ? { eventTypes: o.eventTypes } : {}), ...(o.description !== undefined ? { description: o.description } : {}) },
          o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {},
        );
        emit(o, r, () => [
          `webhookId   ${r.webhookId}`,
          `url         ${r.url}`,
          `eventTypes  ${r.eventTypes.length > 0 ? r.eventTypes.join(',') : '(all)'}`,
          `apiKey      ${r.apiKey}  (shown only now)`,
          `hmacKey     ${r.hmacKey}  (shown only now)`,
        ]);
      }),
    );

  withClient(paging(webhooks.command('list').description('list webhooks')))
    .action(
      action(async (o: ClientFlags & { page?: number; pageSize?: number }) => {
        const r = await client(o).webhooks.list({ ...(o.page !== undefined ? { page: o.page } : {}), ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}) });
        emit(o, r, () => [
          ...table(['WEBHOOK', 'ENABLED', 'EVENT TYPES', 'CREATED', 'URL'], r.data.map((w) => [w.webhookId, String(w.enabled), w.eventTypes.length > 0 ? w.eventTypes.join(',') : '(all)', w.createdAt, w.url])),
          `${r.data.length} shown of ${r.totalCount}`,
        ]);
      }),
    );

  // ---------------------------------------------------------------- deliveries
  const deliveries = program.command('deliveries').description('webhook deliveries: trace and replay (D14)');

  withClient(paging(deliveries.command('list').description('list deliveries, newest first')))
    .option('--payfac-reference <ref>', 'only this payment')
    .option('--correlation-id <id>', 'only the delivery that sent this X-Webhook-CorrelationId')
    .option('--webhook <id>', 'only this webhook')
    .addOption(new Option('--state <state>', 'only this state').choices([...DELIVERY_STATES]))
    .action(
      action(async (o: ClientFlags & { page?: number; pageSize?: number; payfacReference?: string; correlationId?: string; webhook?: string; state?: DeliveryState }) => {
        const r = await client(o).deliveries.list({
          ...(o.page !== undefined ? { page: o.page } : {}),
          ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
          ...(o.payfacReference !== undefined ? { payfacReference: o.payfacReference } : {}),
          ...(o.correlationId !== undefined ? { correlationId: o.correlationId } : {}),
          ...(o.webhook !== undefined ? { webhookId: o.webhook } : {}),
          ...(o.state !== undefined ? { state: o.state } : {}),
        });
        emit(o, r, () => [
          ...table(['DELIVERY', 'STATE', 'ATTEMPTS', 'EVENT', 'PAYFACREFERENCE', 'NEXT ATTEMPT', 'WEBHOOK'], r.data.map((d) => [d.deliveryId, d.state, d.attemptCount, d.eventType, d.payfacReference, d.nextAttemptAt, d.webhookId])),
          `${r.data.length} shown of ${r.totalCount}`,
        ]);
      }),
    );

  withClient(deliveries.command('get').description('a delivery with its body and every attempt'))
    .argument('<deliveryId>', 'deliveryId')
    .action(
      action(async (deliveryId: string, o: ClientFlags) => {
        const r = await client(o).deliveries.get(deliveryId);
        const d = r.delivery;
        emit(o, r, () => [
          ...table(['FIELD', 'VALUE'], [
            ['deliveryId', d.deliveryId],
            ['state', d.state],
            ['eventType', d.eventType],
            ['payfacReference', d.payfacReference],
            ['webhookId', d.webhookId],
            ['attemptCount', d.attemptCount],
            ['nextAttemptAt', d.nextAttemptAt],
            ['createdAt', d.createdAt],
          ]),
          '',
          ...table(['ATTEMPT', 'SENT', 'STATUS', 'ERROR', 'MS', 'CORRELATION ID'], d.attempts.map((a) => [a.attemptNumber, a.sentAt, a.responseStatus, a.errorKind, a.durationMs, a.correlationId])),
          '',
          `body  ${d.body}`,
        ]);
      }),
    );

  withClient(deliveries.command('redeliver').description('a new delivery of the same event to the same webhook'))
    .argument('<deliveryId>', 'deliveryId')
    .action(
      action(async (deliveryId: string, o: ClientFlags) => {
        const r = await client(o).deliveries.redeliver(deliveryId);
        emit(o, r, () => [`deliveryId  ${r.deliveryId}  (new delivery of ${deliveryId})`]);
      }),
    );

  // ---------------------------------------------------------------- sandbox
  withClient(program.command('trigger').description('sandbox: record a payment event and deliver it to the webhooks (D14)'))
    .argument('<eventType>', EVENT_TYPES.join(' | '))
    .option('--amount <minor>', 'amount in minor units', int('--amount'), 1000)
    .option('--currency <code>', 'ISO 4217 code', 'ISK')
    .option('--failed', 'success "false" (default "true")')
    .option('--reason <text>', 'reason')
    .option('--merchant-reference <ref>', 'merchantReference')
    .option('--checkout-reference <ref>', 'checkoutReference')
    .option('--data <key=value>', 'an additionalData entry (repeatable)', parseData)
    .action(
      action(async (eventType: string, o: ClientFlags & { amount: number; currency: string; failed?: boolean; reason?: string; merchantReference?: string; checkoutReference?: string; data?: Record<string, string> }) => {
        if (!EVENT_TYPES.includes(eventType as EventType)) throw new UsageError(`unknown event type ${eventType}; use ${EVENT_TYPES.join(', ')}`);
        const r = await client(o).sandbox.trigger({
          eventType: eventType as EventType,
          amount: o.amount,
          currency: o.currency,
          success: !o.failed,
          ...(o.reason !== undefined ? { reason: o.reason } : {}),
          ...(o.merchantReference !== undefined ? { merchantReference: o.merchantReference } : {}),
          ...(o.checkoutReference !== undefined ? { checkoutReference: o.checkoutReference } : {}),
          ...(o.data !== undefined ? { additionalData: o.data } : {}),
        });
        emit(o, r, () => [`eventId          ${r.eventId}`, `payfacReference  ${r.payfacReference}`]);
      }),
    );
}
