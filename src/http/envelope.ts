import { Type, type TProperties } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { formatMicros } from '../clock.js';

// The envelope (interface §2.1, §Timestamps and identifiers) on every response, errors included. responseIdentifier is the
// request id, so a merchant quoting it lets an operator find every log line of that request.

export function envelope(requestId: string, clock: Clock): { responseDateTime: string; responseIdentifier: string } {
  return { responseDateTime: formatMicros(clock.nowMicros()), responseIdentifier: requestId };
}

const EnvelopeProps = {
  responseDateTime: Type.String({ description: 'ISO 8601 UTC, microsecond precision', examples: ['2026-11-21T13:57:00.123456Z'] }),
  responseIdentifier: Type.String({ format: 'uuid', description: 'unique identifier of this response (UUID v4)' }),
};

/**
 * A handler's answer with the envelope. The app's preSerialization hook would add it too; adding it in
 * the handler lets the response schema's type (which lists the envelope) check what the handler returns.
 */
export function answerWith(clock: Clock): <T extends object>(request: FastifyRequest, body: T) => T & ReturnType<typeof envelope> {
  return (request, body) => ({ ...body, ...envelope(request.id, clock) });
}

/** A response schema: the operation's own properties plus the envelope. */
export function WithEnvelope<P extends TProperties>(props: P, description?: string) {
  return Type.Object({ ...props, ...EnvelopeProps }, description ? { description } : {});
}

export const EnvelopeOnly = WithEnvelope({}, 'The envelope only');

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String({ description: 'stable UPPER_SNAKE code; see the error codes in the API guide' }),
    detail: Type.String(),
    message: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() }))),
    ...EnvelopeProps,
  },
  { description: 'An error, as application/problem+json' },
);

function problem(description: string) {
  return { ...ProblemSchema, description };
}

/** What each error status means on this API, as the reference shows it. */
const ERROR_ANSWERS: Record<string, string> = {
  400: 'The request is malformed or a field is invalid: `errors` lists every failing field',
  401: 'X-API-Key is missing or not a live key',
  403: 'The key lacks the capability this operation needs, or the Origin is not allowed',
  404: 'No such object of this merchant (another merchant’s objects are not found either)',
  409: 'The object’s state does not allow this (INVALID_STATE), or the Idempotency-Key was used with another body',
  429: 'Too many requests for this key; wait for Retry-After seconds',
};

/**
 * An onRoute hook for the API's scope: documents the error answers every operation can give (400,
 * 401, 403, 429, and 404 where the path names an object) beside those the route declares itself,
 * each with what it means here.
 */
export function documentErrorAnswers(route: { url: string; schema?: { hide?: boolean; response?: unknown } }): void {
  const schema = route.schema;
  if (!schema || schema.hide === true) return;
  const own = (schema.response ?? {}) as Record<string, unknown>;
  const statuses = new Set(['400', '401', '403', '429', ...(route.url.includes(':') ? ['404'] : [])]);
  const response: Record<string, unknown> = {};
  for (const status of statuses) response[status] = problem(ERROR_ANSWERS[status] ?? 'An error');
  for (const [status, value] of Object.entries(own)) {
    response[status] = value === ProblemSchema && ERROR_ANSWERS[status] !== undefined ? problem(ERROR_ANSWERS[status]) : value;
  }
  schema.response = response;
}
