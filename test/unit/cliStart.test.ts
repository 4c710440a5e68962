import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The CLI imports the server's code (the database driver, the HTTP framework and its validator, the
// webhook sender) only in the commands that need it (src/cli.ts), so that `paylinks --help` and the
// commands that call the API start in a fraction of the time (docs/performance.md, "The CLI's start").
// This runs the built bin with a hook that notes every CommonJS package it loads.

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/paylinks.js');
const SERVER_PACKAGES = ['pg', 'undici', 'fastify', 'ajv', 'pino', 'prom-client'];

describe('the CLI’s start', () => {
  let dir: string;
  let hook: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-cli-start-'));
    hook = join(dir, 'hook.cjs');
    await writeFile(
      hook,
      `const Module = require('node:module');
const fs = require('node:fs');
const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(Module._resolveFilename(request, parent, isMain));
  if (m) seen.add(m[1]);
  return load.apply(this, arguments);
};
process.on('exit', () => fs.writeFileSync(process.env.LOADED_FILE, [...seen].sort().join('\\n')));
`,
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function loaded(...args: string[]): Promise<{ stdout: string; packages: string[] }> {
    const file = join(dir, `loaded-${args.join('-')}.txt`);
    const { stdout } = await run(process.execPath, ['--require', hook, BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', LOADED_FILE: file, PAYLINKS_DATA_DIR: join(dir, 'data') },
    });
    return { stdout, packages: (await readFile(file, 'utf8')).split('\n').filter(Boolean) };
  }

  it('--help loads commander and none of the server’s packages', async () => {
    const { stdout, packages } = await loaded('--help');
    expect(stdout).toContain('Usage: paylinks');
    expect(packages).toContain('commander');
    expect(packages.filter((p) => SERVER_PACKAGES.includes(p))).toEqual([]);
  });

  it('an API command’s and listen’s help load none of them either', async () => {
    for (const args of [
      ['links', 'list', '--help'],
      ['listen', '--help'],
    ]) {
      const { packages } = await loaded(...args);
      expect(
        packages.filter((p) => SERVER_PACKAGES.includes(p)),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('a command that opens the database loads its driver (the hook sees what is loaded)', async () => {
    const { packages } = await loaded('migrate');
    expect(packages).toContain('pg');
  });
});
