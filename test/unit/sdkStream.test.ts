import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Paylinks, PaylinksNetworkError, type ListenerEvent } from '@paylinks/sdk';

// The SDK's listener stream against a scripted server: a stream that brings nothing for `silenceMs`
// is given up with a timed-out network error, keep-alive comments count as something, and the
// session goes to the service with the request.

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Paylinks> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return new Paylinks({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'pk_test' });
}

const eventStream = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
};

describe('webhooks.listen silence', () => {
  it('keeps a stream whose keep-alive comments come more often than the silence limit', async () => {
    let url = '';
    const client = await serve((req, res) => {
      url = req.url ?? '';
      eventStream(res);
      res.write('event: ready\ndata: {}\n\n');
      const beat = setInterval(() => res.write(': keep-alive\n\n'), 50);
      setTimeout(() => {
        clearInterval(beat);
        res.end();
      }, 700);
    });
    const started = Date.now();
    const events: ListenerEvent[] = [];
    for await (const e of client.webhooks.listen('wh_1', { silenceMs: 300, session: 'run-1' })) events.push(e);
    expect(events).toEqual([{ type: 'ready', webhookId: 'wh_1' }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(650);
    expect(url).toBe('/api/v1/webhooks/wh_1/listen?session=run-1');
  });

  it('gives up a stream that went silent after it opened', async () => {
    const client = await serve((_req, res) => {
      eventStream(res);
      res.write('event: ready\ndata: {}\n\n');
    });
    const stream = client.webhooks.listen('wh_1', { silenceMs: 300 });
    expect((await stream.next()).value).toEqual({ type: 'ready', webhookId: 'wh_1' });
    const started = Date.now();
    const err = await stream.next().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaylinksNetworkError);
    expect(err).toMatchObject({ timedOut: true, message: 'GET /api/v1/webhooks/wh_1/listen: nothing came for 300 ms (the connection went silent)' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('gives up a request that the service never answers', async () => {
    const client = await serve(() => undefined);
    const err = await client.webhooks
      .listen('wh_1', { silenceMs: 300 })
      .next()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'PaylinksNetworkError', timedOut: true });
  });

  it('waits as long as it takes without silenceMs, and ends quietly when its signal aborts', async () => {
    const client = await serve((_req, res) => {
      eventStream(res);
      res.write('event: ready\ndata: {}\n\n');
    });
    const stop = new AbortController();
    const stream = client.webhooks.listen('wh_1', { signal: stop.signal });
    expect((await stream.next()).value).toEqual({ type: 'ready', webhookId: 'wh_1' });
    setTimeout(() => stop.abort(), 400);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });
});
