import { describe, expect, it } from 'vitest';
import { followEndpoints, QUEUE_MAX, queueDepth, SLOW_ATTEMPT_MS, type Endpoint } from '../../src/webhooks/delivery/endpoints.js';
import type { AttemptRecord, ClaimedRow } from '../../src/webhooks/delivery/sql.js';

// How deep a worker's queue beside a webhook's slots may be: it follows what the endpoint completes.

function endpoint(cap: number, depth: number, queued: number): Endpoint {
  const queue = Array.from({ length: queued }, (_, i) => ({ row: { id: `d${i}`, webhookId: 'w' } as ClaimedRow, token: 't' }));
  return { queue, onWire: cap, held: cap + queued, allowance: cap, cap, depth, slow: false, lastEnded: 0, freed: [] };
}

function records(webhookId: string, durations: number[]): AttemptRecord[] {
  return durations.map((durationMs, i) => ({ deliveryId: `r${i}`, webhookId, durationMs }) as AttemptRecord);
}

describe('the queue beside a webhook’s slots', () => {
  it('grows to twice what the endpoint completed quickly in a cycle, up to the most', () => {
    expect(queueDepth({ cap: 10, depth: 10 }, 30, 0)).toBe(60);
    expect(queueDepth({ cap: 10, depth: 60 }, 100, 0)).toBe(200);
    expect(queueDepth({ cap: 50, depth: 200 }, 190, 0)).toBe(QUEUE_MAX);
  });

  it('shrinks by at most a quarter a cycle while the endpoint completes quickly, never below its max in flight', () => {
    expect(queueDepth({ cap: 10, depth: 256 }, 5, 0)).toBe(192);
    expect(queueDepth({ cap: 10, depth: 12 }, 1, 0)).toBe(10);
  });

  it('is the max in flight, no deeper, when every attempt recorded was slow', () => {
    expect(queueDepth({ cap: 10, depth: 256 }, 0, 10)).toBe(10);
    expect(queueDepth({ cap: 3, depth: 3 }, 0, 3)).toBe(3);
  });

  it('stays as it was when nothing of the webhook was recorded', () => {
    expect(queueDepth({ cap: 10, depth: 120 }, 0, 0)).toBe(120);
  });

  it('a max in flight above the most is the least queue', () => {
    expect(queueDepth({ cap: 300, depth: 300 }, 1, 0)).toBe(300);
  });

  it('gives back what a slow endpoint queues beyond its max in flight, the latest claimed first', () => {
    const slow = endpoint(3, 40, 20);
    const fast = endpoint(3, 40, 20);
    const endpoints = new Map([
      ['slow', slow],
      ['fast', fast],
    ]);
    const back = followEndpoints(endpoints, [...records('slow', [SLOW_ATTEMPT_MS, 15_000]), ...records('fast', [2])], 10);
    expect(slow.depth).toBe(3);
    expect(slow.queue.map((q) => q.row.id)).toEqual(['d0', 'd1', 'd2']);
    expect(back.map((q) => q.row.id)).toEqual(Array.from({ length: 17 }, (_, i) => `d${19 - i}`));
    expect(back.every((q) => q.token === 't')).toBe(true);
    // A quick endpoint's queue shrinks in depth only: what it holds it keeps.
    expect(fast.depth).toBe(30);
    expect(fast.queue).toHaveLength(20);
    expect([slow.slow, fast.slow]).toEqual([true, false]);
    // It is slow until an attempt to it is quick again; a cycle that records nothing of it changes nothing.
    followEndpoints(endpoints, records('fast', [2]), 20);
    expect(slow.slow).toBe(true);
    followEndpoints(endpoints, records('slow', [SLOW_ATTEMPT_MS - 1]), 30);
    expect(slow.slow).toBe(false);
  });

  it('a slow attempt beside quick ones does not empty the queue', () => {
    const ep = endpoint(5, 100, 80);
    const back = followEndpoints(new Map([['w', ep]]), records('w', [SLOW_ATTEMPT_MS + 1, 3, 4]), 10);
    expect(ep.depth).toBe(75);
    expect(back).toEqual([]);
  });

  it('an endpoint with attempts on the wire that has ended none for a second gives back its queue beyond its max in flight', () => {
    const stalled = endpoint(3, 40, 20);
    const waiting = endpoint(3, 40, 20);
    waiting.lastEnded = 500;
    const idle = endpoint(3, 40, 20);
    idle.onWire = 0;
    const endpoints = new Map([
      ['stalled', stalled],
      ['waiting', waiting],
      ['idle', idle],
    ]);
    const back = followEndpoints(endpoints, [], SLOW_ATTEMPT_MS);
    expect(back).toHaveLength(17);
    expect(stalled.depth).toBe(3);
    expect(stalled.queue).toHaveLength(3);
    // Less than a second since an attempt ended; or nothing on the wire to be slow.
    expect(waiting.queue).toHaveLength(20);
    expect(waiting.depth).toBe(40);
    expect(idle.queue).toHaveLength(20);
    expect([stalled.slow, waiting.slow, idle.slow]).toEqual([true, false, false]);
  });
});
