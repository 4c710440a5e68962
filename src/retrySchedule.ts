// A retry schedule in one table: the delay after failed attempt n before attempt n + 1, counted from
// the moment attempt n was made. The number of attempts is one more than the delays: after the last
// delay comes the last attempt, and after that nothing (docs/style.md, Claims, leases and one schedule).

export interface RetrySchedule {
  /** How many attempts in all. */
  readonly maxAttempts: number;
  /** When attempt `attemptNumber` + 1 is due after attempt `attemptNumber` (1-based) failed at `at`; null: none is left. */
  nextAfter(attemptNumber: number, at: Date): Date | null;
}

const MINUTE_MS = 60_000;

/** A schedule from its delays in minutes. */
export function retrySchedule(delaysInMinutes: readonly number[]): RetrySchedule {
  const delays = delaysInMinutes.map((m) => m * MINUTE_MS);
  return {
    maxAttempts: delays.length + 1,
    nextAfter(attemptNumber, at) {
      const delay = delays[attemptNumber - 1];
      return delay === undefined ? null : new Date(at.getTime() + delay);
    },
  };
}
