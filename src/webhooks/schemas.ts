import { Type, type Static } from 'typebox';
import { WithEnvelope } from '../http/envelope.js';
import { EVENT_TYPES } from './events.js';

// Request and response schemas of the webhook operations (D13, D14): they validate, type the
// handlers and feed the OpenAPI document.

const EventTypeSchema = Type.Enum([...EVENT_TYPES], { description: 'D12 event type' });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'absolute https URL (interface.md 6.5)' });
const EventTypes = Type.Array(EventTypeSchema, { maxItems: 16, description: 'event types to receive; empty or absent: all' });
const Description = Type.String({ maxLength: 500 });

export const RegisterBody = Type.Object(
  { url: Url, eventTypes: Type.Optional(EventTypes), description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type RegisterBody = Static<typeof RegisterBody>;

export const UpdateBody = Type.Object(
  { url: Type.Optional(Url), eventTypes: Type.Optional(EventTypes), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type UpdateBody = Static<typeof UpdateBody>;

const WebhookProps = {
  webhookId: Type.String(),
  url: Type.String(),
  eventTypes: Type.Array(Type.String()),
  description: Type.String(),
  enabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};
export const Webhook = Type.Object(WebhookProps);

export const RegisterResponse = WithEnvelope(
  {
    ...WebhookProps,
    apiKey: Type.String({ description: 'sent as the Authorization header of every delivery; shown only now' }),
    hmacKey: Type.String({ description: '64 hex characters; signs hmacSignature (interface.md 5.2); shown only now' }),
  },
  'The new webhook with its two secrets (shown only here and by rotate-secrets)',
);
export const WebhookResponse = WithEnvelope({ webhook: Webhook });
export const WebhookListResponse = WithEnvelope({ data: Type.Array(Webhook), totalCount: Type.Integer() });
export const RotateResponse = WithEnvelope({ webhookId: Type.String(), apiKey: Type.String(), hmacKey: Type.String() });

export const WebhookParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 100 }) });
export const DeliveryParams = Type.Object({ deliveryId: Type.String({ minLength: 1, maxLength: 100 }) });

const Paging = {
  Page: Type.Integer({ minimum: 0, default: 0 }),
  PageSize: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
};
export const PageQuery = Type.Object(Paging);
export const DeliveryQuery = Type.Object({
  ...Paging,
  payfacReference: Type.Optional(Type.String({ maxLength: 100 })),
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
};
const Attempt = Type.Object({
  attemptNumber: Type.Integer(),
  correlationId: Type.String(),
  sentAt: Type.String({ format: 'date-time' }),
  responseStatus: Type.Union([Type.Integer(), Type.Null()]),
  responseBody: Type.Union([Type.String(), Type.Null()], { description: 'first 64 KiB of the response' }),
  durationMs: Type.Integer(),
  errorKind: Type.Union([Type.Enum(['timeout', 'connection', 'tls', 'status']), Type.Null()]),
});
export const DeliveryListResponse = WithEnvelope({ data: Type.Array(Type.Object(DeliveryProps)), totalCount: Type.Integer() });
export const DeliveryResponse = WithEnvelope({
  delivery: Type.Object({ ...DeliveryProps, body: Type.String({ description: 'the exact body every attempt sends' }), attempts: Type.Array(Attempt) }),
});
export const RedeliverResponse = WithEnvelope({ deliveryId: Type.String() });

export const SandboxEventBody = Type.Object(
  {
    eventType: EventTypeSchema,
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
