import { describe, expect, it } from 'vitest';
import { Kept } from '../../src/kept.js';

describe('Kept (src/kept.ts)', () => {
  it('makes a value once per key, and empties itself when full instead of growing', () => {
    const made: string[] = [];
    const kept = new Kept<string, string>(2);
    const get = (k: string) => kept.get(k, () => (made.push(k), k.toUpperCase()));
    expect([get('a'), get('b'), get('a'), get('b')]).toEqual(['A', 'B', 'A', 'B']);
    expect(made).toEqual(['a', 'b']);
    // Full: the third key empties it, so 'a' is made again.
    expect([get('c'), get('a')]).toEqual(['C', 'A']);
    expect(made).toEqual(['a', 'b', 'c', 'a']);
  });
});
