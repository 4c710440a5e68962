import type { Command } from 'commander';
import { Agent, request, type Dispatcher } from 'undici';
import { PaylinksApiError, PaylinksNetworkError, type ListenerAttempt, type ListenerAttemptReport, type Paylinks } from '@paylinks/sdk';
import { action, client, UsageError, withClient, type ClientFlags } from './client.js';
import { EVENT_TYPES, parseEventTypes } from './webhooks.js';

// `paylinks listen --forward-to <url>`: webhooks on a developer's own machine, the way Stripe's CLI
// does it. A listener webhook is registered (or one left behind by an earlier run reused); the CLI
// opens a stream to the service, which sends each attempt of the listener's deliveries down it; the
// CLI posts the exact body and headers to the local URL and reports the answer, and the service
// records the attempt with it (retried on the usual schedule when it is not a 200). No inbound port
// is needed here, so it works against a remote service too. Ctrl-C removes the listener.

const FORWARD_TIMEOUT_MS = 15_000;
const BODY_LIMIT = 64 * 1024;

interface ListenFlags extends ClientFlags {
  forwardTo: string;
  events?: string;
  insecure?: boolean;
}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function forwardUrl(raw: string): URL {
  const problem = new UsageError(`--forward-to must be an absolute http or https URL, e.g. http://localhost:3000/webhooks (got ${raw})`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw problem;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw problem;
  return u;
}

/** Posts one attempt to the local receiver, exactly as the service would, and reads its answer. */
async function forward(dispatcher: Dispatcher, url: URL, attempt: ListenerAttempt): Promise<Omit<ListenerAttemptReport, 'deliveryId' | 'attemptToken'>> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(FORWARD_TIMEOUT_MS);
  let status: number | null = null;
  try {
    const res = await request(url, { method: 'POST', headers: attempt.headers, body: attempt.body, dispatcher, signal });
    status = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (size < BODY_LIMIT) {
        const part = chunk.subarray(0, BODY_LIMIT - size);
        chunks.push(part);
        size += part.length;
      }
    }
    const body = Buffer.concat(chunks).toString('utf8');
    return { responseStatus: status, responseBody: body, durationMs: elapsed(), errorKind: status === 200 ? null : 'status', errorDetail: null };
  } catch (err) {
    if (signal.aborted)
      return {
        responseStatus: status,
        responseBody: null,
        durationMs: elapsed(),
        errorKind: 'timeout',
        errorDetail: `no complete response within ${FORWARD_TIMEOUT_MS} ms`,
      };
    const code = (err as { code?: unknown }).code;
    const text = typeof code === 'string' ? `${code}: ${(err as Error).message}` : (err as Error).message;
    const tls = typeof code === 'string' && /CERT|SSL|TLS|SELF_SIGNED|EPROTO/.test(code);
    return { responseStatus: status, responseBody: null, durationMs: elapsed(), errorKind: tls ? 'tls' : 'connection', errorDetail: text.slice(0, 500) };
  }
}

function timeOfDay(): string {
  return new Date().toISOString().slice(11, 19);
}

export function registerListen(program: Command): void {
  withClient(
    program
      .command('listen')
      .description(
        "receive the service's webhook deliveries on this machine: registers a listener webhook, forwards each delivery (exact body and headers) to a local URL and reports its answer; Ctrl-C removes the listener",
      ),
  )
    .requiredOption('--forward-to <url>', 'where to post each delivery, e.g. http://localhost:3000/webhooks')
    .option('--events <types>', `comma-separated event types to receive (default all): ${EVENT_TYPES.join(',')}`)
    .option('--insecure', 'accept any certificate from an https --forward-to (a local receiver with a self-signed certificate)')
    .action(
      action(async (o: ListenFlags) => {
        const target = forwardUrl(o.forwardTo);
        const eventTypes = o.events === undefined ? [] : parseEventTypes(o.events, (m) => new UsageError(m));
        const paylinks = client(o);
        const dispatcher = new Agent({ connect: o.insecure ? { rejectUnauthorized: false } : {} });
        const stop = new AbortController();
        let webhookId: string | undefined;

        const line = (human: string, json: Record<string, unknown>): void => out(o.json ? JSON.stringify(json) : human);

        const register = async (): Promise<string> => {
          const l = await paylinks.webhooks.registerListener({ eventTypes, description: `paylinks listen → ${target.href}` });
          line(
            [
              `Ready. Deliveries of webhook ${l.webhookId} go to ${target.href}${l.reused ? ' (a listener left by an earlier run, reused)' : ''}`,
              `  events   ${l.eventTypes.length === 0 ? 'all' : l.eventTypes.join(', ')}`,
              `  apiKey   ${l.apiKey}   (the Authorization header your receiver gets)`,
              `  hmacKey  ${l.hmacKey}   (verifies hmacSignature)`,
              `  signingSecret  ${l.signingSecret}   (verifies the Standard Webhooks webhook-signature header)`,
              'Press Ctrl-C to stop and remove the listener.',
            ].join('\n'),
            {
              type: 'ready',
              webhookId: l.webhookId,
              forwardTo: target.href,
              eventTypes: l.eventTypes,
              apiKey: l.apiKey,
              hmacKey: l.hmacKey,
              signingSecret: l.signingSecret,
              reused: l.reused,
            },
          );
          return l.webhookId;
        };

        const handle = async (id: string, attempt: ListenerAttempt): Promise<void> => {
          const answer = await forward(dispatcher, target, attempt);
          let recorded = true;
          try {
            await paylinks.webhooks.reportAttempt(id, { deliveryId: attempt.deliveryId, attemptToken: attempt.attemptToken, ...answer });
          } catch (err) {
            if (!(err instanceof PaylinksApiError || err instanceof PaylinksNetworkError)) throw err;
            recorded = false;
          }
          const outcome = answer.responseStatus !== null ? `${answer.responseStatus}` : `${answer.errorKind}: ${answer.errorDetail ?? ''}`;
          line(
            `${timeOfDay()}  ${attempt.eventType.padEnd(13)}  ${attempt.payfacReference}  ${attempt.deliveryId}  attempt ${attempt.attemptNumber}  → ${outcome} (${answer.durationMs} ms)${recorded ? '' : '  [not recorded: the service stopped waiting]'}`,
            {
              type: 'attempt',
              deliveryId: attempt.deliveryId,
              eventType: attempt.eventType,
              payfacReference: attempt.payfacReference,
              attemptNumber: attempt.attemptNumber,
              correlationId: attempt.correlationId,
              forwardedTo: target.href,
              ...answer,
              recorded,
            },
          );
        };

        const shutdown = (): void => stop.abort();
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);

        let backoff = 500;
        while (!stop.signal.aborted) {
          try {
            webhookId ??= await register();
            for await (const e of paylinks.webhooks.listen(webhookId, { signal: stop.signal })) {
              backoff = 500;
              if (e.type === 'attempt')
                void handle(webhookId, e.attempt).catch((err: unknown) => process.stderr.write(`paylinks: ${(err as Error).message}\n`));
            }
            if (stop.signal.aborted) break;
            process.stderr.write('paylinks: the service ended the stream; reconnecting\n');
          } catch (err) {
            if (stop.signal.aborted) break;
            if (err instanceof PaylinksApiError && err.status === 404) {
              // The listener was deleted (by someone, or the service's data was reset): make another.
              webhookId = undefined;
            } else if (err instanceof PaylinksApiError && err.status !== 409 && err.status < 500 && err.status !== 429) {
              throw err;
            } else {
              process.stderr.write(`paylinks: ${(err as Error).message}; reconnecting\n`);
            }
          }
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, backoff);
            stop.signal.addEventListener(
              'abort',
              () => {
                clearTimeout(t);
                resolve();
              },
              { once: true },
            );
          });
          backoff = Math.min(backoff * 2, 10_000);
        }

        if (webhookId !== undefined) await removeListener(paylinks, webhookId, o);
        await dispatcher.close();
        process.exit(0);
      }),
    );
}

async function removeListener(paylinks: Paylinks, webhookId: string, o: ListenFlags): Promise<void> {
  try {
    await paylinks.webhooks.delete(webhookId, { maxRetries: 1, timeoutMs: 5_000 });
    out(o.json ? JSON.stringify({ type: 'removed', webhookId }) : `Removed listener ${webhookId}.`);
  } catch (err) {
    process.stderr.write(`paylinks: could not remove listener ${webhookId} (${(err as Error).message}); the next listen reuses it after a minute\n`);
  }
}
