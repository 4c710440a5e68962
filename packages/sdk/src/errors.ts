// Error classes (docs/style.md, The SDK): one per family of HTTP statuses, so callers can `instanceof` the
// family and switch on Errors's stable `code` inside it.

/** One failing field of a Errors error: a JSON path with [i] for arrays, a stable code and a sentence. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** Base of every error this SDK throws. */
export class PaylinksError extends Error {
  override name = 'PaylinksError';
}

export interface ApiErrorInit {
  status: number;
  code: string;
  title: string;
  detail: string;
  errors: FieldError[];
  responseIdentifier: string | null;
  responseDateTime: string | null;
  /** From Retry-After, when the response had one. */
  retryAfterMs: number | null;
  /** The parsed body, or the text when it was not JSON. */
  body: unknown;
}

/** The service answered with an error. */
export class PaylinksApiError extends PaylinksError {
  override name = 'PaylinksApiError';
  readonly status: number;
  /** Errors's UPPER_SNAKE code, e.g. VALIDATION_FAILED; `HTTP_<status>` when the body was not Errors's. */
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  /** Every failing field, as sent. */
  readonly errors: readonly FieldError[];
  /** The same, grouped by field path (`items[3].amount` → its errors). */
  readonly fieldErrors: Readonly<Record<string, readonly FieldError[]>>;
  readonly responseIdentifier: string | null;
  readonly responseDateTime: string | null;
  readonly retryAfterMs: number | null;
  readonly body: unknown;

  constructor(init: ApiErrorInit) {
    super(`${init.status} ${init.code}: ${init.detail}${init.responseIdentifier ? ` (responseIdentifier ${init.responseIdentifier})` : ''}`);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors;
    const byField: Record<string, FieldError[]> = {};
    for (const e of init.errors) (byField[e.field] ??= []).push(e);
    this.fieldErrors = byField;
    this.responseIdentifier = init.responseIdentifier;
    this.responseDateTime = init.responseDateTime;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
  }
}

/** 400, 413, 415: the request itself is wrong (fields, JSON, terminal, return URL, size, type). */
export class PaylinksValidationError extends PaylinksApiError {
  override name = 'PaylinksValidationError';
}

/** 401: missing, unknown or revoked API key. */
export class PaylinksAuthenticationError extends PaylinksApiError {
  override name = 'PaylinksAuthenticationError';
}

/** 403: the key lacks the capability, or the Origin is not allowed. An authentication error too. */
export class PaylinksPermissionError extends PaylinksAuthenticationError {
  override name = 'PaylinksPermissionError';
}

/** 404: unknown, or another merchant's. */
export class PaylinksNotFoundError extends PaylinksApiError {
  override name = 'PaylinksNotFoundError';
}

/** 409: INVALID_STATE, AUTHORISATION_EXPIRED or IDEMPOTENCY_KEY_REUSED. */
export class PaylinksConflictError extends PaylinksApiError {
  override name = 'PaylinksConflictError';
}

/** 429: rate limited; `retryAfterMs` says when to come back. */
export class PaylinksRateLimitError extends PaylinksApiError {
  override name = 'PaylinksRateLimitError';
}

/** 5xx: the service failed or is unavailable (503 with Retry-After while its database is down). */
export class PaylinksServerError extends PaylinksApiError {
  override name = 'PaylinksServerError';
}

/** No HTTP response: connection refused or reset, DNS, TLS, or the request timed out. */
export class PaylinksNetworkError extends PaylinksError {
  override name = 'PaylinksNetworkError';
  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The class for a status: the family of Status codes it belongs to. */
export function apiErrorFor(init: ApiErrorInit): PaylinksApiError {
  const s = init.status;
  if (s === 400 || s === 413 || s === 415 || s === 422) return new PaylinksValidationError(init);
  if (s === 401) return new PaylinksAuthenticationError(init);
  if (s === 403) return new PaylinksPermissionError(init);
  if (s === 404) return new PaylinksNotFoundError(init);
  if (s === 409) return new PaylinksConflictError(init);
  if (s === 429) return new PaylinksRateLimitError(init);
  if (s >= 500) return new PaylinksServerError(init);
  return new PaylinksApiError(init);
}
