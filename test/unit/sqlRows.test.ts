import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every sql.ts answers rows in the code's spelling (docs/architecture.md, "Rows"): the columns are
// aliased in the SQL (AS "expiresAt"), so no table's snake_case name travels into a service or a view.
// A field of a row type spelt with an underscore is the sign of a column left unaliased.

const src = fileURLToPath(new URL('../../src', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

const SNAKE_FIELD = /(?:^\s+|[{;,]\s*)([a-z][a-z0-9]*_[a-z0-9_]+)\??:/gm;

function snakeFields(text: string): string[] {
  const code = text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '').replace(/`[^`]*`|'[^'\n]*'/g, "''");
  return [...code.matchAll(SNAKE_FIELD)].map((m) => m[1]!);
}

describe('rows of the queries', () => {
  it('spots a snake_case field in an interface or a type literal', () => {
    expect(snakeFields('export interface R {\n  id: string;\n  created_at: Date;\n}')).toEqual(['created_at']);
    expect(snakeFields('db.query<{ n: number; merchant_id: string }>(`SELECT merchant_id: x`)')).toEqual(['merchant_id']);
    expect(snakeFields('db.query<{ createdAt: Date }>(\'SELECT created_at AS "createdAt"\')')).toEqual([]);
  });

  it('are camelCase in every sql.ts', () => {
    const found = walk(src)
      .filter((f) => f.endsWith('sql.ts'))
      .flatMap((f) => snakeFields(readFileSync(f, 'utf8')).map((field) => `${relative(src, f)}: ${field}`));
    expect(found).toEqual([]);
  });
});
