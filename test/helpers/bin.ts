import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

// The built bin as an operator runs it (`paylinks serve` and the other commands), for the end-to-end tests.

export const BIN = join(import.meta.dirname, '../../bin/paylinks.js');

/** A bin's environment: PATH, quiet logs, and the test's variables; nothing else of the test's process. */
export const binEnv = (env: Record<string, string>): Record<string, string> => ({ PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env });

export interface Server {
  proc: ChildProcessWithoutNullStreams;
  output: () => string;
  baseUrl: string;
}

/** `paylinks serve` (with `args` after it) on a free port, once it says where it listens. */
export async function startServe(env: Record<string, string>, args: string[] = []): Promise<Server> {
  const proc = spawn(process.execPath, [BIN, 'serve', ...args], { env: { ...binEnv(env), PORT: '0' } });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 60_000;
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, output: () => out, baseUrl: /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '' };
}

/** Sends SIGTERM and answers the exit code. */
export async function stopServe(s: Server): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => s.proc.once('exit', (code) => resolve(code)));
  s.proc.kill('SIGTERM');
  return exited;
}
