import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README's Layout section names every folder of src/ with what it owns (docs/style.md, Layout):
// a new module that is not listed there fails here, so the map a newcomer reads stays whole.

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('README layout', () => {
  it('lists every folder of src/', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const layout = readme.slice(readme.indexOf('## Layout'));
    const block = layout.slice(layout.indexOf('```'), layout.indexOf('```', layout.indexOf('```') + 3));
    const folders = readdirSync(`${root}src`, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}/`);
    expect(folders.length).toBeGreaterThan(0);
    const missing = folders.filter((f) => !new RegExp(`^${f.replace(/[/]/g, '\\/')}\\s+\\S`, 'm').test(block));
    expect(missing).toEqual([]);
  });
});
