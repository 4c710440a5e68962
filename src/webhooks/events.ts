import type { Queryable } from '../db/database.js';
import type { Clock } from '../clock.js';
import { prefixedId } from '../ids.js';
import { hmacSignature, type SignedFields } from './delivery/sign.js';
import { notifyDeliveries } from './delivery/sql.js';
import type { Sealer } from '../sealing.js';
import * as sql from './sql.js';

// The outbox (§Events; docs/style.md, The outbox joins the caller's transaction): an event and its deliveries are written with the caller's client,
// inside the caller's transaction, so they commit or vanish with the state change that caused them.

export type PaymentEventType = 'Authorization' | 'Capture' | 'Tokenization' | 'Refund' | 'TokenDisabled' | 'Adjustment';

/** The events of payments (Adjustment included): what the sandbox can trigger. */
export const PAYMENT_EVENT_TYPES: readonly PaymentEventType[] = ['Authorization', 'Capture', 'Tokenization', 'Refund', 'TokenDisabled', 'Adjustment'];

/**
 * EndpointDisabled is a notice about the merchant's own webhooks (one was disabled because its
 * deliveries kept failing); it goes to every other enabled webhook of the merchant, whatever event
 * types they chose.
 */
export type EventType = PaymentEventType | 'EndpointDisabled';

export const EVENT_TYPES: readonly EventType[] = [...PAYMENT_EVENT_TYPES, 'EndpointDisabled'];

/** Event types sent to every webhook, not only to those that chose them. */
const NOTICE_TYPES: readonly EventType[] = ['EndpointDisabled'];

export interface PaymentEvent {
  merchantId: string;
  eventType: EventType;
  checkoutReference: string | null;
  payfacReference: string;
  merchantReference: string | null;
  amount: number /* minor units */;
  currency: string;
  reason: string | null;
  success: boolean;
  additionalData?: Record<string, string>;
}

/** The message of interface §2.8 before signing: the seven signed strings and additionalData. */
export interface WebhookMessage extends SignedFields {
  additionalData: Record<string, string>;
}

export function toMessage(event: PaymentEvent): WebhookMessage {
  if (!Number.isSafeInteger(event.amount)) throw new Error('event amount must be an integer number of minor units');
  return {
    checkoutReference: event.checkoutReference,
    payfacReference: event.payfacReference,
    merchantReference: event.merchantReference,
    amount: String(event.amount),
    currency: event.currency,
    reason: event.reason,
    success: event.success ? 'true' : 'false',
    // The receiver needs the event type; additionalData carries it (interface §2.8).
    additionalData: { ...event.additionalData, eventType: event.eventType },
  };
}

/** The exact body of a delivery, signed with the webhook's HMAC key (interface §2.8, 5.2). */
export function buildBody(message: WebhookMessage, hmacKey: string): string {
  return JSON.stringify({
    checkoutReference: message.checkoutReference,
    payfacReference: message.payfacReference,
    merchantReference: message.merchantReference,
    amount: message.amount,
    currency: message.currency,
    reason: message.reason,
    success: message.success,
    hmacSignature: hmacSignature(hmacKey, message),
    additionalData: message.additionalData,
  });
}

/**
 * Records the event and one delivery per matching webhook (the merchant's and its linked partners',
 * enabled, subscribed to the type), inside the caller's transaction, and wakes the workers at commit.
 */
/** What recording an event needs besides the transaction: the clock, and the sealer that opens each webhook's HMAC key. */
export interface EventDeps {
  clock: Clock;
  sealer: Sealer;
}

export async function enqueueEvent(tx: Queryable, deps: EventDeps, event: PaymentEvent): Promise<{ eventId: string; deliveryIds: string[] }> {
  const { clock } = deps;
  const message = toMessage(event);
  const now = clock.now();
  const eventId = prefixedId('evt');
  await sql.insertEvent(tx, {
    id: eventId,
    merchantId: event.merchantId,
    eventType: event.eventType,
    payfacReference: event.payfacReference,
    message,
    createdAt: now,
  });
  const targets = await sql.webhooksForEvent(tx, event.merchantId, event.eventType, NOTICE_TYPES.includes(event.eventType));
  // Fifo webhooks' deliveries take their places in commit order (sql.lockOrders); unordered ones need no lock.
  const fifo = targets.filter((w) => w.ordering === 'fifo' && w.kind === 'url').map((w) => w.id);
  if (fifo.length > 0) await sql.lockOrders(tx, fifo);
  const deliveries = targets.map((w) => ({
    id: prefixedId('dlv'),
    webhookId: w.id,
    body: buildBody(message, deps.sealer.open(w.hmacKeySealed)),
    viaListener: w.kind === 'listener',
  }));
  await sql.insertDeliveries(tx, { eventId, eventType: event.eventType, payfacReference: event.payfacReference, now, deliveries });
  if (deliveries.length > 0) {
    await notifyDeliveries(tx);
  }
  return { eventId, deliveryIds: deliveries.map((d) => d.id) };
}
