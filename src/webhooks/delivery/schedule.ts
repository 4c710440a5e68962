// The retry schedule of interface §8, in one table (docs/style.md, Claims, leases and one schedule): the delay after attempt n
// before attempt n + 1, counted from the moment attempt n was sent.

export const MAX_ATTEMPTS = 5;

const DELAYS_MS: readonly number[] = [
  60_000, // after attempt 1: 1 minute
  600_000, // after attempt 2: 10 minutes
  3_600_000, // after attempt 3: 1 hour
  21_600_000, // after attempt 4: 6 hours
];

export type DeliveryState = 'Pending' | 'Delivered' | 'Failed';

export interface Outcome {
  state: DeliveryState;
  /** When the next attempt is due; null unless the delivery stays Pending. */
  nextAttemptAt: Date | null;
}

/** What follows attempt `attemptNumber` (1-based), sent at `sentAt`, that succeeded or not. */
export function afterAttempt(attemptNumber: number, sentAt: Date, success: boolean): Outcome {
  if (success) return { state: 'Delivered', nextAttemptAt: null };
  const delay = DELAYS_MS[attemptNumber - 1];
  if (attemptNumber >= MAX_ATTEMPTS || delay === undefined) return { state: 'Failed', nextAttemptAt: null };
  return { state: 'Pending', nextAttemptAt: new Date(sentAt.getTime() + delay) };
}
