import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type CreatedMerchant } from '../../src/accounts/service.js';
import { THROTTLE } from '../../src/users/service.js';
import { HSTS_MAX_AGE_SECONDS } from '../../src/http/transportSecurity.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/db.js';

// docs/production.md as an operator runs it: Debian's nginx terminates TLS in front of the built
// `paylinks serve` in production mode, which trusts the proxy's X-Forwarded-For and -Proto
// (PAYLINKS_TRUST_PROXY). The nginx configuration below is the one docs/production.md shows, with
// the paths of a temporary folder. Two clients are told apart by their own loopback addresses
// (127.0.0.2 and 127.0.0.3): nginx writes each one's address into X-Forwarded-For, and the sign-in
// throttle must count them apart, and must ignore an X-Forwarded-For a client sends itself.

const BIN = join(import.meta.dirname, '../../bin/paylinks.js');
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find((p) => existsSync(p));
if (NGINX === undefined) console.warn('test/e2e/nginx.test.ts skipped: no nginx binary (apt-get install nginx-light; .ci/run installs it)');

/** The server block of docs/production.md, for this folder, certificate and upstream. */
function nginxConfig(dir: string, listenPort: number, upstreamPort: number): string {
  return `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;

  upstream paylinks {
    server 127.0.0.1:${upstreamPort};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${listenPort} ssl;
    server_name pay.example.com;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    client_max_body_size 2m;

    location / {
      proxy_pass http://paylinks;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering off;
      proxy_read_timeout 1h;
    }
  }
}
`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not start:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stop(proc: ChildProcess | undefined, signal: NodeJS.Signals): Promise<number | null> {
  if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return proc?.exitCode ?? null;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.kill(signal);
  return exited;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe.skipIf(NGINX === undefined || TEST_DB !== 'postgres')('paylinks serve behind nginx with TLS (docs/production.md)', () => {
  let dir: string;
  let tdb: TestDatabase;
  let merchant: CreatedMerchant;
  let ca: Buffer;
  let nginx: ChildProcess | undefined;
  let serve: ChildProcess | undefined;
  let nginxOut = '';
  let serveOut = '';
  let port = 0;

  /** One request over https to nginx, from this local address, trusting only the test's certificate. */
  function https(method: string, path: string, opts: { from?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          ca,
          servername: 'pay.example.com',
          localAddress: opts.from ?? '127.0.0.1',
          headers: { host: 'pay.example.com', ...opts.headers },
          agent: false,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end(opts.body);
    });
  }

  /** A wrong password for an account from a client at this address, as a browser sends it (page, cookie, token). */
  async function wrongPassword(email: string, from: string, headers: Record<string, string> = {}): Promise<number> {
    const page = await https('GET', '/portal/sign-in', { from, headers });
    expect(page.status, page.body.slice(0, 300)).toBe(200);
    const cookie = ([page.headers['set-cookie'] ?? []].flat() as string[]).map((c) => c.split(';')[0]).join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const form = new URLSearchParams({ _csrf: csrf, email, password: 'not the password', next: '/portal' }).toString();
    const res = await https('POST', '/portal/sign-in', {
      from,
      headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    return res.status;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paylinks-nginx-'));
    // nginx's workers run as an unprivileged user when the test runs as root: they need to reach the folder.
    await chmod(dir, 0o755);
    tdb = await createTestDatabase();
    merchant = await createMerchant(tdb.db, 'Behind nginx');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=pay.example.com',
        '-addext',
        'subjectAltName=DNS:pay.example.com',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    ca = await readFile(join(dir, 'cert.pem'));
    port = await freePort();

    serve = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATABASE_URL: tdb.url as string,
        PAYLINKS_ENV: 'production',
        PAYLINKS_SECRET_KEY: 'cd'.repeat(32),
        PUBLIC_BASE_URL: 'https://pay.example.com',
        PAYLINKS_TRUST_PROXY: '127.0.0.1',
      },
    });
    serve.stdout?.on('data', (d: Buffer) => (serveOut += d.toString()));
    serve.stderr?.on('data', (d: Buffer) => (serveOut += d.toString()));
    await waitFor(
      'serve',
      () => serve?.exitCode === null && /listening on http:\/\/\S+:(\d+)/.test(serveOut),
      () => serveOut,
    );
    const upstreamPort = Number(/listening on http:\/\/\S+:(\d+)/.exec(serveOut)?.[1]);

    await writeFile(join(dir, 'nginx.conf'), nginxConfig(dir, port, upstreamPort));
    nginx = spawn(NGINX as string, ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stdout?.on('data', (d: Buffer) => (nginxOut += d.toString()));
    nginx.stderr?.on('data', (d: Buffer) => (nginxOut += d.toString()));
    await waitFor(
      'nginx',
      async () => {
        if (nginx?.exitCode !== null)
          throw new Error(`nginx exited ${String(nginx?.exitCode)}:\n${nginxOut}${await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')}`);
        return https('GET', '/healthz').then(
          (r) => r.status === 200,
          () => false,
        );
      },
      () => nginxOut,
    );
  }, 120_000);

  afterAll(async () => {
    // nginx first (SIGQUIT: its graceful stop), then serve (SIGTERM: its drain); each by its own PID.
    await stop(nginx, 'SIGQUIT');
    const code = await stop(serve, 'SIGTERM');
    await tdb?.drop();
    await rm(dir, { recursive: true, force: true });
    expect(code, serveOut).toBe(0);
  }, 60_000);

  it('answers /healthz and /readyz over https, with Strict-Transport-Security in production', async () => {
    const health = await https('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });
    expect(health.headers['strict-transport-security']).toBe(`max-age=${HSTS_MAX_AGE_SECONDS}`);
    const ready = await https('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.headers['strict-transport-security']).toBe(`max-age=${HSTS_MAX_AGE_SECONDS}`);
  });

  it('serves the API through the proxy', async () => {
    const created = await https('POST', '/api/v1/paymentlinks/create', {
      headers: { 'x-api-key': merchant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'PayByLink',
        terminalIdentifier: merchant.terminalIdentifier,
        amount: 1500,
        currency: 'ISK',
        description: 'Through nginx',
        items: [{ name: 'Thing', quantity: 1, unitPrice: 1500, amountWithoutDiscount: 1500, amount: 1500 }],
      }),
    });
    expect(created.status, created.body).toBe(200);
    const body = JSON.parse(created.body) as { paymentLinkReference: string; paymentLinkUrl?: string };
    const got = await https('GET', `/api/v1/paymentlinks/${body.paymentLinkReference}`, { headers: { 'x-api-key': merchant.apiKey } });
    expect(got.status).toBe(200);
    expect(got.headers['strict-transport-security']).toBe(`max-age=${HSTS_MAX_AGE_SECONDS}`);
    // Without a key: the API's own error answer, carried back by the proxy.
    const refused = await https('GET', `/api/v1/paymentlinks/${body.paymentLinkReference}`);
    expect(refused.status).toBe(401);
  });

  it('the sign-in throttle counts each client by the address nginx forwards, and ignores one a client sends', async () => {
    const email = 'guessed.through.nginx@example.com';
    for (let i = 0; i < THROTTLE.perAccountAndAddress.failures; i++) {
      // A guesser at 127.0.0.2 names a new address each time: nginx overwrites it with the real one.
      expect(await wrongPassword(email, '127.0.0.2', { 'x-forwarded-for': `203.0.113.${i + 1}` })).toBe(401);
    }
    expect(await wrongPassword(email, '127.0.0.2', { 'x-forwarded-for': '203.0.113.99' })).toBe(429);
    // Another client (127.0.0.3) behind the same proxy is not locked out by the first one's failures.
    expect(await wrongPassword(email, '127.0.0.3')).toBe(401);
  });
});
