import { Type, type TProperties } from 'typebox';
import type { Clock } from '../clock.js';
import { formatMicros } from '../clock.js';

// The envelope (interface.md 2.1, D15) on every response, errors included. responseIdentifier is the
// request id, so a merchant quoting it lets an operator find every log line of that request.

export function envelope(requestId: string, clock: Clock): { responseDateTime: string; responseIdentifier: string } {
  return { responseDateTime: formatMicros(clock.nowMicros()), responseIdentifier: requestId };
}

const EnvelopeProps = {
  responseDateTime: Type.String({ description: 'ISO 8601 UTC, microsecond precision', examples: ['2026-11-21T13:57:00.123456Z'] }),
  responseIdentifier: Type.String({ format: 'uuid', description: 'unique identifier of this response (UUID v4)' }),
};

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
    code: Type.String({ description: 'stable UPPER_SNAKE code (D2)' }),
    detail: Type.String(),
    message: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() })),
    ),
    ...EnvelopeProps,
  },
  { description: 'D2 problem+json' },
);
