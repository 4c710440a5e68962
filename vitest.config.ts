import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm test`: the unit tests once, every database test on PostgreSQL, and on PGlite the files below,
// which run every statement of the service's SQL that the PostgreSQL run runs (docs/style.md, Tests).
// test/helpers/suiteReport.ts checks that at the end of every whole run and names a statement that
// ran on PostgreSQL only, so a change that adds SQL adds a file here when no listed file runs it.
// `npm run test:all` runs every database test on both.
const dbTests = ['test/**/*.test.ts'];
const unitTests = ['test/unit/**/*.test.ts'];
// PostgreSQL's alone: an upgrade under a running server (the embedded database admits one process).
const postgresOnly = ['test/e2e/upgrade.test.ts'];

/**
 * The PGlite files: those that test the embedded database itself (its folder, template, upkeep,
 * backup, start and stop), the fuzzers, and a set that runs every statement of the rest.
 */
export const PGLITE_FILES = [
  // The embedded database itself, and what only it does.
  'test/db/migrate.test.ts',
  'test/db/template.test.ts',
  'test/db/together.test.ts',
  'test/db/upkeep.test.ts',
  'test/docs/apiGuide.test.ts',
  'test/e2e/backup.test.ts',
  'test/e2e/serve.test.ts',
  'test/e2e/startStop.test.ts',
  'test/e2e/vacuum.test.ts',
  'test/sdk/package.test.ts',
  // Hostile input on both databases.
  'test/fuzz/routes.test.ts',
  'test/portal/fuzz.test.ts',
  // Every other statement of the service.
  'test/checkout/acquirerPace.test.ts',
  'test/checkout/codeGuessing.test.ts',
  'test/http/foundation.test.ts',
  'test/mail/receiptLimits.test.ts',
  'test/mail/smtp.test.ts',
  'test/modifications/expiry.test.ts',
  'test/modifications/modifications.test.ts',
  'test/modifications/tokens.test.ts',
  'test/paymentLinks/search.test.ts',
  'test/portal/access.test.ts',
  'test/portal/accountSecurity.test.ts',
  'test/portal/authorisations.test.ts',
  'test/portal/developers.test.ts',
  'test/portal/links.test.ts',
  'test/portal/listTable.test.ts',
  'test/portal/memberships.test.ts',
  'test/portal/overviewTotals.test.ts',
  'test/portal/payments.test.ts',
  'test/portal/routeTable.test.ts',
  'test/portal/sessions.test.ts',
  'test/portal/settlements.test.ts',
  'test/portal/themes.test.ts',
  'test/portal/users.test.ts',
  'test/portal/webhooks.test.ts',
  'test/promotionCodes/api.test.ts',
  'test/security/secondAudit.test.ts',
  'test/security/smallFindings.test.ts',
  'test/settlements/api.test.ts',
  'test/settlements/reconcile.test.ts',
  'test/webhooks/allowances.test.ts',
  'test/webhooks/counts.test.ts',
  'test/webhooks/deliveriesOfAPayment.test.ts',
  'test/webhooks/listen.test.ts',
  'test/webhooks/queueDepth.test.ts',
];

// PAYLINKS_TEST_ALL=1 (npm run test:all): every database test on PGlite too.
const pgliteTests = process.env.PAYLINKS_TEST_ALL === '1' ? dbTests : PGLITE_FILES;

export default defineConfig({
  // The pages' JSX runtime from the source, as the compiler sees it (package.json's "imports" names the built one).
  resolve: { alias: [{ find: /^#jsx\/jsx(-dev)?-runtime$/, replacement: fileURLToPath(new URL('./src/html/jsx-runtime.ts', import.meta.url)) }] },
  test: {
    globalSetup: ['test/helpers/globalSetup.ts'],
    setupFiles: ['test/helpers/record.ts'],
    reporters: ['default', './test/helpers/suiteReport.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // A worker imports the app once and runs file after file on it: importing it afresh for each
    // file took 3-4 s of the worker's time a file. Each file still builds its own app on its own database.
    isolate: false,
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
      { extends: true, test: { name: 'pglite', include: pgliteTests, exclude: [...unitTests, ...postgresOnly], env: { TEST_DB: 'pglite' } } },
    ],
  },
});
