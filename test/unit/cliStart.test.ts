import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLoadHook } from '../helpers/loadedPackages.js';

// The CLI imports the server's code (the database driver, the HTTP framework and its validator, the
// webhook sender) only in the commands that need it (src/cli.ts), so that `paylinks --help` and the
// commands that call the API start in a fraction of the time (docs/performance.md, "The CLI's start").
// This runs the built bin with a hook that notes every CommonJS package it loads (test/helpers/loadedPackages.ts).

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/paylinks.js');
const SERVER_PACKAGES = ['pg', 'undici', 'fastify', 'ajv', 'pino', 'prom-client'];

describe('the CLI’s start', () => {
  let dir: string;
  let hook: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-cli-start-'));
    hook = await writeLoadHook(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function loaded(...args: string[]): Promise<{ stdout: string; stderr: string; code: number; packages: string[] }> {
    const file = join(dir, `loaded-${args.join('-').replace(/[^\w-]/g, '_')}.txt`);
    let out: { stdout: string; stderr: string; code: number };
    try {
      out = {
        ...(await run(process.execPath, ['--require', hook, BIN, ...args], {
          env: { PATH: process.env.PATH ?? '', LOADED_FILE: file, PAYLINKS_DATA_DIR: join(dir, 'data') },
          timeout: 30_000,
        })),
        code: 0,
      };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; code?: unknown };
      if (typeof e.code !== 'number') throw err;
      out = { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code };
    }
    return { ...out, packages: (await readFile(file, 'utf8')).split('\n').filter(Boolean) };
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

  it('an API command that runs loads none of them: `links list` against an address where nothing answers', async () => {
    const { code, stderr, packages } = await loaded('links', 'list', '--base-url', 'http://127.0.0.1:1', '--api-key', 'pk_test');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^paylinks: /);
    expect(packages.filter((p) => SERVER_PACKAGES.includes(p))).toEqual([]);
  });

  it('a command that opens the database loads its driver (the hook sees what is loaded)', async () => {
    const { packages } = await loaded('migrate');
    expect(packages).toContain('pg');
  });
});
