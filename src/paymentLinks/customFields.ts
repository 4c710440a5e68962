import type { FieldError } from '../errors.js';
import { MAX_TEXT_LENGTH, type CUSTOM_FIELD_TYPES } from './schemas.js';

// A link's custom fields (docs/api.md, Custom fields): up to 3 questions of the merchant's that the
// payment page asks, each a Text (at most maxLength characters), a Number (a whole number) or a
// Dropdown (one of its options), required or optional, with a label and an optional English one.
// The schema says each field's shape; this file says what it cannot (a key once per link, maxLength
// and options by type, options once each, no control characters), how a field is stored and read,
// and how the shopper's answers are checked, by the page before paying and by the payment itself on
// the locked link.

export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

/** A custom field as it is stored: every property present, null where it has none. */
export interface CustomField {
  key: string;
  type: CustomFieldType;
  label: string;
  labelEn: string | null;
  required: boolean;
  /** Text only. */
  maxLength: number | null;
  /** Dropdown only. */
  options: string[] | null;
}

export interface CustomFieldAnswer {
  key: string;
  value: string;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Any control character: a label or an option is one line the shopper reads. */
const CONTROL = /\p{Cc}/u;

/** The rules across a field's properties, for the list of a create or of an update (null: none, always fine). */
export function customFieldErrors(list: unknown, failed: (path: string) => boolean): FieldError[] {
  if (!Array.isArray(list)) return [];
  const errors: FieldError[] = [];
  const keys = new Set<string>();
  list.forEach((f: unknown, i) => {
    if (!isRecord(f)) return;
    const at = (name: string) => `customFields[${i}].${name}`;
    if (typeof f.key === 'string' && !failed(at('key'))) {
      const lower = f.key.toLowerCase();
      if (keys.has(lower))
        errors.push({
          field: at('key'),
          code: 'DUPLICATE',
          message: `${f.key} is used by another custom field of the link (keys are compared without regard to case)`,
        });
      keys.add(lower);
    }
    for (const name of ['label', 'labelEn'] as const) {
      const v = f[name];
      if (typeof v !== 'string' || failed(at(name))) continue;
      if (CONTROL.test(v)) errors.push({ field: at(name), code: 'FORMAT', message: 'must not contain control characters' });
      else if (v.trim() === '') errors.push({ field: at(name), code: 'BLANK', message: 'must contain more than white space' });
    }
    const type = typeof f.type === 'string' ? f.type.toLowerCase() : undefined;
    const hasMax = f.maxLength !== undefined && f.maxLength !== null;
    const hasOptions = f.options !== undefined && f.options !== null;
    if (type !== undefined && type !== 'text' && hasMax) {
      errors.push({ field: at('maxLength'), code: 'NOT_ALLOWED', message: 'is allowed only when type is Text' });
    }
    if (type === 'dropdown' && !hasOptions) errors.push({ field: at('options'), code: 'REQUIRED', message: 'is required when type is Dropdown' });
    if (type !== undefined && type !== 'dropdown' && hasOptions) {
      errors.push({ field: at('options'), code: 'NOT_ALLOWED', message: 'is allowed only when type is Dropdown' });
    }
    if (Array.isArray(f.options)) {
      const seen = new Set<string>();
      f.options.forEach((o: unknown, j) => {
        if (typeof o !== 'string' || failed(`${at('options')}[${j}]`)) return;
        const path = `${at('options')}[${j}]`;
        if (CONTROL.test(o)) errors.push({ field: path, code: 'FORMAT', message: 'must not contain control characters' });
        else if (o.trim() === '') errors.push({ field: path, code: 'BLANK', message: 'must contain more than white space' });
        else if (seen.has(o)) errors.push({ field: path, code: 'DUPLICATE', message: `${o} is an option already` });
        seen.add(o);
      });
    }
  });
  return errors;
}

/** A checked list as it is stored: null for none (an empty list too), each field with every property. */
export function storedCustomFields(list: readonly Json[] | null | undefined): CustomField[] | null {
  if (!list || list.length === 0) return null;
  return list.map((f) => {
    const type = (['Text', 'Number', 'Dropdown'] as const).find((t) => t.toLowerCase() === String(f.type).toLowerCase()) ?? 'Text';
    return {
      key: String(f.key),
      type,
      label: String(f.label),
      labelEn: typeof f.labelEn === 'string' ? f.labelEn : null,
      required: f.required === true,
      maxLength: type === 'Text' ? (typeof f.maxLength === 'number' ? f.maxLength : MAX_TEXT_LENGTH) : null,
      options: type === 'Dropdown' && Array.isArray(f.options) ? f.options.map(String) : null,
    };
  });
}

/** A stored field as the API reads it: no null properties (a Text has its maxLength, a Dropdown its options). */
export function presentCustomField(f: CustomField): {
  key: string;
  type: CustomFieldType;
  label: string;
  labelEn?: string;
  required: boolean;
  maxLength?: number;
  options?: string[];
} {
  return {
    key: f.key,
    type: f.type,
    label: f.label,
    ...(f.labelEn !== null ? { labelEn: f.labelEn } : {}),
    required: f.required,
    ...(f.maxLength !== null ? { maxLength: f.maxLength } : {}),
    ...(f.options !== null ? { options: [...f.options] } : {}),
  };
}

/** Why an answer was refused; the payment page says it in the shopper's language. */
export type AnswerProblem = 'required' | 'tooLong' | 'notNumber' | 'notOption' | 'format';

/** A whole number as the shopper may type it: a sign, then up to 15 digits (exact in a JavaScript number). */
const WHOLE_NUMBER = /^[+-]?\d{1,15}$/;

/**
 * The shopper's answers to a link's custom fields, `valueOf(key)` being what the form sent for each:
 * the answers to keep (an optional field left empty is left out; a Number in its plain form, `007`
 * as `7`), and the problem of each refused one by key. Every field is checked, so the page can name
 * every problem at once.
 */
export function checkCustomAnswers(
  fields: readonly CustomField[] | null,
  valueOf: (key: string) => string | undefined,
): { answers: CustomFieldAnswer[]; problems: Record<string, AnswerProblem> } {
  const answers: CustomFieldAnswer[] = [];
  const problems: Record<string, AnswerProblem> = {};
  for (const f of fields ?? []) {
    const value = (valueOf(f.key) ?? '').trim();
    if (value === '') {
      if (f.required) problems[f.key] = 'required';
      continue;
    }
    if (f.type === 'Number') {
      if (WHOLE_NUMBER.test(value)) answers.push({ key: f.key, value: String(Number(value)) });
      else problems[f.key] = 'notNumber';
    } else if (f.type === 'Dropdown') {
      if (f.options?.includes(value)) answers.push({ key: f.key, value });
      else problems[f.key] = 'notOption';
    } else if (CONTROL.test(value)) problems[f.key] = 'format';
    else if (value.length > (f.maxLength ?? MAX_TEXT_LENGTH)) problems[f.key] = 'tooLong';
    else answers.push({ key: f.key, value });
  }
  return { answers, problems };
}

/** The answers in one line, `key=value; key=value`, a `\` or `;` in a value written `\\` and `\;` (a key holds neither). */
export function answersLine(answers: readonly CustomFieldAnswer[] | null): string {
  return (answers ?? []).map((a) => `${a.key}=${a.value.replace(/[\\;]/g, (c) => `\\${c}`)}`).join('; ');
}
