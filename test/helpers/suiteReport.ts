import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Reporter, TestModule, TestSpecification, Vitest } from 'vitest/node';

// The suite's own accounting, printed at the end of `npm test`, and the one guarantee that lets most
// database tests run on PostgreSQL alone (docs/style.md, Tests): every distinct statement of the
// service's code that ran on PostgreSQL during the run also ran on PGlite. The files that cover it on
// PGlite are PGLITE_FILES in vitest.config.ts; when a change adds a statement that no file of that list
// runs, this report names it and the run fails, so the list grows with the SQL.
//
// test/helpers/record.ts, run before each test file, writes what the file ran to a folder this report
// makes for the run. The check is made only on a whole run (no file or project filter): a part of the
// suite covers a part of the SQL.

/** Files of random input (property tests, the fuzzers): what SQL they reach varies from run to run. */
function randomised(file: string): boolean {
  try {
    return /from 'fast-check'/.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

interface FileRecord {
  file: string;
  project: string;
  tests: number;
  assertions: number;
  statements: string[];
}

function readRecords(dir: string): FileRecord[] {
  const out: FileRecord[] = [];
  for (const name of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) if (line !== '') out.push(JSON.parse(line) as FileRecord);
  }
  return out;
}

export default class SuiteReport implements Reporter {
  private dir = '';
  private vitest: Vitest | undefined;
  private planned: readonly TestSpecification[] = [];

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.dir = mkdtempSync(join(tmpdir(), 'paylinks-suite-'));
    // The test workers are started after this, and inherit it.
    process.env.PAYLINKS_TEST_RECORD_DIR = this.dir;
  }

  onTestRunStart(specifications: readonly TestSpecification[]): void {
    this.planned = specifications;
    // Made again for each run (a watch run after the first).
    mkdirSync(this.dir, { recursive: true });
  }

  async onTestRunEnd(_modules: readonly TestModule[], _errors: unknown, reason: string): Promise<void> {
    const vitest = this.vitest;
    if (!vitest) return;
    const records = readRecords(this.dir);
    rmSync(this.dir, { recursive: true, force: true });
    const tests = records.reduce((n, r) => n + r.tests, 0);
    const assertions = records.reduce((n, r) => n + r.assertions, 0);
    // What the files of random input reach depends on what they drew this time: on both sides, only
    // the files of fixed input count.
    const fixed = records.filter((r) => !randomised(r.file));
    const onPostgres = new Set(fixed.filter((r) => r.project === 'postgres').flatMap((r) => r.statements));
    const onPglite = new Set(fixed.filter((r) => r.project === 'pglite').flatMap((r) => r.statements));
    const missing = [...onPostgres].filter((s) => !onPglite.has(s)).sort();

    // A whole run: both databases' projects, every file of each, and no test picked by name.
    const all = await vitest.globTestSpecifications();
    const key = (s: TestSpecification): string => `${s.project.name} ${s.moduleId}`;
    const plannedKeys = new Set(this.planned.map(key));
    const projects = new Set(this.planned.map((s) => s.project.name));
    const whole =
      projects.has('postgres') &&
      projects.has('pglite') &&
      vitest.config.testNamePattern === undefined &&
      all.every((s) => s.project.name === 'types' || plannedKeys.has(key(s)));

    const lines = [
      '',
      `Suite: ${records.length} test files, ${tests} tests, ${assertions} assertions.`,
      `SQL of the service (files of fixed input): ${onPostgres.size} distinct statements ran on PostgreSQL, ${onPglite.size} on PGlite; ${missing.length} ran on PostgreSQL and not on PGlite.`,
    ];
    if (process.env.PAYLINKS_TEST_SQL_OUT) {
      writeFileSync(
        process.env.PAYLINKS_TEST_SQL_OUT,
        JSON.stringify(
          { postgres: [...onPostgres].sort(), pglite: [...onPglite].sort(), files: records.map((r) => ({ ...r, file: relative(vitest.config.root, r.file) })) },
          null,
          1,
        ),
      );
    }
    if (missing.length > 0 && whole && reason !== 'interrupted') {
      lines.push(
        'These statements ran on PostgreSQL only. Add a test file that runs them to PGLITE_FILES in vitest.config.ts',
        '(test/helpers/suiteReport.ts says why):',
        ...missing.map((s) => `  ${s.length > 300 ? `${s.slice(0, 300)}…` : s}`),
      );
      process.exitCode = 1;
    } else if (missing.length > 0) {
      lines.push('(Not a whole run: the PGlite coverage of the SQL is checked only when every file runs.)');
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
