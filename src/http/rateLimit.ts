// Rate limiting per API key (§Hardening, §Errors RATE_LIMITED, §Status codes 429 with Retry-After): a token bucket per key
// id, in this process. A bucket holds up to `burst` tokens and refills at `perSecond`; each request
// takes one. Several processes behind a balancer each allow the rate: the limit is a guard against a
// runaway integration, not a quota.

export interface RateLimitOptions {
  perSecond: number;
  burst: number;
  /** Milliseconds, monotonic enough; tests pass the manual clock's. */
  now: () => number;
  /** Buckets kept; beyond it the least recently used is dropped (a new bucket starts full). */
  maxKeys?: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxKeys: number;

  constructor(private readonly opts: RateLimitOptions) {
    this.maxKeys = opts.maxKeys ?? 100_000;
  }

  get enabled(): boolean {
    return this.opts.perSecond > 0;
  }

  take(keyId: string): RateDecision {
    if (!this.enabled) return { allowed: true };
    const { perSecond, burst } = this.opts;
    const now = this.opts.now();
    let b = this.buckets.get(keyId);
    if (b) {
      // Re-insert so that the Map's order is least recently used first.
      this.buckets.delete(keyId);
      b.tokens = Math.min(burst, b.tokens + (Math.max(0, now - b.at) * perSecond) / 1000);
      b.at = now;
    } else {
      b = { tokens: burst, at: now };
      if (this.buckets.size >= this.maxKeys) {
        const oldest = this.buckets.keys().next();
        if (!oldest.done) this.buckets.delete(oldest.value);
      }
    }
    this.buckets.set(keyId, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / perSecond)) };
  }
}
