import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// No source file under src/ grows past 500 lines: a file that long holds several things, and is split
// along its seams (one page per file, a group of a module's operations and queries in a subfolder) as
// docs/style.md, Layout describes.

const MAX_LINES = 500;
const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Lines as `wc -l` counts them: a last line without a newline still counts. */
function linesOf(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('file size', () => {
  it(`keeps every source file under src/ at ${MAX_LINES} lines or fewer`, () => {
    const long = walk(src)
      .filter((file) => /\.(ts|tsx)$/.test(file))
      .map((file) => ({ file: relative(root, file).split(sep).join('/'), lines: linesOf(readFileSync(file, 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
