import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, type Command } from 'commander';
import type { Dispatcher, request as undiciRequest } from 'undici';
import { PaylinksApiError, PaylinksNetworkError, type ListenerAttempt, type ListenerAttemptReport, type Paylinks } from '@paylinks/sdk';
import { action, baseUrlOf, client, UsageError, withClient, type ClientFlags } from './client.js';
import { EVENT_TYPES, parseEventTypes } from './webhooks.js';

// `paylinks listen --forward-to <url>`: webhooks on a developer's own machine, the way Stripe's CLI
// does it. A listener webhook is registered (or one left behind by an earlier run reused); the CLI
// opens a stream to the service, which sends each attempt of the listener's deliveries down it; the
// CLI posts the exact body and headers to the local URL and reports the answer, and the service
// records the attempt with it (retried on the usual schedule when it is not a 200). No inbound port
// is needed here, so it works against a remote service too. Ctrl-C removes the listener.
//
// It does not die silently: the service sends a keep-alive comment every 15 seconds, and a stream
// that brings nothing for --silence-timeout (45 s: three keep-alives missed) is taken as dead (a
// laptop that slept, a network that dropped without closing the socket) and opened again, under the
// same session, so the service lets the new stream replace the one it still holds. After
// --max-reconnects failed attempts in a row it gives up with a message that says what to check,
// and keeps the listener: what waits for it goes to the next `paylinks listen` (docs/listen.md).

const FORWARD_TIMEOUT_MS = 15_000;
const BODY_LIMIT = 64 * 1024;
const SILENCE_TIMEOUT_S = 45;
const MAX_RECONNECTS = 10;
/** The wait before the next attempt doubles from the first to the last (real time: only this process cares). */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

interface ListenFlags extends ClientFlags {
  forwardTo: string;
  events?: string;
  insecure?: boolean;
  silenceTimeout: number;
  maxReconnects: number;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n <= 0 || n > 86_400) throw new InvalidArgumentError('must be a number of seconds above 0, at most 86400');
  return n;
}

function count(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 1_000_000) throw new InvalidArgumentError('must be a whole number from 0 (never give up) to 1000000');
  return Number(value);
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
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

/** The HTTP client that forwards, imported when `listen` starts (not by every command of the CLI). */
interface Forwarder {
  dispatcher: Dispatcher;
  request: typeof undiciRequest;
}

/** Posts one attempt to the local receiver, exactly as the service would, and reads its answer. */
async function forward(
  { dispatcher, request }: Forwarder,
  url: URL,
  attempt: ListenerAttempt,
): Promise<Omit<ListenerAttemptReport, 'deliveryId' | 'attemptToken'>> {
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
    .option(
      '--silence-timeout <seconds>',
      'a stream that brings nothing for this long (the service sends a keep-alive every 15 s) is taken as dead and opened again',
      seconds,
      SILENCE_TIMEOUT_S,
    )
    .option(
      '--max-reconnects <n>',
      'give up, exiting 1 with what to check, after this many failed attempts in a row to connect (a connection that opens resets the count; 0: never give up)',
      count,
      MAX_RECONNECTS,
    )
    .action(
      action(async (o: ListenFlags) => {
        const target = forwardUrl(o.forwardTo);
        const eventTypes = o.events === undefined ? [] : parseEventTypes(o.events, (m) => new UsageError(m));
        const paylinks = client(o);
        const { Agent, request } = await import('undici');
        const forwarder: Forwarder = { dispatcher: new Agent({ connect: o.insecure ? { rejectUnauthorized: false } : {} }), request };
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
          const answer = await forward(forwarder, target, attempt);
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

        // One name for this run's streams: after a connection that died without closing, the service
        // still holds the old stream, and only the same session may replace it (another gets a 409).
        const session = randomUUID();
        const silenceMs = Math.round(o.silenceTimeout * 1000);
        let backoff = FIRST_BACKOFF_MS;
        let failures = 0;
        let failingSince = 0;
        let lastError = '';
        let lost = false;
        while (!stop.signal.aborted) {
          const attemptStarted = Date.now();
          let opened = false;
          let problem: string;
          try {
            webhookId ??= await register();
            for await (const e of paylinks.webhooks.listen(webhookId, { signal: stop.signal, silenceMs, session })) {
              if (e.type === 'ready') {
                opened = true;
                failures = 0;
                backoff = FIRST_BACKOFF_MS;
                if (lost) process.stderr.write(`paylinks: connected again to ${baseUrlOf(o)}\n`);
                lost = false;
              } else void handle(webhookId, e.attempt).catch((err: unknown) => process.stderr.write(`paylinks: ${(err as Error).message}\n`));
            }
            if (stop.signal.aborted) break;
            problem = 'the service ended the stream';
          } catch (err) {
            if (stop.signal.aborted) break;
            if (err instanceof PaylinksApiError && err.status === 404) {
              // The listener was deleted (by someone, or the service's data was reset): make another.
              webhookId = undefined;
            } else if (err instanceof PaylinksApiError && err.status !== 409 && err.status < 500 && err.status !== 429) {
              throw err;
            }
            problem =
              err instanceof PaylinksNetworkError && err.timedOut && opened
                ? `nothing came from the service for ${o.silenceTimeout} s, not even its keep-alive: the connection is taken as dead`
                : (err as Error).message;
          }
          lost = true;
          lastError = problem;
          if (!opened) {
            if (failures === 0) failingSince = attemptStarted;
            failures++;
          }
          if (o.maxReconnects > 0 && failures >= o.maxReconnects) {
            giveUp(o, failures, Date.now() - failingSince, lastError, webhookId);
            await forwarder.dispatcher.close();
            process.exit(1);
          }
          const limit = o.maxReconnects > 0 && failures > 0 ? ` (failed attempts in a row: ${failures} of ${o.maxReconnects})` : '';
          process.stderr.write(`paylinks: ${problem}; connecting again in ${(backoff / 1000).toString()} s${limit}\n`);
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
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        }

        if (webhookId !== undefined) await removeListener(paylinks, webhookId, o);
        await forwarder.dispatcher.close();
        process.exit(0);
      }),
    );
}

/** Says on stderr, in plain words, why listen stops: what it tried, how often, the last error, what to check. */
function giveUp(o: ListenFlags, failures: number, failingMs: number, lastError: string, webhookId: string | undefined): void {
  const lines = [
    `paylinks: listen gave up: ${failures === 1 ? '1 attempt' : `${failures} attempts in a row`} to connect to the service at ${baseUrlOf(o)} failed, over ${duration(failingMs)}.`,
    `  The last error: ${lastError}`,
    '  Check that the service is running and that this machine reaches it at that address (--base-url, or PAYLINKS_BASE_URL),',
    '  then run paylinks listen again (--max-reconnects sets how many attempts it makes; 0 never gives up).',
  ];
  if (webhookId !== undefined)
    lines.push(
      `  The listener ${webhookId} is kept: its deliveries wait for it, and the next paylinks listen with this key and these events`,
      '  takes it over, with the same secrets, once the service has had no stream of it open for a minute.',
    );
  process.stderr.write(`${lines.join('\n')}\n`);
}

async function removeListener(paylinks: Paylinks, webhookId: string, o: ListenFlags): Promise<void> {
  try {
    await paylinks.webhooks.delete(webhookId, { maxRetries: 1, timeoutMs: 5_000 });
    out(o.json ? JSON.stringify({ type: 'removed', webhookId }) : `Removed listener ${webhookId}.`);
  } catch (err) {
    process.stderr.write(`paylinks: could not remove listener ${webhookId} (${(err as Error).message}); the next listen reuses it after a minute\n`);
  }
}
