import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEVELOPMENT_SECRET_KEY, parseConfig } from '../../src/config.js';
import { createSealer, SealingError } from '../../src/sealing.js';
import { RateLimiter } from '../../src/http/rateLimit.js';

// Issue 7: secrets encrypted at rest under a configured key; rate limiting per API key.

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return [...e.problems];
    throw e;
  }
  return [];
}

describe('PAYLINKS_SECRET_KEY', () => {
  it('is required in production, and the message names it', () => {
    const problems = problemsOf({ PAYLINKS_ENV: 'production' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^PAYLINKS_SECRET_KEY: is required when PAYLINKS_ENV=production/);
  });

  it('takes 32 bytes as hex or base64, and never echoes a bad value', () => {
    const key = randomBytes(32);
    expect(parseConfig({ PAYLINKS_SECRET_KEY: key.toString('hex') }).secretKey.equals(key)).toBe(true);
    expect(parseConfig({ PAYLINKS_SECRET_KEY: key.toString('base64') }).secretKey.equals(key)).toBe(true);
    expect(parseConfig({ PAYLINKS_SECRET_KEY: key.toString('base64url') }).secretKey.equals(key)).toBe(true);
    for (const bad of ['abc', 'zz'.repeat(32), randomBytes(16).toString('hex'), randomBytes(31).toString('base64')]) {
      const problems = problemsOf({ PAYLINKS_SECRET_KEY: bad, PAYLINKS_ENV: 'production' });
      expect(problems).toEqual(['PAYLINKS_SECRET_KEY: must be 32 bytes, as 64 hex characters or as base64']);
      expect(problems.join('')).not.toContain(bad);
    }
  });

  it('refuses the published development key; development falls back to it, labelled', () => {
    expect(problemsOf({ PAYLINKS_SECRET_KEY: DEVELOPMENT_SECRET_KEY.toString('hex') })[0]).toMatch(/published development key/);
    const dev = parseConfig({});
    expect(dev.secretKeyIsFallback).toBe(true);
    expect(dev.secretKey.equals(DEVELOPMENT_SECRET_KEY)).toBe(true);
    expect(parseConfig({ PAYLINKS_SECRET_KEY: 'ab'.repeat(32) }).secretKeyIsFallback).toBe(false);
  });
});

describe('sealing (AES-256-GCM)', () => {
  const key = randomBytes(32);
  const sealer = createSealer(key);

  it('round-trips, with a fresh IV each time, and hides the plain text', () => {
    const secret = 'whk_' + randomBytes(32).toString('base64url');
    const a = sealer.seal(secret);
    const b = sealer.seal(secret);
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^v1:${sealer.keyId}:`));
    expect(a).not.toContain(secret);
    expect(sealer.open(a)).toBe(secret);
  });

  it('refuses a value altered, truncated, or sealed under another key', () => {
    const sealed = sealer.seal('0123456789abcdef'.repeat(4));
    const raw = Buffer.from(sealed.split(':')[2] as string, 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 1;
    expect(() => sealer.open(`v1:${sealer.keyId}:${raw.toString('base64')}`)).toThrow(SealingError);
    expect(() => sealer.open(`v1:${sealer.keyId}:AAAA`)).toThrow(SealingError);
    expect(() => createSealer(randomBytes(32)).open(sealed)).toThrow(/another key/);
    expect(() => sealer.open('plain')).toThrow(SealingError);
  });

  it('still opens rows written before encryption (v0, plain)', () => {
    expect(sealer.open('v0:legacy')).toBe('legacy');
  });
});

describe('rate limiter (token bucket per key)', () => {
  it('allows the burst, then the rate, and says when to retry', () => {
    let t = 0;
    const limiter = new RateLimiter({ perSecond: 10, burst: 5, now: () => t });
    const burst = Array.from({ length: 7 }, () => limiter.take('k1').allowed);
    expect(burst).toEqual([true, true, true, true, true, false, false]);
    expect(limiter.take('k1')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // Another key has its own bucket.
    expect(limiter.take('k2').allowed).toBe(true);
    t += 100; // one token back
    expect(limiter.take('k1').allowed).toBe(true);
    expect(limiter.take('k1').allowed).toBe(false);
    t += 10_000; // never more than the burst
    expect(Array.from({ length: 6 }, () => limiter.take('k1').allowed).filter(Boolean)).toHaveLength(5);
  });

  it('gives a Retry-After of whole seconds for slow rates, and is off at 0', () => {
    const t = 0;
    const slow = new RateLimiter({ perSecond: 0.25, burst: 1, now: () => t });
    expect(slow.take('k').allowed).toBe(true);
    expect(slow.take('k')).toEqual({ allowed: false, retryAfterSeconds: 4 });
    const off = new RateLimiter({ perSecond: 0, burst: 1, now: () => t });
    expect(Array.from({ length: 100 }, () => off.take('k').allowed).every(Boolean)).toBe(true);
  });

  it('keeps a bounded number of buckets', () => {
    const t = 0;
    const limiter = new RateLimiter({ perSecond: 1, burst: 1, now: () => t, maxKeys: 3 });
    for (const k of ['a', 'b', 'c', 'd']) limiter.take(k);
    // 'a' was dropped: it starts full again.
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('d').allowed).toBe(false);
  });

  it('does not throttle the benchmark by default', () => {
    const c = parseConfig({});
    expect(c.rateLimitPerSecond).toBeGreaterThanOrEqual(20_000);
    expect(c.rateLimitBurst).toBe(c.rateLimitPerSecond * 2);
    expect(problemsOf({ PAYLINKS_RATE_LIMIT_PER_SECOND: '-1', PAYLINKS_RATE_LIMIT_BURST: '0' }).map((p) => p.split('=')[0])).toEqual([
      'PAYLINKS_RATE_LIMIT_PER_SECOND',
      'PAYLINKS_RATE_LIMIT_BURST',
    ]);
  });
});
