import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every environment variable the configuration reads is documented in docs/configuration.md, so an
// operator never has to read the source to find a setting.

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

describe('docs/configuration.md', () => {
  it('documents every variable src/config.ts reads', () => {
    const source = read('../../src/config.ts');
    const names = [...source.matchAll(/\b(?:value|integer|boolean|oneOf(?:<\w+>)?)\('([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? '');
    expect(names.length).toBeGreaterThanOrEqual(15);
    const doc = read('../../docs/configuration.md');
    expect(names.filter((n) => !doc.includes(`\`${n}\``))).toEqual([]);
  });
});
