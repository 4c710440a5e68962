import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { startLiveService, type LiveService } from './helpers.js';

// A consumer project (test/sdk/consumer) against the BUILT package: tsc type-checks and compiles it
// with its own strict tsconfig (the SDK's declarations included: skipLibCheck off), then node runs the
// ESM output, which imports @paylinks/sdk through the package's "exports", against the live service.

const run = promisify(execFile);
const DIR = join(import.meta.dirname, 'consumer');
// One output folder per database project: the two projects run this file at the same time.
const OUT = join(DIR, 'dist', TEST_DB);
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('a consumer of the built @paylinks/sdk', { timeout: 120_000 }, () => {
  let live: LiveService;

  beforeAll(async () => {
    live = await startLiveService();
    await rm(OUT, { recursive: true, force: true });
  });
  afterAll(async () => {
    await live.close();
    await rm(OUT, { recursive: true, force: true });
  });

  it('type-checks with tsc and runs with node against the service', async () => {
    await run(process.execPath, [TSC, '-p', join(DIR, 'tsconfig.json'), '--outDir', OUT]);
    const { stdout } = await run(process.execPath, [join(OUT, 'index.js')], {
      cwd: DIR,
      env: { PATH: process.env.PATH ?? '', PAYLINKS_BASE_URL: live.baseUrl, PAYLINKS_API_KEY: live.ctx.merchant.apiKey, PAYLINKS_TERMINAL: live.ctx.merchant.terminalIdentifier },
    });
    const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(out).toEqual({
      reference: expect.any(String),
      status: 'Active',
      listed: true,
      notFound: 'NOT_FOUND',
      invalidFields: ['amount'],
      signature: 'oH4Sgo4cZ/O8489HQU7TbcvohJkH4eHbz50Q3G+VXfk=',
      first: false,
      second: true,
      refused: 'invalid_signature',
    });
  });
});
