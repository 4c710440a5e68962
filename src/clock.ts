// The injected clock (docs/style.md, The clock is injected): every time the service reads goes through one of these, so the
// 7-hour retry schedule and link expiry are tested in milliseconds.

export interface Clock {
  /** Current time in whole microseconds since the epoch (responseDateTime needs microseconds, §Timestamps and identifiers). */
  nowMicros(): number;
  now(): Date;
}

const originMicros = Math.round(performance.timeOrigin * 1000);

export const systemClock: Clock = {
  nowMicros: () => originMicros + Math.floor(performance.now() * 1000),
  now: () => new Date(),
};

/** A clock for tests: stands still until told to move. */
export class ManualClock implements Clock {
  private micros: number;

  constructor(start: Date | string = '2026-11-21T12:00:00.000Z') {
    this.micros = new Date(start).getTime() * 1000;
  }

  nowMicros(): number {
    return this.micros;
  }

  now(): Date {
    return new Date(Math.floor(this.micros / 1000));
  }

  advance(ms: number): void {
    this.micros += Math.round(ms * 1000);
  }

  set(to: Date | string): void {
    this.micros = new Date(to).getTime() * 1000;
  }
}

/** `2026-11-21T13:57:00.123456Z` (§Timestamps and identifiers). */
export function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString(); // 2026-11-21T13:57:00.123Z
  const sub = String(micros % 1000).padStart(3, '0');
  return `${iso.slice(0, 23)}${sub}Z`;
}

/** ISO 8601 UTC with milliseconds, for createdAt / validUntil (§Timestamps and identifiers). */
export function formatTimestamp(date: Date): string {
  return date.toISOString();
}
