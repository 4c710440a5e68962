import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Each table belongs to one module (`tables` in src/modules.json) and is read through that module's
// functions; a read of another module's table from a sql.ts is allowed only when docs/architecture.md
// lists it under "Tables read across modules". Tables are found in the SQL by the word after FROM,
// JOIN, INTO and UPDATE (and the tables after a comma in a FROM list); names that are no table (CTEs,
// aliases, functions) are left out by looking them up among the owned tables.

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'src');

type Modules = Record<string, { tables?: string[] }>;
const modules = JSON.parse(readFileSync(join(src, 'modules.json'), 'utf8')) as Modules;

function ownersOf(declared: Modules): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [module, { tables = [] }] of Object.entries(declared)) {
    for (const table of tables) {
      if (owners.has(table)) throw new Error(`${table} is owned by ${owners.get(table)} and ${module}`);
      owners.set(table, module);
    }
  }
  return owners;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

const NAME = '[a-z_][a-z0-9_]*';
const TABLE_REF = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE)\\s+(${NAME})(?:\\s+(?:AS\\s+)?${NAME})?((?:\\s*,\\s*${NAME}(?:\\s+(?:AS\\s+)?${NAME})?)*)`, 'g');

/** The table names a piece of SQL (or a TypeScript file holding SQL) reads or writes; line comments are left out. */
function tablesNamed(text: string): Set<string> {
  const code = text.replace(/(--|\/\/).*$/gm, '');
  const names = new Set<string>();
  for (const m of code.matchAll(TABLE_REF)) {
    names.add(m[1]!);
    for (const more of (m[2] ?? '').split(',').slice(1)) names.add(more.trim().split(/\s+/)[0]!);
  }
  return names;
}

/** Reads of another module's table: `module table` for each sql.ts that names one. */
function crossReads(owners: Map<string, string>, files: { module: string; text: string }[]): Set<string> {
  const reads = new Set<string>();
  for (const { module, text } of files) {
    for (const table of tablesNamed(text)) {
      const owner = owners.get(table);
      if (owner !== undefined && owner !== module) reads.add(`${module} ${table}`);
    }
  }
  return reads;
}

/** The rows of the docs' table: `reader table` with the owner the row names. */
function listedReads(markdown: string): Map<string, string> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Tables read across modules'));
  if (section === undefined) throw new Error('docs/architecture.md has no section "Tables read across modules"');
  const listed = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim().replaceAll('`', ''));
    if (cells.length < 5 || cells[1] === 'Table' || /^-+$/.test(cells[1]!)) continue;
    const [, table, owner, readers] = cells as [string, string, string, string];
    for (const reader of readers.split(',').map((r) => r.trim())) listed.set(`${reader} ${table}`, owner);
  }
  return listed;
}

const sqlFiles = walk(src)
  .filter((f) => f.endsWith(`${sep}sql.ts`))
  .map((f) => ({ module: relative(src, f).split(sep)[0]!, text: readFileSync(f, 'utf8') }));
const owners = ownersOf(modules);
const docs = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

describe('tables read across modules', () => {
  it('finds the tables a query names, and only those', () => {
    expect([...tablesNamed('SELECT a FROM payments p JOIN merchants m ON m.id = p.merchant_id')]).toEqual(['payments', 'merchants']);
    expect([...tablesNamed('UPDATE payment_links p SET n = 1 FROM v, k WHERE true')]).toEqual(['payment_links', 'v', 'k']);
    expect([...tablesNamed('INSERT INTO themes (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET id = 1')]).toEqual(['themes']);
    expect([...tablesNamed('SELECT 1 -- the rows from merchants\n FROM x')]).toEqual(['x']);
  });

  it('gives every table made by a migration or a sql.ts exactly one owner', () => {
    const made = [...walk(join(root, 'migrations')), ...walk(src).filter((f) => f.endsWith('sql.ts'))].flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/g)].map((m) => m[1]!),
    );
    expect(made.length).toBeGreaterThan(20);
    expect(made.filter((t) => !owners.has(t))).toEqual([]);
  });

  it('allows a sql.ts only the reads of other modules’ tables that docs/architecture.md lists, with their owners', () => {
    const listed = listedReads(docs);
    const found = crossReads(owners, sqlFiles);
    const unlisted = [...found]
      .filter((r) => !listed.has(r))
      .map((r) => `src/${r.split(' ')[0]}/**/sql.ts reads ${r.split(' ')[1]}, owned by ${owners.get(r.split(' ')[1]!)}`);
    expect(unlisted, 'read it through the owner, or list it in docs/architecture.md').toEqual([]);
    expect(
      [...listed.keys()].filter((r) => !found.has(r)),
      'rows of docs/architecture.md no query needs',
    ).toEqual([]);
    expect([...listed].filter(([r, owner]) => owners.get(r.split(' ')[1]!) !== owner)).toEqual([]);
  });

  it('would catch a new read of another module’s table', () => {
    const probe = [...sqlFiles, { module: 'audit', text: "db.query('SELECT name FROM merchants WHERE id = $1')" }];
    expect([...crossReads(owners, probe)].filter((r) => !listedReads(docs).has(r))).toEqual(['audit merchants']);
  });
});
