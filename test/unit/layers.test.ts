import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layers (docs/architecture.md, Layers): src/layers.json lists the modules and the top-level files
// of src/ from the bottom up, and `npm run lint` refuses an import of anything that does not stand
// below the importer. Checked here on probe files (linted as text under a path inside src/, never
// written), and on the tree itself: its modules import each other round no circle.

const root = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(root, 'src');

async function upward(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: `${root}/${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'paylinks/layers').map((m) => m.message);
}

const probe = (from: string, name: string) => `import { ${name} } from '${from}';\nexport const x = ${name};\n`;

describe('layers (lint)', () => {
  it('refuses an import of what stands above, or beside in the same layer', async () => {
    // The renderer's formats take the language from the leaf below both, not from the web layer.
    const messages = await upward('src/html/probe.ts', probe('../web/lang.js', 'isLang'));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('src/layers.json');
    expect(await upward('src/http/probe.ts', probe('../portal/access.js', 'can'))).toHaveLength(1);
    expect(await upward('src/payments/probe.ts', probe('../checkout/service.js', 'sessionUrl'))).toHaveLength(1);
    expect(await upward('src/paymentLinks/probe.ts', probe('../webhooks/service.js', 'ownerOf'))).toHaveLength(1);
    // The composition root's own types are for the root: a module reads its decorations instead.
    expect(await upward('src/checkout/probe.ts', "import type { AppDeps } from '../deps.js';\nexport type X = AppDeps;\n")).toHaveLength(1);
    expect(await upward('src/clock.ts', probe('./db/database.js', 'ping'))).toHaveLength(1);
  });

  it('allows what stands below, and a module its own files', async () => {
    expect(await upward('src/checkout/probe.ts', probe('../payments/service.js', 'receiptOf'))).toEqual([]);
    expect(await upward('src/portal/probe.ts', probe('../http/app.js', 'appPart'))).toEqual([]);
    expect(await upward('src/html/probe.ts', probe('../lang.js', 'isLang'))).toEqual([]);
    expect(await upward('src/webhooks/listen/probe.ts', probe('../delivery/sql.js', 'recordAttempts'))).toEqual([]);
    expect(await upward('src/app.ts', probe('./portal/routes.js', 'portalRoutes'))).toEqual([]);
  });
});

/** Every import between two units (a module, or a top-level file of src/) of the tree as it is. */
function unitGraph(): Map<string, Set<string>> {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e)) files.push(p);
    }
  };
  walk(SRC);
  const unitOf = (p: string): string => {
    const parts = relative(SRC, p).split('/');
    return parts.length === 1 ? (parts[0] ?? '').replace(/\.(js|tsx?)$/, '') : (parts[0] ?? '');
  };
  const graph = new Map<string, Set<string>>();
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const target = resolve(dirname(f), m[1] ?? '');
      if (!target.startsWith(SRC)) continue;
      const [a, b] = [unitOf(f), unitOf(target)];
      if (a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
  }
  return graph;
}

describe('the modules of the tree', () => {
  it('import each other round no circle', () => {
    const graph = unitGraph();
    expect(graph.size).toBeGreaterThan(20);
    // Depth-first, marking the units on the current path: reaching one of them again closes a circle.
    const done = new Set<string>();
    const circles: string[] = [];
    const visit = (unit: string, path: string[]): void => {
      if (path.includes(unit)) {
        circles.push([...path.slice(path.indexOf(unit)), unit].join(' → '));
        return;
      }
      if (done.has(unit)) return;
      for (const next of graph.get(unit) ?? []) visit(next, [...path, unit]);
      done.add(unit);
    };
    for (const unit of graph.keys()) visit(unit, []);
    expect(circles).toEqual([]);
  });
});
