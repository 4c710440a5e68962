import { randomUUID } from 'node:crypto';
import { apiErrorFor, PaylinksApiError, PaylinksNetworkError, type FieldError } from './errors.js';
import type * as t from './types.js';

// The HTTP client (docs/style.md, The SDK): X-API-Key on every call,
// an Idempotency-Key on every create, typed errors by status family, and retries with
// jittered exponential backoff, bounded in count, only where a retry cannot do something twice.

export const SDK_VERSION = '0.1.0';

export interface PaylinksOptions {
  /** The merchant's API key (sent as X-API-Key, Authentication). */
  apiKey: string;
  /** The service's base address, e.g. `https://pay.example.com`; `/api/v1` is added unless present. */
  baseUrl: string;
  /** Retries after the first attempt; default 2. 0 turns retries off. */
  maxRetries?: number;
  /** Per attempt, in milliseconds; default 30 000. */
  timeoutMs?: number;
  /** First backoff step; default 500 ms, doubling per retry up to retryMaxDelayMs (default 8 000 ms). */
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** A Retry-After longer than this is not waited out: the error is thrown. Default 60 000 ms. */
  maxRetryAfterMs?: number;
  /** Replaces the global fetch (a proxy agent, a test double). */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Randomness of the jitter, in [0, 1); default Math.random. */
  random?: () => number;
  /** How to wait between attempts; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  /** For creates: your own key; default a new UUID per call, reused by that call's retries. */
  idempotencyKey?: string;
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * How a call may be retried.
 * - `safe`: reads, creates under an Idempotency-Key, and operations whose repetition changes nothing
 *   further (update, disable, delete, rotate): any network error, 409 in progress, 429 and 5xx.
 * - `once`: operations the service does not deduplicate (modifications, redeliver, sandbox events): only when the service certainly did not act, i.e. 429, 503, or a connection
 *   that was never made. A timeout or a 500 may hide a request that was carried out.
 */
type RetryKind = 'safe' | 'once';

interface Call {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  retry: RetryKind;
  /** A create: gets an Idempotency-Key. */
  create?: boolean;
  /** The answer is a text of this media type (a CSV download), not JSON: it is answered as it came. */
  text?: string;
}

const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function causeCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Retry-After: delay-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const enc = encodeURIComponent;

class Transport {
  readonly #apiKey: string;
  readonly #base: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #baseDelay: number;
  readonly #maxDelay: number;
  readonly #maxRetryAfter: number;
  readonly #headers: Record<string, string>;
  readonly #random: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(o: PaylinksOptions) {
    if (typeof o.apiKey !== 'string' || o.apiKey === '') throw new TypeError('Paylinks: apiKey is required');
    if (typeof o.baseUrl !== 'string' || !/^https?:\/\//i.test(o.baseUrl)) throw new TypeError('Paylinks: baseUrl must be an http(s) URL');
    this.#apiKey = o.apiKey;
    const base = o.baseUrl.replace(/\/+$/, '');
    this.#base = /\/api\/v1$/.test(base) ? base : `${base}/api/v1`;
    this.#fetch = o.fetch ?? globalThis.fetch;
    this.#maxRetries = o.maxRetries ?? 2;
    this.#timeoutMs = o.timeoutMs ?? 30_000;
    this.#baseDelay = o.retryBaseDelayMs ?? 500;
    this.#maxDelay = o.retryMaxDelayMs ?? 8_000;
    this.#maxRetryAfter = o.maxRetryAfterMs ?? 60_000;
    this.#headers = { ...o.headers };
    this.#random = o.random ?? Math.random;
    this.#sleep = o.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Exponential backoff with "equal jitter": half the step fixed, half random, so retries spread out. */
  #backoff(retry: number): number {
    const step = Math.min(this.#maxDelay, this.#baseDelay * 2 ** retry);
    return step / 2 + this.#random() * (step / 2);
  }

  async request<T>(call: Call, options: RequestOptions = {}): Promise<T> {
    const url = new URL(this.#base + call.path);
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      accept: call.text ?? 'application/json',
      'user-agent': `paylinks-sdk/${SDK_VERSION} node/${process.version}`,
      ...this.#headers,
      'x-api-key': this.#apiKey,
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    // One key for the call and all its retries: a retry after a lost response gets the first answer.
    if (call.create) headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const maxRetries = options.maxRetries ?? this.#maxRetries;

    for (let retry = 0; ; retry++) {
      const attempt = await this.#attempt(call.method, url, headers, body, options, call.text !== undefined);
      if (attempt.ok) return attempt.value as T;
      const err = attempt.error;
      const wait = retry < maxRetries ? this.#retryDelay(err, call.retry, retry) : null;
      if (wait === null) throw err;
      await this.#sleep(wait);
    }
  }

  /**
   * Opens a Server-Sent Events stream and yields its events until it ends or `signal` aborts. A refusal
   * (4xx, 5xx) throws the same typed errors as any call; a stream is never retried here. With
   * `silenceMs`, a stream that brings no byte (not even a comment) for that long, from the request on,
   * is closed and throws a PaylinksNetworkError with `timedOut`: a connection that died without closing
   * (a laptop that slept, a network that dropped) otherwise waits for ever.
   */
  async *stream(path: string, signal?: AbortSignal, silenceMs?: number): AsyncGenerator<{ event: string; data: string }, void, undefined> {
    const url = new URL(this.#base + path);
    const headers = {
      accept: 'text/event-stream',
      'user-agent': `paylinks-sdk/${SDK_VERSION} node/${process.version}`,
      ...this.#headers,
      'x-api-key': this.#apiKey,
    };
    const silence = new AbortController();
    let silenceTimer: ReturnType<typeof setTimeout> | undefined;
    const heard = (): void => {
      if (silenceMs === undefined) return;
      clearTimeout(silenceTimer);
      silenceTimer = setTimeout(() => silence.abort(), silenceMs);
    };
    const silentFor = (): PaylinksNetworkError =>
      new PaylinksNetworkError(`GET ${url.pathname}: nothing came for ${silenceMs} ms (the connection went silent)`, true);
    const aborts = signal ? AbortSignal.any([signal, silence.signal]) : silence.signal;
    heard();
    try {
      let res: Response;
      try {
        res = await this.#fetch(url, { method: 'GET', headers, signal: aborts });
      } catch (cause) {
        if (signal?.aborted) return;
        if (silence.signal.aborted) throw silentFor();
        throw new PaylinksNetworkError(`GET ${url.pathname}: ${causeCode(cause) ?? (cause instanceof Error ? cause.message : String(cause))}`, false, {
          cause,
        });
      }
      if (!res.ok || res.body === null) {
        clearTimeout(silenceTimer);
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        throw apiErrorFor(this.#errorInit(res.status, text, parsed, parseRetryAfter(res.headers.get('retry-after'))));
      }
      const decoder = new TextDecoder();
      let buffer = '';
      let event = 'message';
      let data: string[] = [];
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          heard();
          buffer += decoder.decode(chunk, { stream: true });
          let nl: number;
          while ((nl = buffer.indexOf('\n')) !== -1) {
            const line = buffer.slice(0, nl).replace(/\r$/, '');
            buffer = buffer.slice(nl + 1);
            if (line === '') {
              if (data.length > 0) yield { event, data: data.join('\n') };
              event = 'message';
              data = [];
            } else if (line.startsWith(':')) {
              // a comment: keeps the connection alive
            } else {
              const colon = line.indexOf(':');
              const field = colon === -1 ? line : line.slice(0, colon);
              const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'event') event = value;
              else if (field === 'data') data.push(value);
            }
          }
        }
      } catch (cause) {
        if (signal?.aborted) return;
        if (silence.signal.aborted) throw silentFor();
        throw new PaylinksNetworkError(
          `GET ${url.pathname}: the stream broke (${causeCode(cause) ?? (cause instanceof Error ? cause.message : String(cause))})`,
          false,
          { cause },
        );
      }
    } finally {
      clearTimeout(silenceTimer);
    }
  }

  /** Milliseconds to wait before retrying after `err`, or null when it must not be retried. */
  #retryDelay(err: PaylinksApiError | PaylinksNetworkError, kind: RetryKind, retry: number): number | null {
    if (err instanceof PaylinksNetworkError) {
      const retriable = kind === 'safe' || (!err.timedOut && NOT_CONNECTED.has(causeCode(err.cause) ?? ''));
      return retriable ? this.#backoff(retry) : null;
    }
    const s = err.status;
    let retriable: boolean;
    if (s === 429 || s === 503) retriable = true;
    else if (kind === 'once') retriable = false;
    // This service records idempotency keys in the create's own transaction, so a concurrent duplicate
    // waits and gets the first response: there is no "in progress" 409 today. Retry one only if the
    // code says so; never IDEMPOTENCY_KEY_REUSED, INVALID_STATE or AUTHORISATION_EXPIRED, which a retry cannot change.
    else if (s === 409) retriable = /IN_PROGRESS/.test(err.code);
    else retriable = s >= 500;
    if (!retriable) return null;
    if (err.retryAfterMs !== null) return err.retryAfterMs <= this.#maxRetryAfter ? err.retryAfterMs : null;
    return this.#backoff(retry);
  }

  async #attempt(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    options: RequestOptions,
    asText = false,
  ): Promise<{ ok: true; value: unknown } | { ok: false; error: PaylinksApiError | PaylinksNetworkError }> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.#timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await this.#fetch(url, { method, headers, ...(body !== undefined ? { body } : {}), signal });
      text = await res.text();
    } catch (cause) {
      // The caller's own abort is not a network failure: no retry, their reason as is.
      if (options.signal?.aborted) throw options.signal.reason;
      const timedOut = timeout.aborted;
      const what = timedOut
        ? `timed out after ${options.timeoutMs ?? this.#timeoutMs} ms`
        : (causeCode(cause) ?? (cause instanceof Error ? cause.message : String(cause)));
      return { ok: false, error: new PaylinksNetworkError(`${method} ${url.pathname}: ${what}`, timedOut, { cause }) };
    }
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
    if (res.ok) {
      if (asText) return { ok: true, value: text };
      if (parsed !== null && typeof parsed === 'object') return { ok: true, value: parsed };
      return {
        ok: false,
        error: new PaylinksApiError(this.#errorInit(res.status, text, undefined, retryAfterMs, 'INVALID_RESPONSE', 'the response is not a JSON object')),
      };
    }
    return { ok: false, error: apiErrorFor(this.#errorInit(res.status, text, parsed, retryAfterMs)) };
  }

  #errorInit(status: number, text: string, parsed: unknown, retryAfterMs: number | null, code?: string, detail?: string) {
    const p = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    const errors: FieldError[] = Array.isArray(p.errors)
      ? (p.errors as unknown[]).filter((e): e is FieldError => e !== null && typeof e === 'object' && typeof (e as FieldError).field === 'string')
      : [];
    return {
      status,
      code: code ?? str(p.code) ?? `HTTP_${status}`,
      title: str(p.title) ?? `HTTP ${status}`,
      detail: detail ?? str(p.detail) ?? str(p.message) ?? (text.slice(0, 200) || `HTTP ${status}`),
      errors,
      responseIdentifier: str(p.responseIdentifier),
      responseDateTime: str(p.responseDateTime),
      retryAfterMs,
      body: parsed ?? text,
    };
  }
}

function pageQuery(p: t.PageParams = {}): Record<string, number | undefined> {
  return { Page: p.page, PageSize: p.pageSize };
}

/** The Payment Links API. */
export class PaymentLinks {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  list(params: t.PageParams = {}, options?: RequestOptions): Promise<t.PaymentLinkList> {
    return this.#http.request({ method: 'GET', path: '/paymentlinks', query: pageQuery(params), retry: 'safe' }, options);
  }

  /** Every page in turn, from page 0 until the last (a short or empty page). */
  async *listPages(params: { pageSize?: number } = {}, options?: RequestOptions): AsyncGenerator<t.PaymentLinkList, void, undefined> {
    const pageSize = params.pageSize ?? 100;
    for (let page = 0; ; page++) {
      const r = await this.list({ page, pageSize }, options);
      yield r;
      if (r.data.length < pageSize || (page + 1) * pageSize >= r.totalCount) return;
    }
  }

  /**
   * Every link, newest first, fetched page by page as the loop asks for more. A link created
   * meanwhile shifts the pages by one; a link already yielded is not yielded again.
   */
  async *listAll(params: { pageSize?: number } = {}, options?: RequestOptions): AsyncGenerator<t.PaymentLinkListEntry, void, undefined> {
    const seen = new Set<string>();
    for await (const page of this.listPages(params, options)) {
      for (const entry of page.data) {
        if (seen.has(entry.paymentLinkReference)) continue;
        seen.add(entry.paymentLinkReference);
        yield entry;
      }
    }
  }

  get(paymentLinkReference: string, options?: RequestOptions): Promise<t.PaymentLinkResponse> {
    return this.#http.request({ method: 'GET', path: `/paymentlinks/${enc(paymentLinkReference)}`, retry: 'safe' }, options);
  }

  create(params: t.CreatePaymentLinkParams, options?: RequestOptions): Promise<t.CreatePaymentLinkResponse> {
    return this.#http.request({ method: 'POST', path: '/paymentlinks/create', body: params, retry: 'safe', create: true }, options);
  }

  update(params: t.UpdatePaymentLinkParams, options?: RequestOptions): Promise<t.Envelope> {
    return this.#http.request({ method: 'POST', path: '/paymentlinks/update', body: params, retry: 'safe' }, options);
  }

  /** Idempotent: disabling a Disabled link succeeds again. */
  disable(paymentLinkReference: string, options?: RequestOptions): Promise<t.Envelope> {
    return this.#http.request({ method: 'POST', path: '/paymentlinks/disable', body: { paymentLinkReference }, retry: 'safe' }, options);
  }
}

/** Hosted checkout, Hosted checkout. */
export class HostedCheckout {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  create(params: t.CreateCheckoutParams, options?: RequestOptions): Promise<t.CreateCheckoutResponse> {
    return this.#http.request({ method: 'POST', path: '/hostedcheckout', body: params, retry: 'safe', create: true }, options);
  }

  status(checkoutReference: string, options?: RequestOptions): Promise<t.CheckoutStatusResponse> {
    return this.#http.request({ method: 'GET', path: `/hostedcheckout/status/${enc(checkoutReference)}`, retry: 'safe' }, options);
  }
}

/** Webhooks. */
export class Webhooks {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  /** The response carries apiKey and hmacKey, shown only here: store them for verifyWebhook. */
  register(params: t.RegisterWebhookParams, options?: RequestOptions): Promise<t.RegisterWebhookResponse> {
    return this.#http.request({ method: 'POST', path: '/webhooks', body: params, retry: 'safe', create: true }, options);
  }

  list(params: t.PageParams = {}, options?: RequestOptions): Promise<t.WebhookList> {
    return this.#http.request({ method: 'GET', path: '/webhooks', query: pageQuery(params), retry: 'safe' }, options);
  }

  get(webhookId: string, options?: RequestOptions): Promise<t.WebhookResponse> {
    return this.#http.request({ method: 'GET', path: `/webhooks/${enc(webhookId)}`, retry: 'safe' }, options);
  }

  update(webhookId: string, params: t.UpdateWebhookParams, options?: RequestOptions): Promise<t.WebhookResponse> {
    return this.#http.request({ method: 'POST', path: `/webhooks/${enc(webhookId)}/update`, body: params, retry: 'safe' }, options);
  }

  delete(webhookId: string, options?: RequestOptions): Promise<t.Envelope> {
    return this.#http.request({ method: 'POST', path: `/webhooks/${enc(webhookId)}/delete`, retry: 'safe' }, options);
  }

  /** Queues the webhook's Failed deliveries of [since, until) again; the same window twice queues once. */
  recover(webhookId: string, window: { since: string; until?: string }, options?: RequestOptions): Promise<t.RecoverResponse> {
    return this.#http.request({ method: 'POST', path: `/webhooks/${enc(webhookId)}/recover`, body: window, retry: 'safe' }, options);
  }

  /**
   * New apiKey, hmacKey and signingSecret, shown only now. For `overlapHours` (default 24, at most 168,
   * 0 for none) deliveries are also signed under the previous key in the webhook-signature header; give
   * your verifier both keys meanwhile (verifyWebhook and verifyStandardWebhook take lists).
   */
  rotateSecrets(webhookId: string, params: { overlapHours?: number } = {}, options?: RequestOptions): Promise<t.RotateSecretsResponse> {
    return this.#http.request(
      { method: 'POST', path: `/webhooks/${enc(webhookId)}/rotate-secrets`, query: { overlapHours: params.overlapHours }, retry: 'safe' },
      options,
    );
  }

  /**
   * A listener webhook: its deliveries come to you over `listen()` instead of to a URL (what
   * `paylinks listen` uses). A listener of yours for the same event types that nobody has listened to
   * for a minute is reused, secrets and all (`reused`). Delete it when you are done.
   */
  registerListener(params: t.RegisterListenerParams = {}, options?: RequestOptions): Promise<t.RegisterListenerResponse> {
    return this.#http.request({ method: 'POST', path: '/webhooks/listeners', body: params, retry: 'once' }, options);
  }

  /**
   * The listener's attempts as they come due, until `signal` aborts or the service ends the stream.
   * Answer each with `reportAttempt` within 20 seconds, or it is recorded as a timeout and retried.
   * `silenceMs`: give up on a stream that brings nothing (the service sends a comment every 15 seconds)
   * for that long, with a PaylinksNetworkError whose `timedOut` is true; the time runs while your loop
   * holds an event too, so hand attempts off rather than await their forwarding in the loop. `session`: any string of yours,
   * the same for each reconnection of one client; a stream of the same session replaces the one the
   * service still holds open (one whose connection died without closing), where another session's
   * stream is refused with 409.
   */
  async *listen(webhookId: string, options: t.ListenOptions = {}): AsyncGenerator<t.ListenerEvent, void, undefined> {
    const query = options.session === undefined ? '' : `?session=${encodeURIComponent(options.session)}`;
    for await (const e of this.#http.stream(`/webhooks/${enc(webhookId)}/listen${query}`, options.signal, options.silenceMs)) {
      if (e.event === 'ready') yield { type: 'ready', webhookId };
      else if (e.event === 'attempt') yield { type: 'attempt', attempt: JSON.parse(e.data) as t.ListenerAttempt };
    }
  }

  /** Records your receiver's answer to a streamed attempt (only 200 delivers it). */
  reportAttempt(webhookId: string, report: t.ListenerAttemptReport, options?: RequestOptions): Promise<t.ListenerAttemptReportResponse> {
    return this.#http.request({ method: 'POST', path: `/webhooks/${enc(webhookId)}/listen/attempts`, body: report, retry: 'once' }, options);
  }
}

/** Deliveries: trace and replay. */
export class Deliveries {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  list(params: t.ListDeliveriesParams = {}, options?: RequestOptions): Promise<t.DeliveryList> {
    const { payfacReference, correlationId, webhookId, state } = params;
    return this.#http.request(
      { method: 'GET', path: '/webhooks/deliveries', query: { ...pageQuery(params), payfacReference, correlationId, webhookId, state }, retry: 'safe' },
      options,
    );
  }

  get(deliveryId: string, options?: RequestOptions): Promise<t.DeliveryResponse> {
    return this.#http.request({ method: 'GET', path: `/webhooks/deliveries/${enc(deliveryId)}`, retry: 'safe' }, options);
  }

  /** A new delivery of the same event to the same webhook, with its own five attempts. */
  redeliver(deliveryId: string, options?: RequestOptions): Promise<t.RedeliverResponse> {
    return this.#http.request({ method: 'POST', path: `/webhooks/deliveries/${enc(deliveryId)}/redeliver`, retry: 'once' }, options);
  }
}

/**
 * Modifications and saved cards: each answers Received at once; the outcome arrives as a webhook (Capture, Refund for a
 * refund and a reversal, Adjustment for an adjustment) whose payfacReference is the one answered here and whose
 * additionalData.originalPayfacReference is the payment's. The service takes no Idempotency-Key here,
 * so these are retried only when the service certainly did not act.
 */
export class Modifications {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  capture(params: t.CaptureParams, options?: RequestOptions): Promise<t.ModificationResponse> {
    return this.#http.request({ method: 'POST', path: '/modification/capture', body: params, retry: 'once' }, options);
  }

  refund(params: t.RefundParams, options?: RequestOptions): Promise<t.ModificationResponse> {
    return this.#http.request({ method: 'POST', path: '/modification/refund', body: params, retry: 'once' }, options);
  }

  reverse(params: t.ReverseParams, options?: RequestOptions): Promise<t.ModificationResponse> {
    return this.#http.request({ method: 'POST', path: '/modification/reverse', body: params, retry: 'once' }, options);
  }

  /**
   * Sets a new authorised amount, higher or lower, on a payment with manual capture or a
   * pre-authorisation not yet captured in full; captures afterwards are bounded by it.
   */
  adjust(params: t.AdjustParams, options?: RequestOptions): Promise<t.ModificationResponse> {
    return this.#http.request({ method: 'POST', path: '/modification/adjust', body: params, retry: 'once' }, options);
  }
}

/** Modifications and saved cards: payments with a saved token. */
export class Payments {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  /** A create under an Idempotency-Key: a retry gets the first answer, never a second charge. */
  chargeToken(params: t.ChargeTokenParams, options?: RequestOptions): Promise<t.ChargeTokenResponse> {
    return this.#http.request({ method: 'POST', path: '/payment', body: params, retry: 'safe', create: true }, options);
  }

  disableToken(tokenValue: string, options?: RequestOptions): Promise<t.DisableTokenResponse> {
    return this.#http.request({ method: 'POST', path: '/payment/disable-token', body: { tokenValue }, retry: 'safe' }, options);
  }
}

/** Settlements: the batches the acquirer pays out, per currency and cut-off. */
export class Settlements {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  /** One page of batches, newest first (paged like the link list). */
  list(params: t.PageParams = {}, options?: RequestOptions): Promise<t.SettlementList> {
    return this.#http.request({ method: 'GET', path: '/settlements', query: pageQuery(params), retry: 'safe' }, options);
  }

  /** Every batch, newest first, page by page as the loop asks for more. */
  async *listAll(params: { pageSize?: number } = {}, options?: RequestOptions): AsyncGenerator<t.Settlement, void, undefined> {
    const pageSize = params.pageSize ?? 100;
    const seen = new Set<string>();
    for (let page = 0; ; page++) {
      const r = await this.list({ page, pageSize }, options);
      for (const s of r.data) {
        if (seen.has(s.settlementId)) continue;
        seen.add(s.settlementId);
        yield s;
      }
      if (r.data.length < pageSize || (page + 1) * pageSize >= r.totalCount) return;
    }
  }

  /** A batch with every line. */
  get(settlementId: string, options?: RequestOptions): Promise<t.SettlementResponse> {
    return this.#http.request({ method: 'GET', path: `/settlements/${enc(settlementId)}`, retry: 'safe' }, options);
  }

  /** A batch as CSV: a row per line, then a Total row (amounts in minor units). */
  csv(settlementId: string, options?: RequestOptions): Promise<string> {
    return this.#http.request({ method: 'GET', path: `/settlements/${enc(settlementId)}/csv`, retry: 'safe', text: 'text/csv' }, options);
  }
}

/** Promotion codes: a percentage or a fixed amount off the total of links that allow them. */
export class PromotionCodes {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  /** Makes a code; an Idempotency-Key makes a retry answer the first answer. */
  create(params: t.CreatePromotionCodeParams, options?: RequestOptions): Promise<t.PromotionCodeResponse> {
    return this.#http.request({ method: 'POST', path: '/promotioncodes', body: params, retry: 'safe', create: true }, options);
  }

  /** One page of codes, newest first. */
  list(params: t.PageParams = {}, options?: RequestOptions): Promise<t.PromotionCodeList> {
    return this.#http.request({ method: 'GET', path: '/promotioncodes', query: pageQuery(params), retry: 'safe' }, options);
  }

  get(promotionCodeId: string, options?: RequestOptions): Promise<t.PromotionCodeResponse> {
    return this.#http.request({ method: 'GET', path: `/promotioncodes/${enc(promotionCodeId)}`, retry: 'safe' }, options);
  }

  /** Changes active, expiresAt or maxRedemptions; sending the same values again changes nothing more. */
  update(promotionCodeId: string, params: t.UpdatePromotionCodeParams, options?: RequestOptions): Promise<t.PromotionCodeResponse> {
    return this.#http.request({ method: 'POST', path: `/promotioncodes/${enc(promotionCodeId)}/update`, body: params, retry: 'safe' }, options);
  }
}

/** Deliveries sandbox (only while the service runs with PAYLINKS_SANDBOX on; otherwise 404). */
export class Sandbox {
  readonly #http: Transport;
  constructor(http: Transport) {
    this.#http = http;
  }

  /** Records a payment event as if the acquirer had produced it, and fans it out to the webhooks. */
  trigger(params: t.TriggerEventParams, options?: RequestOptions): Promise<t.TriggerEventResponse> {
    return this.#http.request({ method: 'POST', path: '/sandbox/events', body: params, retry: 'once' }, options);
  }

  /** The pending delivery's next attempt is due now. */
  advanceDelivery(deliveryId: string, options?: RequestOptions): Promise<t.Envelope> {
    return this.#http.request({ method: 'POST', path: `/sandbox/deliveries/${enc(deliveryId)}/advance`, retry: 'safe' }, options);
  }

  /** Every pending delivery of your webhooks (or of one) is due now; answers how many. */
  advanceAll(params: { webhookId?: string } = {}, options?: RequestOptions): Promise<t.AdvanceAllResponse> {
    return this.#http.request({ method: 'POST', path: '/sandbox/deliveries/advance', body: params, retry: 'safe' }, options);
  }

  /** Settles now everything you captured or refunded and is not settled yet; answers the batches made. Running it again does nothing twice. */
  settle(options?: RequestOptions): Promise<t.SandboxSettleResponse> {
    return this.#http.request({ method: 'POST', path: '/sandbox/settlements/run', retry: 'safe' }, options);
  }
}

export class Paylinks {
  readonly paymentLinks: PaymentLinks;
  readonly hostedCheckout: HostedCheckout;
  readonly webhooks: Webhooks;
  readonly deliveries: Deliveries;
  readonly modifications: Modifications;
  readonly payments: Payments;
  readonly sandbox: Sandbox;
  readonly settlements: Settlements;
  readonly promotionCodes: PromotionCodes;

  constructor(options: PaylinksOptions) {
    const http = new Transport(options);
    this.paymentLinks = new PaymentLinks(http);
    this.hostedCheckout = new HostedCheckout(http);
    this.webhooks = new Webhooks(http);
    this.deliveries = new Deliveries(http);
    this.modifications = new Modifications(http);
    this.payments = new Payments(http);
    this.sandbox = new Sandbox(http);
    this.settlements = new Settlements(http);
    this.promotionCodes = new PromotionCodes(http);
  }
}
