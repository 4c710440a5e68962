import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Delivery, DeliveryState, EventType, PaymentEventType, UpdateWebhookParams, Webhook, WebhookOrdering } from '@paylinks/sdk';
import {
  action,
  client,
  emit,
  fieldTable,
  given,
  idCommand,
  int,
  listCommand,
  pageOf,
  table,
  UsageError,
  withClient,
  type ClientFlags,
  type PageFlags,
} from './client.js';

// `paylinks webhook`, `paylinks delivery` and the sandbox's `paylinks trigger`: webhook endpoints,
// their deliveries with every attempt, and events made on purpose to try a receiver.

const PAYMENT_EVENT_TYPES: readonly PaymentEventType[] = ['Authorization', 'Capture', 'Tokenization', 'Refund', 'TokenDisabled', 'Adjustment'];
export const EVENT_TYPES: readonly EventType[] = [...PAYMENT_EVENT_TYPES, 'EndpointDisabled'];
const DELIVERY_STATES: readonly DeliveryState[] = ['Pending', 'Delivered', 'Failed'];
/** A comma-separated list of event types (empty: all). `fail` makes the error its caller reports; an option's parser reports commander's. */
export function parseEventTypes(v: string, fail: (message: string) => Error = (m) => new InvalidArgumentError(m)): EventType[] {
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = list.filter((s) => !EVENT_TYPES.includes(s as EventType));
  if (bad.length > 0) throw fail(`unknown event type ${bad.join(', ')}; use ${EVENT_TYPES.join(', ')}`);
  return list as EventType[];
}

const ORDERINGS: readonly WebhookOrdering[] = ['unordered', 'fifo'];

/** --ordering: fifo costs speed, so its help says so. */
function orderingOption(register: boolean): Option {
  return new Option(
    '--ordering <ordering>',
    'fifo: one delivery at a time, in the order the events were recorded; a failing one holds back the rest until it succeeds or has ' +
      `used its five attempts (a slow receiver gets one request at a time)${register ? '; default unordered' : ''}`,
  ).choices(ORDERINGS);
}

function parseData(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('additional data is key=value');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

export function registerWebhookCommands(program: Command): void {
  // ---------------------------------------------------------------- webhooks
  const webhooks = program.command('webhook').alias('webhooks').description('webhook endpoints: register, list, read, update, delete, rotate their secrets');

  withClient(webhooks.command('register').description('register a webhook; prints its apiKey and hmacKey (shown only now)'))
    .requiredOption('--url <url>', 'absolute https URL of the receiver')
    .option('--event-types <list>', `comma-separated, of ${EVENT_TYPES.join(', ')}; default all`, (v: string) => parseEventTypes(v))
    .option('--description <text>', 'description')
    .option('--max-in-flight <n>', 'deliveries sent to it at the same time, 1 to 100 (default 10)', int('--max-in-flight'))
    .option('--rate-limit <n>', 'deliveries started per second at most, 1 to 1000 (default: no limit)', int('--rate-limit'))
    .addOption(orderingOption(true))
    .option('--idempotency-key <key>', 'Idempotency-Key: a retry with the same key and body gets the first answer; default a new one')
    .action(
      action(
        async (
          o: ClientFlags & {
            url: string;
            eventTypes?: EventType[];
            description?: string;
            maxInFlight?: number;
            rateLimit?: number;
            ordering?: WebhookOrdering;
            idempotencyKey?: string;
          },
        ) => {
          const r = await client(o).webhooks.register(
            {
              url: o.url,
              ...(o.eventTypes ? { eventTypes: o.eventTypes } : {}),
              ...(o.description !== undefined ? { description: o.description } : {}),
              ...(o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
              ...(o.rateLimit !== undefined ? { rateLimit: o.rateLimit } : {}),
              ...(o.ordering !== undefined ? { ordering: o.ordering } : {}),
            },
            o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {},
          );
          emit(o, r, () => [
            `webhookId   ${r.webhookId}`,
            `url         ${r.url}`,
            `eventTypes  ${r.eventTypes.length > 0 ? r.eventTypes.join(',') : '(all)'}`,
            `maxInFlight ${r.maxInFlight}`,
            `rateLimit   ${r.rateLimit === null ? '(none)' : `${r.rateLimit}/s`}`,
            `ordering    ${r.ordering}`,
            `apiKey      ${r.apiKey}  (shown only now)`,
            `hmacKey     ${r.hmacKey}  (shown only now)`,
            `signingSecret  ${r.signingSecret}  (Standard Webhooks secret; shown only now)`,
          ]);
        },
      ),
    );

  listCommand(webhooks.command('list').description('list webhooks, newest first (never their secrets)'), {
    columns: ['WEBHOOK', 'ENABLED', 'EVENT TYPES', 'CREATED', 'URL'],
    row: (w: Webhook) => [w.webhookId, String(w.enabled), w.eventTypes.length > 0 ? w.eventTypes.join(',') : '(all)', w.createdAt, w.url],
    list: (o) => client(o).webhooks.list(pageOf(o)),
  });

  const webhookLines = (w: Webhook): string[] =>
    fieldTable(w, [
      'webhookId',
      'kind',
      'url',
      'enabled',
      ['eventTypes', w.eventTypes.length > 0 ? w.eventTypes.join(',') : '(all)'],
      'description',
      'maxInFlight',
      ['rateLimit', w.rateLimit === null ? '(none)' : `${w.rateLimit}/s`],
      'ordering',
      'createdAt',
      'updatedAt',
    ]);

  idCommand(webhooks.command('get').description('a webhook (never its secrets)'), ['<webhookId>', 'webhookId'], {
    run: (webhookId, o) => client(o).webhooks.get(webhookId),
    lines: (r) => webhookLines(r.webhook),
  });

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
    .addOption(orderingOption(false))
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
            ordering?: WebhookOrdering;
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
            ...(o.ordering !== undefined ? { ordering: o.ordering } : {}),
            ...(o.enable ? { enabled: true } : o.disable ? { enabled: false } : {}),
          };
          if (Object.keys(params).length === 0)
            throw new UsageError(
              'nothing to change: give --url, --event-types, --description, --max-in-flight, --rate-limit, --ordering, --enable or --disable',
            );
          const r = await client(o).webhooks.update(webhookId, params);
          emit(o, r, () => webhookLines(r.webhook));
        },
      ),
    );

  idCommand(
    webhooks.command('delete').description('delete a webhook: nothing more is sent to it; its pending deliveries end as Failed (their history stays)'),
    ['<webhookId>', 'webhookId'],
    {
      run: (webhookId, o) => client(o).webhooks.delete(webhookId),
      json: (r, webhookId) => ({ webhookId, ...r }),
      lines: (_r, webhookId) => [`deleted ${webhookId}`],
    },
  );

  idCommand(
    webhooks.command('rotate').description('new apiKey, hmacKey and signingSecret for a webhook, shown only now; attempts from now on use them'),
    ['<webhookId>', 'webhookId'],
    {
      options: (cmd) =>
        cmd.option('--overlap-hours <hours>', 'how long the old key keeps signing beside the new one (0 to 168, default 24)', int('--overlap-hours')),
      run: (webhookId, o: ClientFlags & { overlapHours?: number }) => client(o).webhooks.rotateSecrets(webhookId, given({ overlapHours: o.overlapHours })),
      lines: (r) => [
        `webhookId  ${r.webhookId}`,
        `apiKey     ${r.apiKey}  (shown only now)`,
        `hmacKey    ${r.hmacKey}  (shown only now)`,
        `signingSecret  ${r.signingSecret}  (shown only now)`,
        r.previousSecretValidUntil ? `the old key also signs until ${r.previousSecretValidUntil}` : 'the old key no longer signs',
      ],
    },
  );

  // ---------------------------------------------------------------- deliveries
  const deliveries = program
    .command('delivery')
    .alias('deliveries')
    .description('webhook deliveries: trace every attempt, send again, make the next attempt due now (sandbox)');

  // A fifo webhook's delivery behind the head of its queue is sent after it, whatever its time says.
  const nextAttempt = (d: Delivery): string | null => (d.waitingBehind ? `waiting behind ${d.waitingBehind}` : d.nextAttemptAt);
  listCommand(deliveries.command('list').description('list deliveries, newest first'), {
    options: (cmd) =>
      cmd
        .option('--payfac-reference <ref>', "only this payment's: its own, its captures', refunds' and adjustments'")
        .option('--correlation-id <id>', 'only the delivery that sent this X-Webhook-CorrelationId')
        .option('--webhook <id>', 'only this webhook')
        .addOption(new Option('--state <state>', 'only this state').choices([...DELIVERY_STATES])),
    columns: ['DELIVERY', 'STATE', 'ATTEMPTS', 'EVENT', 'PAYFACREFERENCE', 'NEXT ATTEMPT', 'WEBHOOK'],
    row: (d: Delivery) => [d.deliveryId, d.state, d.attemptCount, d.eventType, d.payfacReference, nextAttempt(d), d.webhookId],
    list: (o: ClientFlags & PageFlags & { payfacReference?: string; correlationId?: string; webhook?: string; state?: DeliveryState }) =>
      client(o).deliveries.list({
        ...pageOf(o),
        ...given({ payfacReference: o.payfacReference, correlationId: o.correlationId, webhookId: o.webhook, state: o.state }),
      }),
  });

  const firstLine = (text: string | null): string | null => (text === null ? null : (text.split('\n')[0] ?? '').slice(0, 60));
  idCommand(
    deliveries.command('show').alias('get').description('a delivery with every attempt: status, duration, why it failed, correlation id, the answer'),
    ['<deliveryId>', 'deliveryId'],
    {
      options: (cmd) => cmd.option('--body', 'also print the request body every attempt sends'),
      run: (deliveryId, o) => client(o).deliveries.get(deliveryId),
      lines: ({ delivery: d }, _id, o: ClientFlags & { body?: boolean }) => [
        ...fieldTable({ ...d, nextAttemptAt: nextAttempt(d) }, [
          'deliveryId',
          'state',
          'eventType',
          'payfacReference',
          'webhookId',
          'attemptCount',
          'nextAttemptAt',
          'createdAt',
        ]),
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
      ],
    },
  );

  idCommand(
    deliveries.command('redeliver').description('send the event again: a new delivery to the same webhook, with its own five attempts'),
    ['<deliveryId>', 'deliveryId'],
    {
      run: (deliveryId, o) => client(o).deliveries.redeliver(deliveryId),
      lines: (r, deliveryId) => [`deliveryId  ${r.deliveryId}  (new delivery of ${deliveryId})`],
    },
  );

  idCommand(
    deliveries.command('advance').description("sandbox: a pending delivery's next attempt is due now instead of at its scheduled time"),
    ['<deliveryId>', 'deliveryId'],
    {
      run: (deliveryId, o) => client(o).sandbox.advanceDelivery(deliveryId),
      json: (r, deliveryId) => ({ deliveryId, ...r }),
      lines: (_r, deliveryId) => [`the next attempt of ${deliveryId} is due now`],
    },
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
