// Waking the modification processor at once when a modification is accepted (D19), as the delivery
// worker is woken (src/webhooks/delivery/wake.ts): NOTIFY in the accepting transaction reaches every
// processor's LISTEN connection at commit (PostgreSQL, any process); the in-process signal, raised
// after the commit, covers PGlite and saves the round trip here.

export const MODIFICATIONS_CHANNEL = 'paylinks_modifications';

type Listener = () => void;
const listeners = new Set<Listener>();

export function onModificationsReceived(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signalModificationsReceived(): void {
  for (const l of listeners) l();
}
