import type { WorkerHoldings } from '../../metrics.js';
import type { AttemptRecord, ClaimedRow } from './sql.js';

// A worker's part of each webhook it holds deliveries for: the queue beside its slots, and how deep
// that queue may grow.

/** A delivery claimed and not sent yet, with the token of its claim. */
export interface Queued {
  row: ClaimedRow;
  token: string;
}

/** A webhook's part of a worker: deliveries queued (claimed, not sent), on the wire, and held in all. */
export interface Endpoint {
  queue: Queued[];
  onWire: number;
  /** Held: queued, on the wire, or finished and not yet recorded. */
  held: number;
  /** How many may be on the wire (the last claim's or allowance read's). */
  allowance: number;
  cap: number;
  /** How many deliveries the next claim may queue beside its slots (see queueDepth). */
  depth: number;
  /** Its last recorded attempts all took SLOW_ATTEMPT_MS or longer, or it fell silent (see followEndpoints). */
  slow: boolean;
  /** When an attempt to it last ended, or an attempt went on an idle wire (performance.now()). */
  lastEnded: number;
  /**
   * When each of its slots freed while work waited for it, oldest first (performance.now()): the next
   * attempt started takes one and the wait is the slot's turnaround. Emptied when a cycle finds
   * nothing due for the webhook (a slot idle for want of work is not waiting).
   */
  freed: number[];
}

/** The deepest queue a webhook may have beside its slots. */
export const QUEUE_MAX = 256;

/** An attempt that took this long or longer does not deepen its webhook's queue (see queueDepth). */
export const SLOW_ATTEMPT_MS = 1_000;

/**
 * How many deliveries a worker may hold queued for a webhook beside its slots, from the attempts to it
 * that a cycle records. The queue is there so that a slot is refilled the moment its attempt ends,
 * not after the next claim commits; it needs to last from one claim to the next, so it follows what
 * the endpoint completes in a cycle:
 * - twice the attempts that took less than SLOW_ATTEMPT_MS, and at most QUEUE_MAX. It shrinks by at
 *   most a quarter a cycle: claims that run in quick succession each see few attempts ended, and a
 *   queue sized by the last cycle alone ran dry (an earlier try of that kind, capped at 128, raised the
 *   median slot turnaround at 50 in flight from 0.016 to 2.1 ms).
 * - its max in flight, no deeper, when every attempt recorded took longer: slots that turn over once a
 *   second or slower are refilled by the claims in time, and a queue there only holds places of the
 *   worker (twice its own limit) that other webhooks could use. An endpoint that stops answering is
 *   taken for slow at the first cycle after a second with attempts on the wire and none ending
 *   (followEndpoints), so it holds twice its max in flight, not its max in flight and what its queue
 *   held while it answered. (An endpoint whose answers take about a second may give back up to its
 *   max in flight and claim it again a cycle later: a few rows written, not lost.)
 * - unchanged when the cycle recorded nothing for it.
 * A webhook new to the worker starts at its max in flight; the claim never queues less.
 * With 128 for every webhook, one endpoint at 50 in flight took about 120 deliveries a cycle; following
 * the endpoint, about 180 (docs/performance.md, "A queue that follows its endpoint").
 */
export function queueDepth(ep: Pick<Endpoint, 'cap' | 'depth'>, fast: number, slow: number): number {
  if (fast === 0) return slow === 0 ? ep.depth : ep.cap;
  return Math.max(ep.cap, Math.min(QUEUE_MAX, Math.max(2 * fast, Math.floor((ep.depth * 3) / 4))));
}

/**
 * Sets each webhook's queue depth from the attempts recorded this cycle. Where they were all slow, it
 * takes out of the queue what is queued beyond the new depth (the latest claimed first): the
 * deliveries to give back, for another worker or a later claim. The caller forgets them. (A queue
 * that shrinks by a quarter in a short cycle keeps what it holds: giving it back would only have
 * the next claims take it again.)
 *
 * An endpoint whose attempts have been on the wire for SLOW_ATTEMPT_MS with none ending (`now`, from
 * performance.now(); see Endpoint.lastEnded) is slow too, before any of them is recorded: one that
 * answered quickly and then stopped answering gives back its queue at the next cycle (the fallback
 * poll's, within another second or two, when nothing else wakes the worker), not when its attempts
 * time out. (A worker whose event loop stalls for a second may take busy endpoints for silent and
 * give back their queues once; the next claims take them again.)
 */
export function followEndpoints(endpoints: ReadonlyMap<string, Endpoint>, records: readonly AttemptRecord[], now: number): Queued[] {
  const counts = new Map<string, { fast: number; slow: number }>();
  for (const r of records) {
    const c = counts.get(r.webhookId) ?? { fast: 0, slow: 0 };
    if (r.durationMs < SLOW_ATTEMPT_MS) c.fast++;
    else c.slow++;
    counts.set(r.webhookId, c);
  }
  const excess: Queued[] = [];
  for (const [webhookId, ep] of endpoints) {
    const c = counts.get(webhookId) ?? { fast: 0, slow: 0 };
    const stalled = c.fast === 0 && c.slow === 0 && ep.onWire > 0 && now - ep.lastEnded >= SLOW_ATTEMPT_MS;
    ep.depth = stalled ? ep.cap : queueDepth(ep, c.fast, c.slow);
    if (c.fast > 0) ep.slow = false;
    else if (c.slow > 0 || stalled) ep.slow = true;
    while (c.fast === 0 && (c.slow > 0 || stalled) && ep.queue.length > ep.depth) {
      excess.push(ep.queue.pop() as Queued);
    }
  }
  return excess;
}

/** Each webhook's queue depth, for the claim. */
export function depths(endpoints: ReadonlyMap<string, Endpoint>): Map<string, number> {
  const m = new Map<string, number>();
  for (const [webhookId, ep] of endpoints) m.set(webhookId, ep.depth);
  return m;
}

/** Deliveries held per webhook, less those a cycle records (no longer claimed when its claim counts). */
export function heldByWebhook(endpoints: ReadonlyMap<string, Endpoint>, recording: ReadonlyMap<string, number>): Map<string, number> {
  const m = new Map<string, number>();
  for (const [webhookId, ep] of endpoints) m.set(webhookId, ep.held - (recording.get(webhookId) ?? 0));
  return m;
}

/** Webhooks whose queue other workers' holdings keep below their max in flight: their holdings, to read the allowance again. */
export function heldBack(endpoints: ReadonlyMap<string, Endpoint>, recording: ReadonlyMap<string, number>): Map<string, number> {
  const m = new Map<string, number>();
  for (const [webhookId, ep] of endpoints) {
    if (ep.queue.length > 0 && ep.onWire >= ep.allowance && ep.allowance < ep.cap) m.set(webhookId, ep.held - (recording.get(webhookId) ?? 0));
  }
  return m;
}

/** How many of the deliveries given back were each webhook's. */
export function countByWebhook(given: readonly Queued[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const q of given) m.set(q.row.webhookId, (m.get(q.row.webhookId) ?? 0) + 1);
  return m;
}

/** What a worker holds, for its metrics: `queued` and `sending` are its own counts of all webhooks. */
export function holdingsOf(endpoints: ReadonlyMap<string, Endpoint>, queued: number, sending: number): WorkerHoldings {
  let slowWebhooks = 0;
  for (const ep of endpoints.values()) if (ep.slow) slowWebhooks++;
  return { queued, sending, webhooks: endpoints.size, slowWebhooks };
}
