import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run test:faults` (§Hardening): crash, restart and shutdown tests with real processes on this
// machine's PostgreSQL. They kill workers and restart the database server, so they run one file at a
// time and never together with `npm test` (every other test file uses that server). CI runs them
// after `npm test`.
export default defineConfig({
  resolve: { alias: [{ find: /^#jsx\/jsx(-dev)?-runtime$/, replacement: fileURLToPath(new URL('./src/html/jsx-runtime.ts', import.meta.url)) }] },
  test: {
    globalSetup: ['test/helpers/globalSetup.ts'],
    include: ['test/reliability/**/*.faults.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
    projects: [{ extends: true, test: { name: 'postgres', env: { TEST_DB: 'postgres' } } }],
  },
});
