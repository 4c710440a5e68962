import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION, unsupportedNode } from '../../src/version.js';

// One version, package.json's, wherever the service says one; and a word at start on a Node.js below
// the engines (docs/running.md).

describe('the package’s version and Node lines', () => {
  it('says package.json’s version', () => {
    expect(PACKAGE_VERSION).toBe((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
  });

  it('warns below the engines, and not on a supported line', () => {
    expect(unsupportedNode('20.20.2')).toMatch(/^Node\.js 20\.20\.2 is older than this release supports \(22\.12 or later/);
    expect(unsupportedNode('22.11.0')).not.toBeNull();
    for (const v of ['22.12.0', '22.23.3', '24.21.0', '26.10.0']) expect(unsupportedNode(v), v).toBeNull();
  });
});
