import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hmacSignature, signaturePayload } from '../../src/webhooks/delivery/sign.js';

// docs/webhooks.md shows a worked signature example; a reader who codes the recipe from it must get
// the service's answer, so the example is computed here by the service's own signing code.

const text = readFileSync(fileURLToPath(new URL('../../docs/webhooks.md', import.meta.url)), 'utf8');

describe('the worked example of docs/webhooks.md', () => {
  it('is what the service signs', () => {
    const key = /key\s+`([0-9a-f]{64})`/.exec(text)?.[1];
    const signed = /^signed string\s+(\S+)$/m.exec(text)?.[1];
    const signature = /^hmacSignature\s+(\S+)$/m.exec(text)?.[1];
    expect(key && signed && signature).toBeTruthy();
    const message = {
      checkoutReference: null,
      payfacReference: '21135253156',
      merchantReference: '9990QQAZ1221',
      amount: '48900',
      currency: 'ISK',
      reason: null,
      success: 'true',
    };
    expect(signaturePayload(message)).toBe(signed);
    expect(hmacSignature(key ?? '', message)).toBe(signature);
  });
});
