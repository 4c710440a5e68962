// A paylinks webhook receiver with Fastify: both checks of interface.md 5.2, duplicates handled once
// (6.1), and a 200 as soon as the event is recorded (the service counts only a 200 within 15 s).
//
//   WEBHOOK_API_KEY=... WEBHOOK_HMAC_KEY=... PORT=3000 npx tsx examples/fastify-receiver.ts
//
// The two keys are the apiKey and hmacKey that webhooks.register (or `paylinks webhooks register`)
// printed once. The service only delivers to https URLs: run this behind your TLS proxy, or give it
// TLS_KEY_FILE and TLS_CERT_FILE to serve https itself.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { handleOnce, InMemoryEventStore, verifyWebhook, WebhookVerificationError, type ProcessedEventStore, type WebhookMessage } from '@paylinks/sdk';

export interface ReceiverOptions {
  /** The webhook's apiKey: every delivery carries it as the raw Authorization header. */
  apiKey: string;
  /** The webhook's hmacKey (hex): signs hmacSignature. */
  hmacKey: string;
  /**
   * Called once per event. Keep it quick: record the event (a row, a queue message) and do the slow
   * work after answering. If it throws, the receiver answers 500 and the service tries again later.
   */
  onEvent: (message: WebhookMessage) => void | Promise<void>;
  /** Where handled events are remembered; use your database in production (see the SDK README). */
  store?: ProcessedEventStore;
  /** Serve https with this key and certificate (PEM); default plain http behind a TLS proxy. */
  tls?: { key: string; cert: string };
  path?: string;
}

export function buildFastifyReceiver(options: ReceiverOptions): FastifyInstance<Server> {
  const store = options.store ?? new InMemoryEventStore();
  const tls = options.tls;
  const app = Fastify({
    logger: false,
    serverFactory: (handler) => (tls ? createHttpsServer(tls, handler) : createHttpServer(handler)),
  });

  // Verify against the body as received: keep the raw bytes instead of Fastify's parsed JSON.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post(options.path ?? '/webhooks/paylinks', async (request, reply) => {
    let message: WebhookMessage;
    try {
      message = verifyWebhook({ rawBody: request.body as Buffer, headers: request.headers, apiKey: options.apiKey, hmacKey: options.hmacKey });
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      request.log.warn({ reason: err.reason }, 'webhook refused');
      return reply.code(err.reason === 'malformed_body' ? 400 : 401).send({ error: err.reason });
    }
    // A duplicate (a retry or a redelivery of an event already handled) is answered 200 too, so the
    // service stops sending it.
    const outcome = await handleOnce(store, message, options.onEvent);
    return reply.code(200).send({ received: true, duplicate: outcome.duplicate });
  });

  return app;
}

// Run directly: a receiver that logs each event.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { WEBHOOK_API_KEY, WEBHOOK_HMAC_KEY, PORT, TLS_KEY_FILE, TLS_CERT_FILE } = process.env;
  if (!WEBHOOK_API_KEY || !WEBHOOK_HMAC_KEY) {
    console.error('set WEBHOOK_API_KEY and WEBHOOK_HMAC_KEY to the keys webhooks.register returned');
    process.exit(2);
  }
  const app = buildFastifyReceiver({
    apiKey: WEBHOOK_API_KEY,
    hmacKey: WEBHOOK_HMAC_KEY,
    ...(TLS_KEY_FILE && TLS_CERT_FILE ? { tls: { key: readFileSync(TLS_KEY_FILE, 'utf8'), cert: readFileSync(TLS_CERT_FILE, 'utf8') } } : {}),
    onEvent: (m) => {
      console.log(`${m.additionalData?.eventType ?? 'event'} ${m.payfacReference} ${m.amount} ${m.currency} success=${m.success}`);
    },
  });
  const address = await app.listen({ port: Number(PORT ?? 3000), host: '0.0.0.0' });
  console.log(`listening on ${address}/webhooks/paylinks`);
}
