// The retry schedule of interface §8, in one table (docs/style.md, Claims, leases and one schedule): the delay after attempt n
// before attempt n + 1, counted from the moment attempt n was sent.

import { retrySchedule } from '../../retrySchedule.js';

/** After a failed attempt: 1 minute, then 10 minutes, 1 hour and 6 hours; five attempts in all. */
const SCHEDULE = retrySchedule([1, 10, 60, 360]);

export const MAX_ATTEMPTS = SCHEDULE.maxAttempts;

export type DeliveryState = 'Pending' | 'Delivered' | 'Failed';

export interface Outcome {
  state: DeliveryState;
  /** When the next attempt is due; null unless the delivery stays Pending. */
  nextAttemptAt: Date | null;
}

/** What follows attempt `attemptNumber` (1-based), sent at `sentAt`, that succeeded or not. */
export function afterAttempt(attemptNumber: number, sentAt: Date, success: boolean): Outcome {
  if (success) return { state: 'Delivered', nextAttemptAt: null };
  const next = SCHEDULE.nextAfter(attemptNumber, sentAt);
  return next === null ? { state: 'Failed', nextAttemptAt: null } : { state: 'Pending', nextAttemptAt: next };
}
