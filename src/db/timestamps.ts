// Timestamps as the database sends them. A `timestamptz` comes as text in PostgreSQL's ISO style
// ("2026-11-25 19:25:56.670123+00"); pg's own parser reads it with three regular expressions and
// a Date made and moved, about a microsecond a value, and a page of 20 payments or a batch of
// deliveries has one or more a row. The usual shape is read here by its fixed positions; anything
// else (years before 1000 or after 9999, BC, infinity, another DateStyle) goes to pg's parser, which
// this matches exactly where both apply (test/unit/timestamps.test.ts compares them).

const ZERO = 48;
/** What the first three digits of a fraction of a second are worth in milliseconds. */
const PLACE = [100, 10, 1];

/** The two digits at i as a number, or -1. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - ZERO;
  const b = s.charCodeAt(i + 1) - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** The milliseconds since the epoch of a timestamptz in the ISO style, or undefined for any other text. */
export function isoTimestamptzMs(s: string): number | undefined {
  const n = s.length;
  if (n < 22 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 32 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58)
    return undefined;
  const hi = two(s, 0);
  const lo = two(s, 2);
  const month = two(s, 5);
  const day = two(s, 8);
  const hours = two(s, 11);
  const minutes = two(s, 14);
  const seconds = two(s, 17);
  if (
    hi < 10 ||
    lo < 0 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    hours < 0 ||
    hours > 23 ||
    minutes < 0 ||
    minutes > 59 ||
    seconds < 0 ||
    seconds > 59
  )
    return undefined;
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(i) === 46) {
    // The fraction's first three digits are the milliseconds (the rest is dropped, as Date drops it).
    i++;
    const start = i;
    while (i < n && s.charCodeAt(i) - ZERO >= 0 && s.charCodeAt(i) - ZERO <= 9) {
      if (i - start < 3) ms += (s.charCodeAt(i) - ZERO) * (PLACE[i - start] as number);
      i++;
    }
    if (i === start) return undefined;
  }
  const sign = s.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return undefined;
  const offHours = two(s, i + 1);
  if (offHours < 0) return undefined;
  i += 3;
  let offMinutes = 0;
  let offSeconds = 0;
  if (i < n && s.charCodeAt(i) === 58) {
    offMinutes = two(s, i + 1);
    i += 3;
    if (i < n && s.charCodeAt(i) === 58) {
      offSeconds = two(s, i + 1);
      i += 3;
    }
  }
  if (i !== n || offMinutes < 0 || offSeconds < 0) return undefined;
  const offset = (offHours * 3600 + offMinutes * 60 + offSeconds) * 1000;
  return Date.UTC(hi * 100 + lo, month - 1, day, hours, minutes, seconds, ms) - (sign === 43 ? offset : -offset);
}

/** A timestamptz parser: the ISO style read here, anything else by `fallback` (pg's own). */
export function timestamptzParser<T>(fallback: (text: string) => T): (text: string) => Date | T {
  return (text) => {
    const ms = isoTimestamptzMs(text);
    return ms === undefined ? fallback(text) : new Date(ms);
  };
}
