// Waking the delivery worker at once when deliveries are committed (issue 3).
// PostgreSQL: `NOTIFY` inside the caller's transaction is delivered at commit to every worker's
// LISTEN connection, in any process. PGlite has one connection and no LISTEN, so enqueueEvent also
// raises an in-process signal: the worker's claim then queues behind the caller's transaction on
// that single connection and runs right after its COMMIT (or finds nothing after a ROLLBACK).

export const NOTIFY_CHANNEL = 'paylinks_deliveries';

type Listener = () => void;
const listeners = new Set<Listener>();

export function onDeliveriesEnqueued(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signalDeliveriesEnqueued(): void {
  for (const l of listeners) l();
}
