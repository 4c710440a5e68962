import type { WebhookMessage } from './types.js';

// Duplicate-safe handling: the same event can arrive more than once (a retry
// after a processed but unacknowledged attempt, or a redelivery), and out of order. The key is
// built from identifiers in the event, never from X-Webhook-CorrelationId, which is new per attempt.

/**
 * Where handled events are remembered. Back it with your database so duplicates are caught across
 * restarts and processes: `claim` is an INSERT into a table with the key as primary key (ON CONFLICT
 * DO NOTHING; true when a row was inserted), `release` a DELETE of that row.
 */
export interface ProcessedEventStore {
  /** Atomically records the key; true if it was not recorded before (this caller handles the event). */
  claim(key: string): Promise<boolean> | boolean;
  /** Forgets a key whose handling failed, so the next delivery of the event is handled again. */
  release(key: string): Promise<void> | void;
}

/**
 * The identity of an event: eventType, payfacReference, originalPayfacReference (set on a Capture or
 * Refund of an earlier payment) and success. JSON-encoded so that no value can contain the separator.
 */
export function eventKey(message: Pick<WebhookMessage, 'payfacReference' | 'success' | 'additionalData'>): string {
  const ad = message.additionalData ?? {};
  return JSON.stringify([ad.eventType ?? '', message.payfacReference, ad.originalPayfacReference ?? '', message.success]);
}

/** A process-local store, bounded: past `maxEntries` the oldest keys are forgotten first. */
export class InMemoryEventStore implements ProcessedEventStore {
  readonly #keys = new Set<string>();
  readonly #maxEntries: number;

  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  claim(key: string): boolean {
    if (this.#keys.has(key)) return false;
    this.#keys.add(key);
    // A Set iterates in insertion order, so the first key is the oldest.
    while (this.#keys.size > this.#maxEntries) {
      const oldest = this.#keys.values().next();
      if (oldest.done) break;
      this.#keys.delete(oldest.value);
    }
    return true;
  }

  release(key: string): void {
    this.#keys.delete(key);
  }

  get size(): number {
    return this.#keys.size;
  }
}

export type HandleOnceResult<T> = { duplicate: true } | { duplicate: false; result: T };

/**
 * Runs `handler` for an event not handled before and skips a duplicate; a handler that throws
 * releases the key (and the error propagates) so a later delivery gets another chance. Answer 200
 * for a duplicate too: the service must stop retrying it.
 */
export async function handleOnce<T>(
  store: ProcessedEventStore,
  message: WebhookMessage,
  handler: (message: WebhookMessage) => T | Promise<T>,
): Promise<HandleOnceResult<T>> {
  const key = eventKey(message);
  if (!(await store.claim(key))) return { duplicate: true };
  try {
    return { duplicate: false, result: await handler(message) };
  } catch (err) {
    await store.release(key);
    throw err;
  }
}
