import type { ShopperInfo } from '../../paymentLinks/rules.js';
import type { Answer } from '../shopper.js';
import type { MessageKey } from './i18n.js';
import type { PageForm } from './form.js';

// The shopper-info fields of a link (§Creating a link) as the form returns them, enforced here on the server:
// Hidden is neither shown nor taken, Optional may be empty, Required may not, Prefilled always takes
// the merchant's value whatever the form says (it is shown read-only).

const FORMATS: Record<string, RegExp> = {
  // Icelandic kennitala: ten digits, optionally DDMMYY-NNNN.
  Ssn: /^\d{6}-?\d{4}$/,
  EmailAddress: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  Telephone: /^\+?[0-9 ()-]{5,20}$/,
};

const MAX_ANSWER_LENGTH = 500;

export function readAnswers(
  infos: readonly ShopperInfo[],
  form: PageForm,
): { answers: Answer[]; values: Record<string, string>; errors: Record<string, MessageKey> } {
  const answers: Answer[] = [];
  const values: Record<string, string> = {};
  const errors: Record<string, MessageKey> = {};
  for (const info of infos) {
    if (info.requirementType === 'Hidden') continue;
    if (info.requirementType === 'Prefilled') {
      if (info.prefilledValue !== null) answers.push({ field: info.field, value: info.prefilledValue });
      continue;
    }
    const id = `shopper-${info.field}`;
    const value = (form.get(id) ?? '').trim();
    values[info.field] = value;
    if (value === '') {
      if (info.requirementType === 'Required') errors[id] = 'errRequired';
      continue;
    }
    if (value.length > MAX_ANSWER_LENGTH) errors[id] = 'errTooLong';
    else if (FORMATS[info.field] && !FORMATS[info.field]?.test(value)) errors[id] = 'errFormat';
    else answers.push({ field: info.field, value });
  }
  return { answers, values, errors };
}
