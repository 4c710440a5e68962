import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { isoTimestamptzMs, timestamptzParser } from '../../src/db/timestamps.js';

// The timestamptz parser (src/db/timestamps.ts) against pg's own, which it replaces for the ISO
// text PostgreSQL sends: the same moment for every such text, and pg's answer for every other.
// (This file does not load src/db/database.ts, so pg's parser here is its own.)

const pgParse = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date | number | null;
const ours = timestamptzParser(pgParse);

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** A moment as PostgreSQL writes it in a zone `offsetSeconds` east of UTC, with `digits` of the fraction. */
function asPostgres(ms: number, micros: number, offsetSeconds: number, digits: number): string {
  const local = new Date(ms + offsetSeconds * 1000);
  const fraction = digits === 0 ? '' : `.${pad(local.getUTCMilliseconds() * 1000 + micros, 6).slice(0, digits)}`;
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const s = abs % 60;
  const zone = `${sign}${pad(h, 2)}${m || s ? `:${pad(m, 2)}` : ''}${s ? `:${pad(s, 2)}` : ''}`;
  return `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)} ${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}${fraction}${zone}`;
}

describe('timestamptz parser', () => {
  it('reads every ISO text as pg does: years 1000-9999, fractions of 0-6 digits, zones of hours, minutes and seconds', () => {
    const zones = [0, 3600, -3 * 3600, 5.5 * 3600, -9.5 * 3600, 13 * 3600, 14 * 3600, -(25 * 60 + 21), 12 * 3600 + 45 * 60];
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const lo = Date.UTC(1000, 0, 2);
    const hi = Date.UTC(9999, 11, 30);
    for (let i = 0; i < 100_000; i++) {
      const ms = lo + Math.floor(random() * (hi - lo));
      const text = asPostgres(ms, Math.floor(random() * 1000), zones[i % zones.length] as number, i % 7);
      const fast = isoTimestamptzMs(text);
      expect(fast, text).toBeDefined();
      expect(fast, text).toBe((pgParse(text) as Date).getTime());
    }
    // Every millisecond of a second, written with three and with six digits.
    for (let f = 0; f < 1000; f++) {
      for (const text of [`2026-11-25 19:25:56.${pad(f, 3)}+00`, `2026-11-25 19:25:56.${pad(f, 3)}999+00`]) {
        expect(isoTimestamptzMs(text), text).toBe((pgParse(text) as Date).getTime());
      }
    }
  });

  it('leaves every other text to pg', () => {
    const others = [
      'infinity',
      '-infinity',
      '0099-01-01 00:00:00+00',
      '0999-12-31 23:59:59+00',
      '12345-01-01 00:00:00+00',
      '2026-01-01 00:00:00+00 BC',
      '2026-01-01',
      '2026-01-01 00:00:00',
      '2026-01-01T00:00:00Z',
      '2026-13-01 00:00:00+00',
      '2026-01-01 24:00:00+00',
      '2026-01-01 00:00:00.+00',
      '2026-01-01 00:00:00+0',
      '2026-01-01 00:00:00+00:3',
      '2026-01-01 00:00:00+00 ',
      'x026-01-01 00:00:00+00',
    ];
    for (const text of others) {
      expect(isoTimestamptzMs(text), text).toBeUndefined();
      expect(ours(text), text).toEqual(pgParse(text));
    }
    expect(ours('2026-11-25 19:25:56.670123+00')).toEqual(new Date('2026-11-25T19:25:56.670Z'));
  });
});
