import { describe, expect, it } from 'vitest';
import { eventKey, handleOnce, InMemoryEventStore, type ProcessedEventStore, type WebhookMessage } from '@paylinks/sdk';

// Duplicate-safe handling (interface §6.1): keyed on identifiers in the event, never on the
// correlation id of an attempt.

const msg = (over: Partial<WebhookMessage> = {}, ad: Record<string, string> = { eventType: 'Authorization' }): WebhookMessage => ({
  checkoutReference: null,
  payfacReference: 'pf_1',
  merchantReference: 'order-1',
  amount: '48900',
  currency: 'ISK',
  reason: null,
  success: 'true',
  hmacSignature: 'sig',
  additionalData: ad,
  ...over,
});

describe('eventKey', () => {
  it('is the same for two deliveries of one event, and differs by event type, payment, original payment and outcome', () => {
    expect(eventKey(msg())).toBe(eventKey(msg({ hmacSignature: 'other webhook, other key' })));
    const keys = [
      eventKey(msg()),
      eventKey(msg({}, { eventType: 'Capture' })),
      eventKey(msg({ payfacReference: 'pf_2' })),
      eventKey(msg({}, { eventType: 'Refund', originalPayfacReference: 'pf_0' })),
      eventKey(msg({}, { eventType: 'Refund', originalPayfacReference: 'pf_9' })),
      eventKey(msg({ success: 'false' })),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('cannot be confused by separators inside values', () => {
    expect(eventKey(msg({ payfacReference: 'a:b' }, { eventType: 'x' }))).not.toBe(eventKey(msg({ payfacReference: 'b' }, { eventType: 'x:a' })));
  });
});

describe('handleOnce', () => {
  it('handles an event once and reports the repeats as duplicates', async () => {
    const store = new InMemoryEventStore();
    const seen: string[] = [];
    const first = await handleOnce(store, msg(), (m) => seen.push(m.payfacReference));
    expect(first).toEqual({ duplicate: false, result: 1 });
    expect(await handleOnce(store, msg(), (m) => seen.push(m.payfacReference))).toEqual({ duplicate: true });
    expect(seen).toEqual(['pf_1']);
  });

  it('handles concurrent copies of one event once', async () => {
    const store = new InMemoryEventStore();
    let runs = 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        handleOnce(store, msg(), async () => {
          runs++;
          await new Promise((r) => setTimeout(r, 5));
        }),
      ),
    );
    expect(runs).toBe(1);
    expect(results.filter((r) => r.duplicate)).toHaveLength(9);
  });

  it('forgets an event whose handler failed, so the next delivery is handled', async () => {
    const store = new InMemoryEventStore();
    await expect(
      handleOnce(store, msg(), () => {
        throw new Error('database down');
      }),
    ).rejects.toThrow('database down');
    expect(await handleOnce(store, msg(), () => 'ok')).toEqual({ duplicate: false, result: 'ok' });
  });

  it('works with an asynchronous store of the merchant (the interface)', async () => {
    const rows = new Set<string>();
    const store: ProcessedEventStore = {
      claim: async (key) => (rows.has(key) ? false : (rows.add(key), true)),
      release: async (key) => void rows.delete(key),
    };
    expect((await handleOnce(store, msg(), () => 1)).duplicate).toBe(false);
    expect((await handleOnce(store, msg(), () => 1)).duplicate).toBe(true);
    expect(rows.size).toBe(1);
  });

  it('keeps the in-memory store bounded, forgetting the oldest first', () => {
    const store = new InMemoryEventStore({ maxEntries: 2 });
    expect(store.claim('a')).toBe(true);
    expect(store.claim('b')).toBe(true);
    expect(store.claim('c')).toBe(true);
    expect(store.size).toBe(2);
    expect(store.claim('a')).toBe(true);
    expect(store.claim('c')).toBe(false);
  });
});
