// The retry schedule of an e-mail, in one table (docs/style.md, Claims, leases and one schedule): the
// delay after failed attempt n before attempt n + 1. Six attempts over about eight and a half hours
// ride out an SMTP server's restart or a day's short outage; after the sixth the message is Failed,
// shown so on the portal's "Sent e-mails" page. A refusal is tried again whether the server answered
// 4xx or 5xx: a relay that refuses everything for a while (a quota, a misconfiguration being fixed)
// answers 5xx too, and a receipt is worth the few more tries.

export const MAIL_MAX_ATTEMPTS = 6;

const DELAYS_MS: readonly number[] = [
  60_000, // after attempt 1: 1 minute
  300_000, // after attempt 2: 5 minutes
  1_800_000, // after attempt 3: 30 minutes
  7_200_000, // after attempt 4: 2 hours
  21_600_000, // after attempt 5: 6 hours
];

/** When attempt `attemptNumber` + 1 is due after attempt `attemptNumber` (1-based) failed at `at`; null: none, the message is Failed. */
export function nextAttemptAfter(attemptNumber: number, at: Date): Date | null {
  const delay = DELAYS_MS[attemptNumber - 1];
  if (attemptNumber >= MAIL_MAX_ATTEMPTS || delay === undefined) return null;
  return new Date(at.getTime() + delay);
}
