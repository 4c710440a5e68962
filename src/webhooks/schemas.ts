import { Type, type Static } from 'typebox';
import { WithEnvelope } from '../http/envelope.js';
import { ListAnswer, PagedQuery } from '../http/paging.js';
import { EVENT_TYPES, PAYMENT_EVENT_TYPES } from './events.js';

// Request and response schemas of the webhook operations (§Webhooks, §Deliveries): they validate, type the
// handlers and feed the OpenAPI document.

const EventTypeSchema = Type.Enum([...EVENT_TYPES], { description: 'event type' });
const PaymentEventTypeSchema = Type.Enum([...PAYMENT_EVENT_TYPES], { description: 'payment event type' });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'absolute https URL (in development also http on localhost or a loopback address)' });
const EventTypes = Type.Array(EventTypeSchema, { maxItems: 16, description: 'event types to receive; empty or absent: all' });
const Description = Type.String({ maxLength: 500 });
const MaxInFlight = Type.Integer({
  minimum: 1,
  maximum: 100,
  description: 'attempts to this webhook in flight at once, 1 to 100; default 10 (the operator may set another default)',
});
const RateLimit = Type.Union([Type.Integer({ minimum: 1, maximum: 1000 }), Type.Null()], {
  description: 'deliveries per second at most, 1 to 1000; null or absent: no limit',
});

const Ordering = Type.Enum(['unordered', 'fifo'], {
  description:
    'fifo: deliveries are attempted one at a time, in the order their events were recorded, and one that fails holds back the later ones until it ' +
    'succeeds or has used its five attempts (a slow receiver then gets one request at a time); unordered (the default): up to maxInFlight at once, in no set order',
});

export const RegisterBody = Type.Object(
  {
    url: Url,
    eventTypes: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    maxInFlight: Type.Optional(MaxInFlight),
    rateLimit: Type.Optional(RateLimit),
    ordering: Type.Optional(Ordering),
  },
  { additionalProperties: false },
);
export type RegisterBody = Static<typeof RegisterBody>;

export const UpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    eventTypes: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
    maxInFlight: Type.Optional(MaxInFlight),
    rateLimit: Type.Optional(RateLimit),
    ordering: Type.Optional(Ordering),
  },
  { additionalProperties: false },
);
export type UpdateBody = Static<typeof UpdateBody>;

const WebhookProps = {
  webhookId: Type.String(),
  kind: Type.Enum(['url', 'listener'], { description: 'url: delivered to its URL; listener: delivered to paylinks listen over the stream it opens' }),
  url: Type.String({ description: 'where deliveries go; listen:{webhookId} for a listener' }),
  eventTypes: Type.Array(Type.String()),
  description: Type.String(),
  enabled: Type.Boolean(),
  maxInFlight: Type.Integer({ description: 'attempts to this webhook in flight at once (its own setting, else the default)' }),
  rateLimit: Type.Union([Type.Integer(), Type.Null()], { description: 'deliveries per second at most; null: no limit' }),
  ordering: Type.Enum(['unordered', 'fifo'], { description: 'fifo: one delivery at a time, in the order the events were recorded; unordered: no set order' }),
  lastSuccessAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'when a delivery last succeeded (to the minute); null: never',
  }),
  failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'since when deliveries have failed with no success in between; null while healthy',
  }),
  failedDeliveries: Type.Integer({ description: 'deliveries that ended Failed since the last success' }),
  disabledReason: Type.Union([Type.Literal('failing'), Type.Null()], {
    description: 'failing: disabled automatically after its deliveries failed for days with no success (an EndpointDisabled event was sent); null otherwise',
  }),
  disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when it was disabled; null while enabled' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};
export const Webhook = Type.Object(WebhookProps);

export const RegisterResponse = WithEnvelope(
  {
    ...WebhookProps,
    apiKey: Type.String({ description: 'sent as the Authorization header of every delivery; shown only now' }),
    hmacKey: Type.String({ description: '64 hex characters; signs hmacSignature; shown only now' }),
    signingSecret: Type.String({ description: 'the same key as a Standard Webhooks secret (whsec_...), for the webhook-signature header; shown only now' }),
  },
  'The new webhook with its secrets (shown only here and by rotate-secrets)',
);
export const WebhookResponse = WithEnvelope({ webhook: Webhook });
export const WebhookListResponse = ListAnswer(Webhook);
export const RotateResponse = WithEnvelope({
  webhookId: Type.String(),
  apiKey: Type.String(),
  hmacKey: Type.String(),
  signingSecret: Type.String({ description: 'the new hmacKey as a Standard Webhooks secret (whsec_...)' }),
  previousSecretValidUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'until when the previous key still signs beside the new one (null: no overlap)',
  }),
});
export const RotateQuery = Type.Object({
  overlapHours: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 168, description: 'how long the previous key keeps signing beside the new one: 0 to 168 hours (7 days), default 24' }),
  ),
});

export const ListenerBody = Type.Object(
  { eventTypes: Type.Optional(EventTypes), description: Type.Optional(Description) },
  { additionalProperties: false, examples: [{ eventTypes: ['Authorization', 'Refund'] }] },
);
export const ListenerResponse = WithEnvelope(
  {
    ...WebhookProps,
    apiKey: Type.String({ description: 'sent as the Authorization header of every delivery' }),
    hmacKey: Type.String({ description: '64 hex characters; signs hmacSignature' }),
    signingSecret: Type.String({ description: 'the same key as a Standard Webhooks secret (whsec_...)' }),
    reused: Type.Boolean({ description: 'true when a listener left behind by an earlier run (no stream for a minute) was taken again, with its secrets' }),
  },
  'The listener webhook with its two secrets',
);
export const ListenQuery = Type.Object({
  session: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9_.-]+$',
      'x-pattern': 'must be letters, digits, _, . and - only',
      description: "the client's own name for itself, the same on each reconnection: its stream replaces the one it left open",
    }),
  ),
});
export const AttemptReportBody = Type.Object(
  {
    deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
    attemptToken: Type.String({ minLength: 1, maxLength: 1000, description: 'the attemptToken of the streamed attempt, as received' }),
    responseStatus: Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.Null()], {
      description: "the local receiver's HTTP status; null when it gave none",
    }),
    responseBody: Type.Union([Type.String({ maxLength: 65_536 }), Type.Null()], { description: 'the first 64 KiB of its answer' }),
    durationMs: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
    errorKind: Type.Union([Type.Enum(['timeout', 'connection', 'tls', 'status']), Type.Null()]),
    errorDetail: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
  },
  { additionalProperties: false },
);
export const AttemptReportResponse = WithEnvelope({ recorded: Type.Literal(true) });

export const WebhookParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 100 }) });
export const DeliveryParams = Type.Object({ deliveryId: Type.String({ minLength: 1, maxLength: 100 }) });

export const PageQuery = PagedQuery({});
export const DeliveryQuery = PagedQuery({
  payfacReference: Type.Optional(
    Type.String({ maxLength: 100, description: "a payment's reference: its deliveries and those of its captures, refunds and adjustments" }),
  ),
  correlationId: Type.Optional(Type.String({ maxLength: 100 })),
  webhookId: Type.Optional(Type.String({ maxLength: 100 })),
  state: Type.Optional(Type.Enum(['Pending', 'Delivered', 'Failed'])),
});

const DeliveryProps = {
  deliveryId: Type.String(),
  webhookId: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  payfacReference: Type.String(),
  state: Type.Enum(['Pending', 'Delivered', 'Failed']),
  attemptCount: Type.Integer(),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  waitingBehind: Type.Union([Type.String(), Type.Null()], {
    description:
      'for a pending delivery of a webhook with ordering fifo that is not first in its queue: the delivery at the head, which must be delivered (or fail for good) first; until then nextAttemptAt may be past. Otherwise null',
  }),
};
const Attempt = Type.Object({
  attemptNumber: Type.Integer(),
  correlationId: Type.String(),
  sentAt: Type.String({ format: 'date-time' }),
  responseStatus: Type.Union([Type.Integer(), Type.Null()]),
  responseBody: Type.Union([Type.String(), Type.Null()], { description: 'first 64 KiB of the response' }),
  durationMs: Type.Integer(),
  errorKind: Type.Union([Type.Enum(['timeout', 'connection', 'tls', 'status']), Type.Null()], {
    description: 'null on success; status: an answer other than 200; timeout: no complete answer within 15 s; connection; tls',
  }),
  errorDetail: Type.Union([Type.String(), Type.Null()], {
    description:
      'why it failed when no status says it: the certificate error code (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ...), the connection error (ECONNREFUSED: ...), or the time limit',
  }),
});
export const DeliveryListResponse = ListAnswer(Type.Object(DeliveryProps));
export const DeliveryResponse = WithEnvelope({
  delivery: Type.Object({ ...DeliveryProps, body: Type.String({ description: 'the exact body every attempt sends' }), attempts: Type.Array(Attempt) }),
});
export const RedeliverResponse = WithEnvelope({ deliveryId: Type.String() });

export const SandboxEventBody = Type.Object(
  {
    eventType: PaymentEventTypeSchema,
    amount: Type.Integer({ minimum: 0, maximum: 100_000_000_000 }),
    currency: Type.String({ minLength: 3, maxLength: 3, pattern: '^[A-Z]{3}$' }),
    success: Type.Optional(Type.Boolean()),
    reason: Type.Optional(Type.String({ maxLength: 200 })),
    merchantReference: Type.Optional(Type.String({ maxLength: 200 })),
    checkoutReference: Type.Optional(Type.String({ maxLength: 100 })),
    additionalData: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: false },
);
export type SandboxEventBody = Static<typeof SandboxEventBody>;
export const SandboxEventResponse = WithEnvelope({ eventId: Type.String(), payfacReference: Type.String() });

export const RecoverBody = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'ISO 8601; Failed deliveries made at or after this' }),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601; and before this (default: no end)' })),
  },
  { additionalProperties: false, examples: [{ since: '2026-11-20T00:00:00Z', until: '2026-11-21T00:00:00Z' }] },
);
export const RecoverResponse = WithEnvelope({
  requeued: Type.Integer({ description: 'how many Failed deliveries were queued again as new deliveries' }),
  repeated: Type.Boolean({ description: 'true when this window was recovered before: nothing was queued now, requeued is the earlier count' }),
});

export const AdvanceAllBody = Type.Object(
  { webhookId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "only this webhook's deliveries; default all of the caller's" })) },
  { additionalProperties: false, examples: [{ webhookId: 'wh_JgkM6hDPouXTcZii' }] },
);
export const AdvanceAllResponse = WithEnvelope({ advanced: Type.Integer({ description: 'how many pending deliveries became due now' }) });
