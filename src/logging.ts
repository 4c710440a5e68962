import type { LoggerOptions } from 'pino';
import type { LogLevel } from './config.js';

// No secret, card number or CVC ever reaches a log line. Requests are logged by our own one-line hook
// (method, path, status, time), never with headers or bodies; these redactions guard anything that
// logs an object carrying such fields anyway.
const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers.authorization',
  '*.apiKey',
  '*.hmacKey',
  '*.cardNumber',
  '*.cvc',
  '*.password',
];

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'paylinks' },
  };
}
