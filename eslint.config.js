import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Module boundaries (docs/architecture.md). The modules are the folders under src/, read here, so a
// folder added later is covered without anyone remembering to list it. src/modules.json names each
// module's public files: the only files of it that another module may import. Its `entry` files
// (routes, workers) are further open to the top-level files of src/ that build and start the app. A
// module that src/modules.json does not name offers nothing, and a sql.ts is never public: each module
// owns its tables and other modules go through its functions.
const SRC = fileURLToPath(new URL('./src/', import.meta.url));
const MODULES = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const DECLARED = JSON.parse(readFileSync(new URL('./src/modules.json', import.meta.url), 'utf8'));

const withoutExtension = (file) => file.replace(/\.(js|ts|tsx)$/, '');

/** The declared files of each module, checked here so that a stale entry fails the lint instead of opening nothing. */
const BOUNDARIES = new Map(
  MODULES.map((name) => {
    const { public: open = [], entry = [] } = DECLARED[name] ?? {};
    for (const file of [...open, ...entry]) {
      if (!existsSync(resolve(SRC, name, file))) throw new Error(`src/modules.json: src/${name}/${file} does not exist`);
      if (/(^|\/)sql\.ts$/.test(file)) throw new Error(`src/modules.json: src/${name}/${file} is a module's queries and cannot be public`);
    }
    return [name, { open, entry }];
  }),
);
for (const name of Object.keys(DECLARED)) {
  if (!BOUNDARIES.has(name)) throw new Error(`src/modules.json names ${name}, which is not a folder under src/`);
}

/** The module a file under src/ belongs to, or '' for a top-level file of src/; undefined outside src/. */
function moduleOf(path) {
  const parts = relative(SRC, path).split(sep);
  if (parts[0] === '..' || parts[0] === '') return undefined;
  return parts.length === 1 ? '' : parts[0];
}

/**
 * The layers (docs/architecture.md, Layers): src/layers.json lists the modules and the top-level
 * files of src/ from the bottom up, and a file imports only what stands in a layer below its own
 * (its own module apart). So no import runs up, and no two modules or files import each other round
 * a circle. A folder or top-level file that no layer names stops the lint.
 */
const LAYERED = JSON.parse(readFileSync(new URL('./src/layers.json', import.meta.url), 'utf8'));
const LAYERS = new Map(LAYERED.flatMap((layer, i) => layer.map((unit) => [unit, i])));
for (const unit of [...MODULES, ...readdirSync(SRC).filter((f) => /\.tsx?$/.test(f))]) {
  if (!LAYERS.has(unit)) throw new Error(`src/layers.json: ${unit} is in no layer; add it above everything it imports and below what imports it`);
}

/** A file's unit: its module's name, or for a top-level file of src/ its file name. */
function unitOf(path) {
  const parts = relative(SRC, path).split(sep);
  if (parts[0] === '..' || parts[0] === '') return undefined;
  if (parts.length > 1) return parts[0];
  return ['.ts', '.tsx'].map((ext) => withoutExtension(parts[0]) + ext).find((f) => LAYERS.has(f)) ?? parts[0];
}

const layers = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      up: '{{from}} (layer {{fromLayer}}) imports {{to}} (layer {{toLayer}}), which is not below it in src/layers.json: a module imports only what stands below it (docs/architecture.md, Layers). Move what both need down, or the importer up.',
    },
  },
  create(context) {
    const from = unitOf(context.filename);
    if (from === undefined) return {};
    function check(node) {
      const source = node.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = unitOf(resolve(dirname(context.filename), source));
      if (to === undefined || to === from) return;
      const fromLayer = LAYERS.get(from);
      const toLayer = LAYERS.get(to);
      if (fromLayer === undefined || toLayer === undefined || toLayer < fromLayer) return;
      context.report({ node, messageId: 'up', data: { from, to, fromLayer: String(fromLayer), toLayer: String(toLayer) } });
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => node.source && check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source),
    };
  },
};

const moduleBoundaries = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      deep: '{{target}} is inside the {{module}} module, which other modules import only through {{instead}}. Import from there; a file that is truly an interface of {{module}} is added to its public list in src/modules.json (docs/architecture.md).',
      closed:
        '{{target}} is inside the {{module}} module, which offers no file to other modules: name its public files in src/modules.json (docs/architecture.md).',
      queries: "{{target}} is the {{module}} module's queries: each module owns its tables, so call {{instead}} instead (docs/architecture.md).",
    },
  },
  create(context) {
    const from = moduleOf(context.filename);
    if (from === undefined) return {};
    function check(node) {
      const source = node.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolve(dirname(context.filename), source);
      const to = moduleOf(target);
      if (to === undefined || to === '' || to === from) return;
      const boundary = BOUNDARIES.get(to) ?? { open: [], entry: [] };
      const allowed = from === '' ? [...boundary.open, ...boundary.entry] : boundary.open;
      const inside = withoutExtension(relative(resolve(SRC, to), target).split(sep).join('/'));
      if (allowed.some((file) => withoutExtension(file) === inside)) return;
      const file = ['.ts', '.tsx'].map((ext) => inside + ext).find((f) => existsSync(resolve(SRC, to, f))) ?? `${inside}.ts`;
      const instead = allowed.map((f) => `src/${to}/${f}`).join(', ');
      const queries = inside === 'sql' || inside.endsWith('/sql');
      const messageId = allowed.length === 0 ? 'closed' : queries ? 'queries' : 'deep';
      context.report({ node, messageId, data: { target: `src/${to}/${file}`, module: to, instead } });
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => node.source && check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source),
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'packages/*/dist/', 'coverage/', '.paylinks/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { paylinks: { rules: { 'module-boundaries': moduleBoundaries, layers } } },
    rules: {
      'paylinks/module-boundaries': 'error',
      'paylinks/layers': 'error',
      // Markup is JSX through src/html/jsx-runtime.ts (docs/style.md, Pages through one renderer):
      // its values are Html, not Preact's elements.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'preact', message: 'Pages are JSX through src/html/jsx-runtime.ts: import Html and Children from there.' },
            { name: 'preact-render-to-string', message: 'Pages are written by src/html/jsx-runtime.ts; src/html/render.ts makes the document.' },
          ],
        },
      ],
    },
  },
  {
    // The runtime takes its element and attribute types from Preact (types only).
    files: ['src/html/jsx-runtime.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
