import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Each module under src/ owns its tables: only its own files import its sql.ts (or the sql.ts of a
// folder inside it); every other file goes through its service.ts. These blocks make any other import
// of a module's queries a lint error. The modules are the folders under src/, read here, so a folder
// added later is covered without anyone remembering to list it.
const MODULES = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

function sqlOf(modules) {
  return modules.flatMap((m) => [`**/${m}/sql.js`, `**/${m}/**/sql.js`]);
}

function ownTables(files, others) {
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: sqlOf(others),
              message: "another module's queries: call that module's service.ts instead (each module owns its tables)",
            },
          ],
        },
      ],
    },
  };
}

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
  ownTables(['src/*.ts', 'src/*.tsx'], MODULES),
  ...MODULES.map((m) =>
    ownTables(
      [`src/${m}/**/*.ts`, `src/${m}/**/*.tsx`],
      MODULES.filter((o) => o !== m),
    ),
  ),
);
