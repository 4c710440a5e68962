import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadHmacVectors, sharedVectorsIfPresent, VECTORS_COPY } from '../helpers/vectors.js';

describe('HMAC vectors copied from ../shared/fixtures', () => {
  it('hold the provider vector (interface §5.2)', () => {
    const provider = loadHmacVectors()[0];
    expect(provider?.key).toBe('4eab969bd65a39c17c906dfcef1fe69d481716b0845a6c0892284cf9c06e4314');
    expect(provider?.hmacSignature).toBe('oH4Sgo4cZ/O8489HQU7TbcvohJkH4eHbz50Q3G+VXfk=');
  });

  const shared = sharedVectorsIfPresent();
  it.skipIf(shared === undefined)('equal the shared file byte for byte when it is beside the repository', () => {
    expect(readFileSync(VECTORS_COPY, 'utf8')).toBe(shared);
  });
});
