import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@paylinks/sdk';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

// `paylinks listen --forward-to` as a developer runs it: a real `paylinks serve`, the CLI in its own
// process, a receiver on this machine that checks both of the service's proofs, and `paylinks
// trigger` beside them. Ctrl-C removes the listener.

const BIN = join(import.meta.dirname, '../../bin/paylinks.js');
const run = promisify(execFile);

interface Proc {
  proc: ChildProcess;
  output: () => string;
}

function startProc(args: string[], env: Record<string, string>): Proc {
  const proc = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return { proc, output: () => out };
}

async function until(what: string, p: Proc, test: (out: string) => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test(p.output())) {
    if (p.proc.exitCode !== null) throw new Error(`${what}: the process exited ${p.proc.exitCode}:\n${p.output()}`);
    if (Date.now() > deadline) throw new Error(`${what}: timed out:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('paylinks listen --forward-to', () => {
  let dir: string;
  let tdb: TestDatabase | undefined;
  let serve: Proc;
  let baseUrl: string;
  let apiKey: string;
  let receiver: Server;
  let receiverUrl: string;
  const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  let status = 200;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-listen-'));
    let env: Record<string, string>;
    if (TEST_DB === 'postgres') {
      tdb = await createTestDatabase();
      env = { DATABASE_URL: tdb.url as string };
      const { stdout } = await run(process.execPath, [BIN, 'merchant', 'create', '--name', 'Listener shop', '--json'], {
        env: { PATH: process.env.PATH ?? '', ...env },
      });
      apiKey = (JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { apiKey: string }).apiKey;
    } else {
      env = { PAYLINKS_DATA_DIR: join(dir, 'data') };
    }
    serve = startProc(['serve'], { PORT: '0', ...env });
    await until('serve', serve, (o) => /listening on http:\/\/\S+/.test(o));
    baseUrl = /listening on (http:\/\/\S+)/.exec(serve.output())?.[1] ?? '';
    if (TEST_DB === 'pglite') apiKey = /apiKey\s+(\S+)/.exec(serve.output())?.[1] ?? '';

    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(status).end(status === 200 ? 'got it' : 'not now');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  }, 120_000);

  afterAll(async () => {
    serve?.proc.kill('SIGTERM');
    receiver?.close();
    await new Promise((r) => setTimeout(r, 500));
    await tdb?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const client = { PATH: process.env.PATH ?? '' };
  async function cli(...args: string[]): Promise<string> {
    const { stdout } = await run(process.execPath, [BIN, ...args, '--base-url', baseUrl, '--api-key', apiKey], { env: client });
    return stdout;
  }

  it('forwards triggered events with the exact body and headers, verifiable with the printed secrets, and records the answers', async () => {
    const listen = startProc(['listen', '--forward-to', receiverUrl, '--base-url', baseUrl, '--api-key', apiKey], {});
    try {
      await until('listen', listen, (o) => o.includes('Press Ctrl-C'), 30_000);
      const webhookId = /webhook (wh_\S+)/.exec(listen.output())?.[1] as string;
      const hookKey = /apiKey\s+(\S+)/.exec(listen.output())?.[1] as string;
      const hmacKey = /hmacKey\s+(\S+)/.exec(listen.output())?.[1] as string;

      const triggered = JSON.parse(await cli('trigger', 'Authorization', '--amount', '48900', '--merchant-reference', 'order-42', '--json')) as {
        payfacReference: string;
      };
      await until('the forwarded event', listen, (o) => o.includes(`${triggered.payfacReference}`) && / → 200 /.test(o), 30_000);
      const got = received.at(-1);
      const message = verifyWebhook({ rawBody: got?.body ?? '', headers: got?.headers ?? {}, apiKey: hookKey, hmacKey });
      expect(message).toMatchObject({ payfacReference: triggered.payfacReference, merchantReference: 'order-42', amount: '48900' });
      expect(got?.headers['content-type']).toBe('application/json; charset=utf-8');

      const list = JSON.parse(await cli('deliveries', 'list', '--payfac-reference', triggered.payfacReference, '--json')) as {
        data: { deliveryId: string; state: string; webhookId: string }[];
      };
      expect(list.data).toEqual([expect.objectContaining({ state: 'Delivered', webhookId })]);
      const detail = JSON.parse(await cli('deliveries', 'get', list.data[0]?.deliveryId as string, '--json')) as {
        delivery: { attempts: { responseStatus: number; responseBody: string; correlationId: string }[] };
      };
      expect(detail.delivery.attempts).toEqual([
        expect.objectContaining({ responseStatus: 200, responseBody: 'got it', correlationId: got?.headers['x-webhook-correlationid'] }),
      ]);

      // The receiver refuses: the attempt is recorded with its answer, and retried later.
      status = 503;
      const refused = JSON.parse(await cli('trigger', 'Capture', '--json')) as { payfacReference: string };
      await until('the refused event', listen, (o) => o.includes(refused.payfacReference) && / → 503 /.test(o), 30_000);
      const pending = JSON.parse(await cli('deliveries', 'list', '--payfac-reference', refused.payfacReference, '--json')) as {
        data: { state: string; attemptCount: number }[];
      };
      expect(pending.data).toEqual([expect.objectContaining({ state: 'Pending', attemptCount: 1 })]);
      status = 200;

      // Ctrl-C removes the listener.
      listen.proc.kill('SIGINT');
      await new Promise((resolve) => listen.proc.once('exit', resolve));
      expect(listen.proc.exitCode).toBe(0);
      expect(listen.output()).toContain(`Removed listener ${webhookId}.`);
      const hooks = JSON.parse(await cli('webhooks', 'list', '--json')) as { data: { webhookId: string }[] };
      expect(hooks.data.map((w) => w.webhookId)).not.toContain(webhookId);
    } finally {
      if (listen.proc.exitCode === null) listen.proc.kill('SIGKILL');
    }
  }, 120_000);

  it('refuses a --forward-to that is not a URL, without registering anything', async () => {
    const before = JSON.parse(await cli('webhooks', 'list', '--json')) as { totalCount: number };
    await expect(
      run(process.execPath, [BIN, 'listen', '--forward-to', 'localhost:3000', '--base-url', baseUrl, '--api-key', apiKey], { env: client }),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('--forward-to must be an absolute http or https URL'),
    });
    const after = JSON.parse(await cli('webhooks', 'list', '--json')) as { totalCount: number };
    expect(after.totalCount).toBe(before.totalCount);
  }, 60_000);
});
