import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Every database test runs twice: once on PostgreSQL and once on PGlite (the same SQL path, §Running the service).
// Unit tests (no database) run once.
const dbTests = ['test/**/*.test.ts'];
const unitTests = ['test/unit/**/*.test.ts'];
// PostgreSQL's alone: an upgrade under a running server (the embedded database admits one process).
const postgresOnly = ['test/e2e/upgrade.test.ts'];

export default defineConfig({
  // The pages' JSX runtime from the source, as the compiler sees it (package.json's "imports" names the built one).
  resolve: { alias: [{ find: /^#jsx\/jsx(-dev)?-runtime$/, replacement: fileURLToPath(new URL('./src/html/jsx-runtime.ts', import.meta.url)) }] },
  test: {
    globalSetup: ['test/helpers/globalSetup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: unitTests } },
      // Type-level tests (*.test-d.ts): checked by the TypeScript compiler, not run; a type that
      // drifts fails here, in npm test.
      {
        extends: true,
        test: { name: 'types', include: [], typecheck: { enabled: true, only: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' } },
      },
      { extends: true, test: { name: 'postgres', include: dbTests, exclude: unitTests, env: { TEST_DB: 'postgres' } } },
      { extends: true, test: { name: 'pglite', include: dbTests, exclude: [...unitTests, ...postgresOnly], env: { TEST_DB: 'pglite' } } },
    ],
  },
});
