// The error catalogue (§Errors, §Status codes): every code, its HTTP status and title live here, and only here.

export const errorCatalogue = {
  VALIDATION_FAILED: { status: 400, title: 'Request validation failed' },
  MALFORMED_JSON: { status: 400, title: 'The request body is not valid JSON' },
  TERMINAL_NOT_FOUND: { status: 400, title: 'Terminal not found' },
  INVALID_RETURN_URL: { status: 400, title: 'Invalid return URL' },
  UNAUTHENTICATED: { status: 401, title: 'Missing or invalid API key' },
  FORBIDDEN: { status: 403, title: 'The API key may not use this operation' },
  ORIGIN_NOT_ALLOWED: { status: 403, title: 'Origin not allowed' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  INVALID_STATE: { status: 409, title: 'Operation not allowed in the current status' },
  AUTHORISATION_EXPIRED: { status: 409, title: 'The authorisation has expired' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, title: 'Idempotency key reused with another request' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  INTERNAL: { status: 500, title: 'Internal server error' },
  UNAVAILABLE: { status: 503, title: 'Service temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** One failing field (§Errors): a JSON path with [i] for arrays, a stable code and a sentence. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** The one error type that routes and services throw; the error handler turns it into §Errors's body. */
export class ApiError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
    readonly errors?: readonly FieldError[],
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(detail ?? errorCatalogue[code].title);
    this.name = 'ApiError';
    this.status = errorCatalogue[code].status;
    this.title = errorCatalogue[code].title;
  }
}

export function validationError(errors: readonly FieldError[]): ApiError {
  const detail = errors.length === 1 ? `${errors[0]?.field}: ${errors[0]?.message}` : `${errors.length} fields are invalid`;
  return new ApiError('VALIDATION_FAILED', detail, errors);
}

export function notFound(what: string): ApiError {
  return new ApiError('NOT_FOUND', `${what} not found`);
}
