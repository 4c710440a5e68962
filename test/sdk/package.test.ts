import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { startLiveService, type LiveService } from './helpers.js';

// What a merchant's developer does with the SDK: `npm pack` it, install the tarball into a fresh
// project outside this repository (no workspace, no links), and use it from ES modules and from
// CommonJS, type-checked with TypeScript's Node resolution for each, against a running service.
// It talks to the service, not to a database, so it runs in one database project only.

const run = promisify(execFile);
const SDK = join(import.meta.dirname, '../../packages/sdk');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const TYPES = join(import.meta.dirname, '../../node_modules/@types');
const ESM_CONSUMER = join(import.meta.dirname, 'consumer/index.ts');

const CJS_CONSUMER = `// A CommonJS program: TypeScript compiles these imports to require() and checks them against the
// package's CommonJS declarations.
import { Paylinks, PaylinksNotFoundError, computeSignature, verifyWebhook, type WebhookMessage } from '@paylinks/sdk';

async function main(): Promise<void> {
  const paylinks = new Paylinks({ baseUrl: process.env.PAYLINKS_BASE_URL ?? '', apiKey: process.env.PAYLINKS_API_KEY ?? '', maxRetries: 0 });
  const list = await paylinks.paymentLinks.list({ pageSize: 1 });
  let notFound = '';
  try {
    await paylinks.paymentLinks.get('pl_nothing_here');
  } catch (err) {
    if (err instanceof PaylinksNotFoundError) notFound = err.code;
  }
  const message: WebhookMessage = {
    checkoutReference: null, payfacReference: '1234', merchantReference: 'order-1', amount: '100', currency: 'EUR', reason: null, success: 'true',
    hmacSignature: '', additionalData: { eventType: 'Capture' },
  };
  const hmacKey = 'ab'.repeat(32);
  const body = JSON.stringify({ ...message, hmacSignature: computeSignature(hmacKey, message) });
  const verified = verifyWebhook({ rawBody: body, headers: { authorization: 'whk' }, apiKey: 'whk', hmacKey });
  console.log(JSON.stringify({ module: typeof module, total: typeof list.totalCount, notFound, verified: verified.payfacReference }));
}
void main();
`;

const BAD_CONSUMER = `import { Paylinks } from '@paylinks/sdk';
new Paylinks({ baseUrl: 42, apiKey: 'pk' });
`;

describe.skipIf(TEST_DB !== 'pglite')('@paylinks/sdk as an npm package, installed outside this repository', { timeout: 180_000 }, () => {
  let live: LiveService;
  let dir: string;
  let app: string;

  beforeAll(async () => {
    live = await startLiveService();
    dir = await mkdtemp(join(tmpdir(), 'paylinks-sdk-pack-'));
    // The package is built by `npm run build` (npm test's pretest); pack it as it is.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: SDK });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    if (!packed) throw new Error('npm pack printed nothing');
    app = join(dir, 'shop');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'a-shop', version: '1.0.0', private: true }, null, 2));
    await run('npm', ['install', join(dir, packed.filename), '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app });
  });
  afterAll(async () => {
    await live?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const env = (): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    PAYLINKS_BASE_URL: live.baseUrl,
    PAYLINKS_API_KEY: live.ctx.merchant.apiKey,
    PAYLINKS_TERMINAL: live.ctx.merchant.terminalIdentifier,
  });

  it('installs as a plain copy with no dependencies, carrying both builds and their declarations', async () => {
    const installed = join(app, 'node_modules/@paylinks/sdk');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { dependencies?: unknown; exports: Record<string, unknown> };
    expect(manifest.dependencies).toBeUndefined();
    expect(await readdir(join(app, 'node_modules'))).toEqual(['.package-lock.json', '@paylinks']);
    for (const f of ['dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json', 'README.md']) {
      await expect(readFile(join(installed, f)), f).resolves.toBeDefined();
    }
    // Plain JavaScript, both ways, gets the same client.
    const cjs = await run(process.execPath, ['-e', "const s = require('@paylinks/sdk'); console.log(typeof s.Paylinks, s.SDK_VERSION)"], { cwd: app });
    const esm = await run(
      process.execPath,
      ['--input-type=module', '-e', "import { Paylinks, SDK_VERSION } from '@paylinks/sdk'; console.log(typeof Paylinks, SDK_VERSION)"],
      { cwd: app },
    );
    expect(cjs.stdout.trim()).toBe('function 0.1.0');
    expect(esm.stdout.trim()).toBe('function 0.1.0');
  });

  it('type-checks and runs from ES modules and from CommonJS against the service', async () => {
    await copyFile(ESM_CONSUMER, join(app, 'esm.mts'));
    await writeFile(join(app, 'cjs.cts'), CJS_CONSUMER);
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023'],
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: false,
        typeRoots: [TYPES],
        types: ['node'],
        outDir: 'out',
      },
      files: ['esm.mts', 'cjs.cts'],
    };
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app });
    // TypeScript emitted an import in one and a require() in the other.
    expect(await readFile(join(app, 'out/esm.mjs'), 'utf8')).toMatch(/from '@paylinks\/sdk'/);
    expect(await readFile(join(app, 'out/cjs.cjs'), 'utf8')).toMatch(/require\("@paylinks\/sdk"\)/);

    const esm = await run(process.execPath, ['out/esm.mjs'], { cwd: app, env: env() });
    expect(JSON.parse(esm.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({
      status: 'Active',
      listed: true,
      notFound: 'NOT_FOUND',
      invalidFields: ['amount'],
    });
    const cjs = await run(process.execPath, ['out/cjs.cjs'], { cwd: app, env: env() });
    expect(JSON.parse(cjs.stdout.trim())).toEqual({ module: 'object', total: 'number', notFound: 'NOT_FOUND', verified: '1234' });
  });

  it('reports a type error in a consumer (the check above can fail)', async () => {
    await writeFile(join(app, 'bad.cts'), BAD_CONSUMER);
    const tsconfig = {
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, typeRoots: [TYPES], types: ['node'], noEmit: true },
      files: ['bad.cts'],
    };
    await writeFile(join(app, 'tsconfig.bad.json'), JSON.stringify(tsconfig));
    await expect(run(process.execPath, [TSC, '-p', 'tsconfig.bad.json'], { cwd: app })).rejects.toMatchObject({
      stdout: expect.stringMatching(/bad\.cts\(2,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/),
    });
  });
});
