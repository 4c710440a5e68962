import { request } from 'node:http';
import type { LockHolder } from '../db/dataDirLock.js';
import { AccountError } from '../accounts/capabilities.js';
import type { AdminCommand } from './commands.js';

// The CLI's side of the admin socket (see server.ts): one command, sent to the process that holds the
// embedded database.

export class AdminUnreachableError extends Error {
  override readonly name = 'AdminUnreachableError';
}

function post(socketPath: string, command: AdminCommand, args: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(args);
    const req = request(
      { socketPath, path: `/${command}`, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
          } catch (err) {
            reject(err as Error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Runs an admin command in the process that holds the database. A server that has just taken the
 * folder may still be migrating, its socket not yet open: that is waited for, up to `waitMs`.
 */
export async function runThroughHolder(
  holder: LockHolder,
  command: AdminCommand,
  args: Record<string, unknown>,
  waitMs = 15_000,
): Promise<Record<string, unknown>> {
  if (holder.adminSocket === null) throw new AdminUnreachableError('it does not answer admin commands');
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const { status, body } = await post(holder.adminSocket, command, args);
      if (status === 200) return body;
      throw new AccountError(typeof body.error === 'string' ? body.error : `the server answered ${status}`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ECONNREFUSED') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES')
        throw new AdminUnreachableError(`its admin socket ${holder.adminSocket} does not answer (${code})`);
      throw err;
    }
  }
}
