import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { AccountError } from '../accounts/service.js';
import { adminCommands, isAdminCommand, type AdminContext } from './commands.js';

// The admin socket of a process that holds an embedded database: a Unix socket in the data folder
// (owner-only, like the folder), where the `paylinks` account commands run while a server has the
// folder open. It is never on the public listener, and reaching it needs the file permissions of the
// service's own user. One request per command: `POST /{command}` with the arguments as JSON; the
// answer is the command's result, or `{error}` with 400 for a refused command.

const MAX_BODY = 64 * 1024;

export interface AdminServer {
  readonly path: string;
  /**
   * Takes no more commands (the socket file goes at once) and lets those running finish, cut off
   * after `graceMs` (default: at once), as the server's drain does with its requests.
   */
  close(graceMs?: number): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new AccountError('request too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** One request per command, so each answer ends its connection: none lingers idle to hold a drain. */
function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(body));
}

export async function startAdminServer(context: AdminContext, path: string, log: Pick<FastifyBaseLogger, 'info' | 'error'>): Promise<AdminServer> {
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\//, '');
    if (req.method !== 'POST' || !isAdminCommand(name)) {
      answer(res, 404, { error: `unknown admin command ${name}` });
      return;
    }
    readBody(req)
      .then(async (text) => {
        const args: unknown = text === '' ? {} : JSON.parse(text);
        if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new AccountError('arguments must be a JSON object');
        const run: (c: AdminContext, a: Record<string, unknown>) => Promise<Record<string, unknown>> = adminCommands[name];
        const result = await run(context, args as Record<string, unknown>);
        log.info({ command: name }, 'admin command');
        answer(res, 200, result);
      })
      .catch((err: unknown) => {
        if (err instanceof AccountError || err instanceof SyntaxError) {
          answer(res, 400, { error: err.message });
          return;
        }
        log.error({ command: name, err: (err as Error).message }, 'admin command failed');
        answer(res, 500, { error: 'the command failed; see the server log' });
      });
  });
  // The holder of the folder's lock owns this path: a socket file still there was left by a process
  // that died holding the lock before us.
  try {
    unlinkSync(path);
  } catch {
    // none there
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The socket is made owner-only (the mask applies while listen makes it, synchronously), not
    // opened to others until a chmod after it.
    const mask = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(mask);
    }
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: (graceMs = 0) =>
      new Promise<void>((resolve) => {
        // A command under way (a backup, a vacuum) answers before the process goes on stopping:
        // cut off, its caller saw only "socket hang up".
        const cutOff = setTimeout(() => server.closeAllConnections(), graceMs);
        cutOff.unref();
        server.close(() => {
          clearTimeout(cutOff);
          resolve();
        });
        server.closeIdleConnections();
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      }),
  };
}
