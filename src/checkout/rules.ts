import type { FieldError } from '../errors.js';
import { isRecord, returnUrlError, timestampRule } from '../paymentLinks/rules.js';
import { EXPIRY_SKEW_MS, MAX_EXPIRY_MS } from './schemas.js';

// The create rules of §Hosted checkout that a JSON schema cannot say. Like the link rules, they look only at
// values of the right type, so one answer names every failing field (§Errors).

export function createCheckoutRuleErrors(body: unknown, now: Date): FieldError[] {
  if (!isRecord(body)) return [];
  const errors: FieldError[] = [];
  // interface §8's "ISK amounts end in 00" is a rule of Create Payment Link only; §Hosted checkout gives sessions
  // no such rule, and the plugins' requests must work unchanged (§Clients in the field).
  const { amount } = body;
  if (typeof amount === 'number' && Number.isSafeInteger(amount)) {
    if (amount === 0 && body.recurringProcessingModel === undefined) {
      errors.push({ field: 'amount', code: 'RANGE', message: 'may be 0 only with recurringProcessingModel (a session that only saves a card)' });
    }
  }
  const ret = returnUrlError(body.returnUrl);
  if (ret) errors.push(ret);
  const abandon = returnUrlError(body.abandonUrl, 'abandonUrl');
  if (abandon) errors.push({ ...abandon, code: 'FORMAT' });
  const expiry = timestampRule(body.expiresAt, 'expiresAt', { now, future: true });
  errors.push(...expiry.errors);
  // A little beyond 24 hours is a shop clock running ahead: accepted, and clamped when the session is made.
  if (expiry.at && expiry.at.getTime() > now.getTime() + MAX_EXPIRY_MS + EXPIRY_SKEW_MS) {
    errors.push({ field: 'expiresAt', code: 'RANGE', message: 'must be at most 24 hours ahead' });
  }
  return errors;
}
