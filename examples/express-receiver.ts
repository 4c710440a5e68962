// A paylinks webhook receiver with Express: both checks of interface.md 5.2, duplicates handled once
// (6.1), and a 200 as soon as the event is recorded (the service counts only a 200 within 15 s).
//
//   WEBHOOK_API_KEY=... WEBHOOK_HMAC_KEY=... PORT=3000 npx tsx examples/express-receiver.ts
//
// The two keys are the apiKey and hmacKey that webhooks.register (or `paylinks webhooks register`)
// printed once. The service only delivers to https URLs: run this behind your TLS proxy, or give it
// TLS_KEY_FILE and TLS_CERT_FILE to serve https itself.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { pathToFileURL } from 'node:url';
import express, { type Express } from 'express';
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
  path?: string;
}

export function buildExpressReceiver(options: ReceiverOptions): Express {
  const store = options.store ?? new InMemoryEventStore();
  const app = express();

  // express.raw keeps the body as the bytes received (a Buffer): verify those, not re-serialised JSON.
  app.post(options.path ?? '/webhooks/paylinks', express.raw({ type: 'application/json', limit: '1mb' }), async (req, res) => {
    let message: WebhookMessage;
    try {
      message = verifyWebhook({ rawBody: Buffer.isBuffer(req.body) ? req.body : '', headers: req.headers, apiKey: options.apiKey, hmacKey: options.hmacKey });
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      res.status(err.reason === 'malformed_body' ? 400 : 401).json({ error: err.reason });
      return;
    }
    try {
      // A duplicate (a retry or a redelivery of an event already handled) is answered 200 too.
      const outcome = await handleOnce(store, message, options.onEvent);
      res.status(200).json({ received: true, duplicate: outcome.duplicate });
    } catch {
      res.status(500).json({ error: 'not recorded; send it again' });
    }
  });

  return app;
}

/** The app on its own server: https with a key and certificate (PEM), else http behind a TLS proxy. */
export function createReceiverServer(app: Express, tls?: { key: string; cert: string }): Server {
  return tls ? createHttpsServer(tls, app) : createHttpServer(app);
}

// Run directly: a receiver that logs each event.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { WEBHOOK_API_KEY, WEBHOOK_HMAC_KEY, PORT, TLS_KEY_FILE, TLS_CERT_FILE } = process.env;
  if (!WEBHOOK_API_KEY || !WEBHOOK_HMAC_KEY) {
    console.error('set WEBHOOK_API_KEY and WEBHOOK_HMAC_KEY to the keys webhooks.register returned');
    process.exit(2);
  }
  const app = buildExpressReceiver({
    apiKey: WEBHOOK_API_KEY,
    hmacKey: WEBHOOK_HMAC_KEY,
    onEvent: (m) => {
      console.log(`${m.additionalData?.eventType ?? 'event'} ${m.payfacReference} ${m.amount} ${m.currency} success=${m.success}`);
    },
  });
  const tls = TLS_KEY_FILE && TLS_CERT_FILE ? { key: readFileSync(TLS_KEY_FILE, 'utf8'), cert: readFileSync(TLS_CERT_FILE, 'utf8') } : undefined;
  const port = Number(PORT ?? 3000);
  createReceiverServer(app, tls).listen(port, () => console.log(`listening on port ${port}, POST /webhooks/paylinks`));
}
