import { InvalidArgumentError, Option, type Command } from 'commander';
import type { DeliveryState, EventType, PaymentEventType, UpdateWebhookParams, Webhook, WebhookOrdering } from '@paylinks/sdk';
import { action, client, emit, fieldTable, int, paging, table, UsageError, withClient, type ClientFlags } from './client.js';

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
          ...fieldTable(d, ['deliveryId', 'state', 'eventType', 'payfacReference', 'webhookId', 'attemptCount', 'nextAttemptAt', 'createdAt']),
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
