import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  Paylinks,
  PaylinksApiError,
  PaylinksError,
  type CreatePaymentLinkParams,
  type DeliveryState,
  type EventType,
  type Item,
  type PaymentEventType,
  type LinkType,
  type RecurringProcessingModel,
  type UpdateWebhookParams,
  type Webhook,
} from '@paylinks/sdk';

// The merchant's operations at a terminal: payment links, webhooks, deliveries and the sandbox
// trigger, all through @paylinks/sdk against a running service, so the CLI exercises the same client
// merchants use. Tables for people; --json prints the response body as one JSON object for scripts.

const PAYMENT_EVENT_TYPES: readonly PaymentEventType[] = ['Authorization', 'Capture', 'Tokenization', 'Refund', 'TokenDisabled', 'Adjustment'];
export const EVENT_TYPES: readonly EventType[] = [...PAYMENT_EVENT_TYPES, 'EndpointDisabled'];
const DELIVERY_STATES: readonly DeliveryState[] = ['Pending', 'Delivered', 'Failed'];
const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export interface ClientFlags {
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export class UsageError extends Error {}

export function client(flags: ClientFlags): Paylinks {
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
  return cells.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

function emit(flags: ClientFlags, body: object, human: () => string[]): void {
  if (flags.json) out(JSON.stringify(body));
  else for (const l of human()) out(l);
}

/**
 * Runs an action. An error the service answered is printed with its code and every failing field, and
 * exits 1; a network failure exits 1 too; a mistake in the command itself (a missing key, a bad
 * option) exits 2, like the option errors of the parser.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      if (!(err instanceof PaylinksError) && !(err instanceof UsageError)) throw err;
      process.stderr.write(`paylinks: ${err.message}\n`);
      if (err instanceof PaylinksApiError) for (const e of err.errors) process.stderr.write(`  ${e.field}: ${e.code} ${e.message}\n`);
      process.exit(err instanceof UsageError ? 2 : 1);
    }
  };
}

const int =
  (name: string) =>
  (value: string): number => {
    if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be an integer`);
    return Number(value);
  };

function parseEventTypes(v: string): EventType[] {
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = list.filter((s) => !EVENT_TYPES.includes(s as EventType));
  if (bad.length > 0) throw new InvalidArgumentError(`unknown event type ${bad.join(', ')}; use ${EVENT_TYPES.join(', ')}`);
  return list as EventType[];
}

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
export function withClient(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', `the service's base address (env PAYLINKS_BASE_URL; default ${DEFAULT_BASE_URL})`)
    .option('--api-key <key>', 'the merchant API key (env PAYLINKS_API_KEY)')
    .option('--json', 'print the response as one JSON object');
}

const paging = (cmd: Command): Command =>
  cmd.option('--page <n>', 'page number, from 0', int('--page')).option('--page-size <n>', 'page size, 1 to 100', int('--page-size'));

export function registerOperations(program: Command): void {
  // ---------------------------------------------------------------- payment links
  const links = program.command('links').alias('link').description("the merchant's payment links: create, list, read, disable");

  withClient(links.command('create').description('create a payment link; prints its reference and the URL to share'))
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
    .option('--idempotency-key <key>', 'Idempotency-Key: the same key and body within 24 h returns the first answer; default a new one')
    .action(
      action(
        async (
          o: ClientFlags & {
            terminal: string;
            amount: number;
            currency: string;
            type: LinkType;
            description?: string;
            item?: Item[];
            recurringProcessingModel?: RecurringProcessingModel;
            returnUrl?: string;
            expiresAt?: string;
            exactSalesCount?: number;
            culture?: 'is' | 'en';
            idempotencyKey?: string;
          },
        ) => {
          const items =
            o.item ??
            (o.type === 'PayByLink'
              ? [{ name: o.description || 'Payment', quantity: 1, unitPrice: o.amount, amountWithoutDiscount: o.amount, amount: o.amount }]
              : []);
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
        },
      ),
    );

  withClient(paging(links.command('list').description('list payment links, newest first')))
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
          ({ data, totalCount } = await c.paymentLinks.list({
            ...(o.page !== undefined ? { page: o.page } : {}),
            ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
          }));
        }
        emit(o, { data, totalCount }, () => [
          ...table(
            ['REFERENCE', 'TYPE', 'AMOUNT', 'CURRENCY', 'CREATED', 'DESCRIPTION'],
            data.map((l) => [l.paymentLinkReference, l.type, l.amount, l.currency, l.createdAt, l.description]),
          ),
          `${data.length} shown of ${totalCount}`,
        ]);
      }),
    );

  withClient(links.command('get').description('a payment link with its status, counts, items and submissions'))
    .argument('<reference>', 'paymentLinkReference')
    .action(
      action(async (reference: string, o: ClientFlags) => {
        const r = await client(o).paymentLinks.get(reference);
        const l = r.paymentLink;
        emit(o, r, () => [
          ...table(
            ['FIELD', 'VALUE'],
            [
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
            ],
          ),
          ...(l.items.length > 0
            ? [
                '',
                ...table(
                  ['ITEM', 'QUANTITY', 'UNIT PRICE', 'AMOUNT'],
                  l.items.map((i) => [i.name, i.quantity, i.unitPrice, i.amount]),
                ),
              ]
            : []),
          ...(l.submissions.length > 0
            ? [
                '',
                ...table(
                  ['SUBMISSION', 'COMPLETED', 'AMOUNT', 'PAYFACREFERENCE'],
                  l.submissions.map((s, i) => [i + 1, String(s.completed), `${s.amount} ${s.currency}`, s.payfacReference]),
                ),
              ]
            : []),
        ]);
      }),
    );

  withClient(links.command('disable').description('disable a payment link at once (disabling it again succeeds again)'))
    .argument('<reference>', 'paymentLinkReference')
    .action(
      action(async (reference: string, o: ClientFlags) => {
        const r = await client(o).paymentLinks.disable(reference);
        emit(o, { paymentLinkReference: reference, ...r }, () => [`disabled ${reference}`]);
      }),
    );

  // ---------------------------------------------------------------- webhooks
  const webhooks = program.command('webhook').alias('webhooks').description('webhook endpoints: register, list, read, update, delete, rotate their secrets');

  withClient(webhooks.command('register').description('register a webhook; prints its apiKey and hmacKey (shown only now)'))
    .requiredOption('--url <url>', 'absolute https URL of the receiver')
    .option('--event-types <list>', `comma-separated, of ${EVENT_TYPES.join(', ')}; default all`, parseEventTypes)
    .option('--description <text>', 'description')
    .option('--max-in-flight <n>', 'deliveries sent to it at the same time, 1 to 100 (default 10)', int('--max-in-flight'))
    .option('--rate-limit <n>', 'deliveries started per second at most, 1 to 1000 (default: no limit)', int('--rate-limit'))
    .option('--idempotency-key <key>', 'Idempotency-Key: a retry with the same key and body gets the first answer; default a new one')
    .action(
      action(
        async (
          o: ClientFlags & { url: string; eventTypes?: EventType[]; description?: string; maxInFlight?: number; rateLimit?: number; idempotencyKey?: string },
        ) => {
          const r = await client(o).webhooks.register(
            {
              url: o.url,
              ...(o.eventTypes ? { eventTypes: o.eventTypes } : {}),
              ...(o.description !== undefined ? { description: o.description } : {}),
              ...(o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
              ...(o.rateLimit !== undefined ? { rateLimit: o.rateLimit } : {}),
            },
            o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {},
          );
          emit(o, r, () => [
            `webhookId   ${r.webhookId}`,
            `url         ${r.url}`,
            `eventTypes  ${r.eventTypes.length > 0 ? r.eventTypes.join(',') : '(all)'}`,
            `maxInFlight ${r.maxInFlight}`,
            `rateLimit   ${r.rateLimit === null ? '(none)' : `${r.rateLimit}/s`}`,
            `apiKey      ${r.apiKey}  (shown only now)`,
            `hmacKey     ${r.hmacKey}  (shown only now)`,
            `signingSecret  ${r.signingSecret}  (Standard Webhooks secret; shown only now)`,
          ]);
        },
      ),
    );

  withClient(paging(webhooks.command('list').description('list webhooks, newest first (never their secrets)'))).action(
    action(async (o: ClientFlags & { page?: number; pageSize?: number }) => {
      const r = await client(o).webhooks.list({
        ...(o.page !== undefined ? { page: o.page } : {}),
        ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
      });
      emit(o, r, () => [
        ...table(
          ['WEBHOOK', 'ENABLED', 'EVENT TYPES', 'CREATED', 'URL'],
          r.data.map((w) => [w.webhookId, String(w.enabled), w.eventTypes.length > 0 ? w.eventTypes.join(',') : '(all)', w.createdAt, w.url]),
        ),
        `${r.data.length} shown of ${r.totalCount}`,
      ]);
    }),
  );

  const webhookLines = (w: Webhook): string[] =>
    table(
      ['FIELD', 'VALUE'],
      [
        ['webhookId', w.webhookId],
        ['kind', w.kind],
        ['url', w.url],
        ['enabled', String(w.enabled)],
        ['eventTypes', w.eventTypes.length > 0 ? w.eventTypes.join(',') : '(all)'],
        ['description', w.description],
        ['maxInFlight', String(w.maxInFlight)],
        ['rateLimit', w.rateLimit === null ? '(none)' : `${w.rateLimit}/s`],
        ['createdAt', w.createdAt],
        ['updatedAt', w.updatedAt],
      ],
    );

  withClient(webhooks.command('get').description('a webhook (never its secrets)'))
    .argument('<webhookId>', 'webhookId')
    .action(
      action(async (webhookId: string, o: ClientFlags) => {
        const r = await client(o).webhooks.get(webhookId);
        emit(o, r, () => webhookLines(r.webhook));
      }),
    );

  withClient(webhooks.command('update').description('change a webhook: what is not given keeps its value; disabling ends its pending deliveries as Failed'))
    .argument('<webhookId>', 'webhookId')
    .option('--url <url>', 'new absolute https URL')
    .option('--event-types <list>', `comma-separated, of ${EVENT_TYPES.join(', ')}; "all" for every type`, (v: string) =>
      v.trim() === 'all' ? [] : parseEventTypes(v),
    )
    .option('--description <text>', 'new description')
    .option('--max-in-flight <n>', 'deliveries sent to it at the same time, 1 to 100', int('--max-in-flight'))
    .option('--rate-limit <n>', 'deliveries started per second at most, 1 to 1000; "none" removes the limit', (v: string) =>
      v.trim() === 'none' ? 'none' : int('--rate-limit')(v),
    )
    .option('--enable', 'enable it')
    .option('--disable', 'disable it')
    .action(
      action(
        async (
          webhookId: string,
          o: ClientFlags & {
            url?: string;
            eventTypes?: EventType[];
            description?: string;
            maxInFlight?: number;
            rateLimit?: number | 'none';
            enable?: boolean;
            disable?: boolean;
          },
        ) => {
          if (o.enable && o.disable) throw new UsageError('give at most one of --enable and --disable');
          const params: UpdateWebhookParams = {
            ...(o.url !== undefined ? { url: o.url } : {}),
            ...(o.eventTypes !== undefined ? { eventTypes: o.eventTypes } : {}),
            ...(o.description !== undefined ? { description: o.description } : {}),
            ...(o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
            // Commander keeps no null from a parser: "none" stands for it until here.
            ...(o.rateLimit !== undefined ? { rateLimit: o.rateLimit === 'none' ? null : o.rateLimit } : {}),
            ...(o.enable ? { enabled: true } : o.disable ? { enabled: false } : {}),
          };
          if (Object.keys(params).length === 0)
            throw new UsageError('nothing to change: give --url, --event-types, --description, --max-in-flight, --rate-limit, --enable or --disable');
          const r = await client(o).webhooks.update(webhookId, params);
          emit(o, r, () => webhookLines(r.webhook));
        },
      ),
    );

  withClient(webhooks.command('delete').description('delete a webhook: nothing more is sent to it; its pending deliveries end as Failed (their history stays)'))
    .argument('<webhookId>', 'webhookId')
    .action(
      action(async (webhookId: string, o: ClientFlags) => {
        const r = await client(o).webhooks.delete(webhookId);
        emit(o, { webhookId, ...r }, () => [`deleted ${webhookId}`]);
      }),
    );

  withClient(webhooks.command('rotate').description('new apiKey, hmacKey and signingSecret for a webhook, shown only now; attempts from now on use them'))
    .argument('<webhookId>', 'webhookId')
    .option('--overlap-hours <hours>', 'how long the old key keeps signing beside the new one (0 to 168, default 24)', int('--overlap-hours'))
    .action(
      action(async (webhookId: string, o: ClientFlags & { overlapHours?: number }) => {
        const r = await client(o).webhooks.rotateSecrets(webhookId, o.overlapHours !== undefined ? { overlapHours: o.overlapHours } : {});
        emit(o, r, () => [
          `webhookId  ${r.webhookId}`,
          `apiKey     ${r.apiKey}  (shown only now)`,
          `hmacKey    ${r.hmacKey}  (shown only now)`,
          `signingSecret  ${r.signingSecret}  (shown only now)`,
          r.previousSecretValidUntil ? `the old key also signs until ${r.previousSecretValidUntil}` : 'the old key no longer signs',
        ]);
      }),
    );

  // ---------------------------------------------------------------- deliveries
  const deliveries = program
    .command('delivery')
    .alias('deliveries')
    .description('webhook deliveries: trace every attempt, send again, make the next attempt due now (sandbox)');

  withClient(paging(deliveries.command('list').description('list deliveries, newest first')))
    .option('--payfac-reference <ref>', 'only this payment')
    .option('--correlation-id <id>', 'only the delivery that sent this X-Webhook-CorrelationId')
    .option('--webhook <id>', 'only this webhook')
    .addOption(new Option('--state <state>', 'only this state').choices([...DELIVERY_STATES]))
    .action(
      action(
        async (
          o: ClientFlags & { page?: number; pageSize?: number; payfacReference?: string; correlationId?: string; webhook?: string; state?: DeliveryState },
        ) => {
          const r = await client(o).deliveries.list({
            ...(o.page !== undefined ? { page: o.page } : {}),
            ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
            ...(o.payfacReference !== undefined ? { payfacReference: o.payfacReference } : {}),
            ...(o.correlationId !== undefined ? { correlationId: o.correlationId } : {}),
            ...(o.webhook !== undefined ? { webhookId: o.webhook } : {}),
            ...(o.state !== undefined ? { state: o.state } : {}),
          });
          emit(o, r, () => [
            ...table(
              ['DELIVERY', 'STATE', 'ATTEMPTS', 'EVENT', 'PAYFACREFERENCE', 'NEXT ATTEMPT', 'WEBHOOK'],
              r.data.map((d) => [d.deliveryId, d.state, d.attemptCount, d.eventType, d.payfacReference, d.nextAttemptAt, d.webhookId]),
            ),
            `${r.data.length} shown of ${r.totalCount}`,
          ]);
        },
      ),
    );

  withClient(deliveries.command('show').alias('get').description('a delivery with every attempt: status, duration, why it failed, correlation id, the answer'))
    .argument('<deliveryId>', 'deliveryId')
    .option('--body', 'also print the request body every attempt sends')
    .action(
      action(async (deliveryId: string, o: ClientFlags & { body?: boolean }) => {
        const r = await client(o).deliveries.get(deliveryId);
        const d = r.delivery;
        const firstLine = (text: string | null): string | null => (text === null ? null : (text.split('\n')[0] ?? '').slice(0, 60));
        emit(o, r, () => [
          ...table(
            ['FIELD', 'VALUE'],
            [
              ['deliveryId', d.deliveryId],
              ['state', d.state],
              ['eventType', d.eventType],
              ['payfacReference', d.payfacReference],
              ['webhookId', d.webhookId],
              ['attemptCount', d.attemptCount],
              ['nextAttemptAt', d.nextAttemptAt],
              ['createdAt', d.createdAt],
            ],
          ),
          '',
          ...table(
            ['ATTEMPT', 'SENT', 'STATUS', 'MS', 'ERROR', 'CORRELATION ID', 'ANSWER'],
            d.attempts.map((a) => [
              a.attemptNumber,
              a.sentAt,
              a.responseStatus,
              a.durationMs,
              a.errorKind === null ? null : a.errorDetail ? `${a.errorKind}: ${a.errorDetail}` : a.errorKind,
              a.correlationId,
              firstLine(a.responseBody),
            ]),
          ),
          ...(o.body ? ['', `body  ${d.body}`] : []),
        ]);
      }),
    );

  withClient(deliveries.command('redeliver').description('send the event again: a new delivery to the same webhook, with its own five attempts'))
    .argument('<deliveryId>', 'deliveryId')
    .action(
      action(async (deliveryId: string, o: ClientFlags) => {
        const r = await client(o).deliveries.redeliver(deliveryId);
        emit(o, r, () => [`deliveryId  ${r.deliveryId}  (new delivery of ${deliveryId})`]);
      }),
    );

  withClient(deliveries.command('advance').description("sandbox: a pending delivery's next attempt is due now instead of at its scheduled time"))
    .argument('<deliveryId>', 'deliveryId')
    .action(
      action(async (deliveryId: string, o: ClientFlags) => {
        const r = await client(o).sandbox.advanceDelivery(deliveryId);
        emit(o, { deliveryId, ...r }, () => [`the next attempt of ${deliveryId} is due now`]);
      }),
    );

  // ---------------------------------------------------------------- sandbox
  withClient(program.command('trigger').description('sandbox: record a payment event as if a payment had made it, and deliver it to the webhooks'))
    .argument('<eventType>', PAYMENT_EVENT_TYPES.join(' | '))
    .option('--amount <minor>', 'amount in minor units', int('--amount'), 1000)
    .option('--currency <code>', 'ISO 4217 code', 'ISK')
    .option('--failed', 'success "false" (default "true")')
    .option('--reason <text>', 'reason')
    .option('--merchant-reference <ref>', 'merchantReference')
    .option('--checkout-reference <ref>', 'checkoutReference')
    .option('--data <key=value>', 'an additionalData entry (repeatable)', parseData)
    .action(
      action(
        async (
          eventType: string,
          o: ClientFlags & {
            amount: number;
            currency: string;
            failed?: boolean;
            reason?: string;
            merchantReference?: string;
            checkoutReference?: string;
            data?: Record<string, string>;
          },
        ) => {
          if (!PAYMENT_EVENT_TYPES.includes(eventType as PaymentEventType))
            throw new UsageError(`unknown event type ${eventType}; use ${PAYMENT_EVENT_TYPES.join(', ')}`);
          const r = await client(o).sandbox.trigger({
            eventType: eventType as PaymentEventType,
            amount: o.amount,
            currency: o.currency,
            success: !o.failed,
            ...(o.reason !== undefined ? { reason: o.reason } : {}),
            ...(o.merchantReference !== undefined ? { merchantReference: o.merchantReference } : {}),
            ...(o.checkoutReference !== undefined ? { checkoutReference: o.checkoutReference } : {}),
            ...(o.data !== undefined ? { additionalData: o.data } : {}),
          });
          emit(o, r, () => [`eventId          ${r.eventId}`, `payfacReference  ${r.payfacReference}`]);
        },
      ),
    );
}
