import { describe, expect, it } from 'vitest';
import { scanFor } from '../../src/webhooks/delivery/claim.js';

// The claim's scan bound is written into its statement's text, so each bound is a statement of its
// own on every connection (planned anew for its first five runs): claims whose limits vary share few.

describe('the rows a claim reads (scanFor)', () => {
  it('reads at least four times its limit, and a worker’s claims of up to 100 share one bound', () => {
    const limits = Array.from({ length: 1000 }, (_, i) => i + 1);
    for (const limit of limits) expect(scanFor(limit)).toBeGreaterThanOrEqual(4 * limit);
    expect(new Set(limits.slice(0, 100).map(scanFor))).toEqual(new Set([400]));
    // Ten statements at most for limits up to 1,000, not one per limit.
    expect(new Set(limits.map(scanFor)).size).toBe(10);
  });
});
