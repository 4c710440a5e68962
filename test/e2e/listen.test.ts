import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@paylinks/sdk';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

// `paylinks listen --forward-to` as a developer runs it: a real `paylinks serve`, the CLI in its own
// process, a receiver on this machine that checks both of the service's proofs, and `paylinks
// trigger` beside them. Ctrl-C removes the listener. A connection that goes silent without closing
// (a proxy of the test's own that stops forwarding) is given up and opened again; a service that
// cannot be reached makes listen give up after --max-reconnects, saying why.

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

/**
 * A TCP proxy in front of serve. freeze() makes every connection open at that moment stop forwarding,
 * in both directions, without closing either socket (what a laptop's sleep or a dropped network does);
 * connections made afterwards are forwarded. close() stops it, closing every socket.
 */
async function startProxy(targetPort: number): Promise<{ url: string; freeze(): void; close(): Promise<void> }> {
  const pairs: { client: Socket; upstream: Socket; frozen: boolean }[] = [];
  const server = createTcpServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const pair = { client, upstream, frozen: false };
    pairs.push(pair);
    client.on('data', (d: Buffer) => void (pair.frozen || upstream.write(d)));
    upstream.on('data', (d: Buffer) => void (pair.frozen || client.write(d)));
    client.on('close', () => pair.frozen || upstream.destroy());
    upstream.on('close', () => pair.frozen || client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => {
      for (const p of pairs) p.frozen = true;
    },
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await closed;
    },
  };
}

/** A port on this machine where nothing listens. */
async function deadPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
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
    // A keep-alive every 300 ms, so a listen with a silence timeout of 2 s hears one often.
    serve = startProc(['serve'], { PORT: '0', PAYLINKS_LISTEN_HEARTBEAT_MS: '300', ...env });
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

  it('gives up a connection that went silent and connects again: what happened meanwhile reaches the receiver once; then gives up on a service it cannot reach', async () => {
    const proxy = await startProxy(Number(new URL(baseUrl).port));
    const listen = startProc(
      ['listen', '--forward-to', receiverUrl, '--base-url', proxy.url, '--api-key', apiKey, '--silence-timeout', '2', '--max-reconnects', '3'],
      {},
    );
    const trigger = async (): Promise<string> =>
      (JSON.parse(await cli('trigger', 'Authorization', '--amount', '1000', '--currency', 'EUR', '--json')) as { payfacReference: string }).payfacReference;
    const receivedOf = (ref: string): number => received.filter((r) => r.body.includes(`"${ref}"`)).length;
    try {
      await until('listen', listen, (o) => o.includes('Press Ctrl-C'), 30_000);
      const webhookId = /webhook (wh_\S+)/.exec(listen.output())?.[1] as string;
      const before = await trigger();
      await until('the event before', listen, (o) => o.includes(before) && / → 200 /.test(o), 30_000);

      // The network drops without closing anything: the service still holds its stream and sends
      // these two events down it, into the proxy, which forwards nothing.
      proxy.freeze();
      const meanwhile = [await trigger(), await trigger()];
      await until('the silence noticed', listen, (o) => o.includes('nothing came from the service for 2 s'), 20_000);
      await until('connected again', listen, (o) => o.includes(`connected again to ${proxy.url}`), 20_000);
      const after = await trigger();
      await until('the event after', listen, (o) => o.includes(after) && / → 200 /.test(o), 30_000);

      // The two sent into the silence were recorded as failed when the new stream replaced the old
      // one, and come again on the schedule (a minute after they were first sent).
      await until('the events of the silence', listen, (o) => meanwhile.every((ref) => new RegExp(`${ref} .* → 200 `).test(o)), 100_000);
      await new Promise((r) => setTimeout(r, 1_000));
      expect([before, ...meanwhile, after].map(receivedOf)).toEqual([1, 1, 1, 1]);
      const got = JSON.parse(await cli('deliveries', 'list', '--payfac-reference', meanwhile[0] as string, '--json')) as {
        data: { deliveryId: string; state: string; webhookId: string }[];
      };
      expect(got.data).toEqual([expect.objectContaining({ state: 'Delivered', webhookId })]);
      const detail = JSON.parse(await cli('deliveries', 'get', got.data[0]?.deliveryId as string, '--json')) as {
        delivery: { attempts: { responseStatus: number | null; errorKind: string | null }[] };
      };
      expect(detail.delivery.attempts).toEqual([
        expect.objectContaining({ responseStatus: null, errorKind: 'connection' }),
        expect.objectContaining({ responseStatus: 200, errorKind: null }),
      ]);

      // The service is gone for good (the proxy stops): three failed attempts in a row, and listen
      // exits 1 saying what it tried, the last error and what to check, and keeps the listener.
      await proxy.close();
      const code = await new Promise<number | null>((resolve) => listen.proc.once('exit', resolve));
      expect(code).toBe(1);
      expect(listen.output()).toContain(`listen gave up: 3 attempts in a row to connect to the service at ${proxy.url} failed`);
      expect(listen.output()).toMatch(/The last error: .*ECONNREFUSED/);
      expect(listen.output()).toContain('Check that the service is running');
      expect(listen.output()).toContain(`The listener ${webhookId} is kept`);
      await cli('webhooks', 'delete', webhookId);
    } finally {
      if (listen.proc.exitCode === null) listen.proc.kill('SIGKILL');
      await proxy.close();
    }
  }, 240_000);

  it('exits 1 after --max-reconnects failed attempts when no service answers, saying what to check', async () => {
    const nowhere = `http://127.0.0.1:${await deadPort()}`;
    const err = (await run(
      process.execPath,
      [BIN, 'listen', '--forward-to', receiverUrl, '--base-url', nowhere, '--api-key', apiKey, '--max-reconnects', '2'],
      {
        env: client,
      },
    ).catch((e: unknown) => e)) as { code?: number; stderr?: string };
    expect(err.code).toBe(1);
    expect(err.stderr).toContain(`paylinks: listen gave up: 2 attempts in a row to connect to the service at ${nowhere} failed`);
    expect(err.stderr).toMatch(/The last error: POST \/api\/v1\/webhooks\/listeners: ECONNREFUSED/);
    expect(err.stderr).toContain('Check that the service is running and that this machine reaches it at that address');
    expect(err.stderr).not.toContain('is kept');
    const help = await run(process.execPath, [BIN, 'listen', '--help'], { env: client });
    expect(help.stdout).toMatch(/--silence-timeout <seconds>[\s\S]*--max-reconnects <n>/);
  }, 60_000);

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
