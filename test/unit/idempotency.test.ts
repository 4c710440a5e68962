import { describe, expect, it } from 'vitest';
import { hashRequest, readIdempotencyKey } from '../../src/idempotency/service.js';
import { ApiError } from '../../src/errors.js';

describe('idempotency keys (§Idempotent creates)', () => {
  it('hashes bodies independently of key order but not of values or operation', () => {
    expect(hashRequest('op', { a: 1, b: [1, { c: 2, d: 3 }] })).toBe(hashRequest('op', { b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(hashRequest('op', { a: 1 })).not.toBe(hashRequest('op', { a: 2 }));
    expect(hashRequest('op', { a: 1 })).not.toBe(hashRequest('other', { a: 1 }));
  });

  it('accepts visible ASCII keys up to 255 characters and rejects others in §Errors form', () => {
    expect(readIdempotencyKey(undefined)).toBeUndefined();
    expect(readIdempotencyKey('order-77')).toBe('order-77');
    expect(() => readIdempotencyKey('x'.repeat(256))).toThrow(ApiError);
    expect(() => readIdempotencyKey('has space')).toThrow(ApiError);
    expect(() => readIdempotencyKey('')).toThrow(ApiError);
  });
});
