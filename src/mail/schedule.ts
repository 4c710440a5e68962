// The retry schedule of an e-mail, in one table (docs/style.md, Claims, leases and one schedule): the
// delay after failed attempt n before attempt n + 1. Six attempts over about eight and a half hours
// ride out an SMTP server's restart or a day's short outage; after the sixth the message is Failed,
// shown so on the portal's "Sent e-mails" page. A refusal is tried again whether the server answered
// 4xx or 5xx: a relay that refuses everything for a while (a quota, a misconfiguration being fixed)
// answers 5xx too, and a receipt is worth the few more tries.

import { retrySchedule } from '../retrySchedule.js';

/** After a failed attempt: 1 minute, then 5 minutes, 30 minutes, 2 hours and 6 hours; six attempts in all. */
const SCHEDULE = retrySchedule([1, 5, 30, 120, 360]);

export const MAIL_MAX_ATTEMPTS = SCHEDULE.maxAttempts;

/** When attempt `attemptNumber` + 1 is due after attempt `attemptNumber` (1-based) failed at `at`; null: none, the message is Failed. */
export function nextAttemptAfter(attemptNumber: number, at: Date): Date | null {
  return SCHEDULE.nextAfter(attemptNumber, at);
}
