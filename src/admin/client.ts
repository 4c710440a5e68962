import { request } from 'node:http';
import { lockPathOf, type LockHolder } from '../db/dataDirLock.js';
import { ownerOf, untrustedSocket } from '../db/adminSocket.js';
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

/** A socket the CLI will not talk to: someone other than the folder's holder could have put it there. */
export class AdminSocketUntrustedError extends Error {
  override readonly name = 'AdminSocketUntrustedError';
}

/**
 * Runs an admin command in the process that holds the database folder (`locked`: the folder and the
 * holder its lock names). A server that has just taken the folder may still be migrating, its socket
 * not yet open: that is waited for, up to `waitMs`. Nothing is sent to a socket that does not belong
 * to the user who holds the lock, or whose folder others can write (src/db/adminSocket.ts).
 */
export async function runThroughHolder(
  locked: { dataDir: string; holder: LockHolder },
  command: AdminCommand,
  args: Record<string, unknown>,
  waitMs = 15_000,
): Promise<Record<string, unknown>> {
  const socket = locked.holder.adminSocket;
  if (socket === null) throw new AdminUnreachableError('it does not answer admin commands');
  const owner = ownerOf(lockPathOf(locked.dataDir));
  const deadline = Date.now() + waitMs;
  for (;;) {
    const untrusted = untrustedSocket(socket, owner);
    if (untrusted !== null) {
      throw new AdminSocketUntrustedError(
        `its admin socket ${socket} was not used: ${untrusted}. Someone else may be listening there; nothing was sent. Stop the server, remove that folder, and start it again.`,
      );
    }
    try {
      const { status, body } = await post(socket, command, args);
      if (status === 200) return body;
      throw new AccountError(typeof body.error === 'string' ? body.error : `the server answered ${status}`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ECONNREFUSED') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES')
        throw new AdminUnreachableError(`its admin socket ${socket} does not answer (${code})`);
      throw err;
    }
  }
}
