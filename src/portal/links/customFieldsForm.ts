import type { FieldError } from '../../errors.js';
import type { PaymentLinkView } from '../../paymentLinks/service.js';
import { MAX_CUSTOM_FIELDS } from '../../paymentLinks/schemas.js';
import { wholeNumberOf, type Form } from '../http.js';

// The custom fields of the link forms (docs/portal.md, Custom fields): three fixed rows of inputs,
// so that the form works without JavaScript, read from a post, filled from a link, and turned into
// the API's `customFields`. An empty row is no field. The rules are the link service's; its errors on
// `customFields[i]` are put back on the row they came from (the list leaves the empty rows out).

/** One row as typed; options one per line. */
export interface CustomFieldEntry {
  key: string;
  type: string;
  label: string;
  labelEn: string;
  required: boolean;
  maxLength: string;
  options: string;
}

export const CUSTOM_FIELD_ROWS = MAX_CUSTOM_FIELDS;
/** The inputs of a row, by the name of their part of the field. */
export const CUSTOM_FIELD_PARTS = ['key', 'type', 'label', 'labelEn', 'required', 'maxLength', 'options'] as const;

export const customInput = (row: number, part: (typeof CUSTOM_FIELD_PARTS)[number]): string => `customFields[${row}].${part}`;

const blankRow = (): CustomFieldEntry => ({ key: '', type: '', label: '', labelEn: '', required: false, maxLength: '', options: '' });

const isBlank = (r: CustomFieldEntry): boolean => r.type === '' && [r.key, r.label, r.labelEn, r.maxLength, r.options].every((text) => text.trim() === '');

export function blankCustomFields(): CustomFieldEntry[] {
  return Array.from({ length: CUSTOM_FIELD_ROWS }, blankRow);
}

export function customFieldEntriesOf(form: Form): CustomFieldEntry[] {
  return Array.from({ length: CUSTOM_FIELD_ROWS }, (_, i) => ({
    key: form.text(customInput(i, 'key')),
    type: form.text(customInput(i, 'type')),
    label: form.text(customInput(i, 'label')),
    labelEn: form.text(customInput(i, 'labelEn')),
    required: form.text(customInput(i, 'required')) === 'yes',
    maxLength: form.text(customInput(i, 'maxLength')),
    options: form.text(customInput(i, 'options')),
  }));
}

export function customFieldEntriesOfLink(link: PaymentLinkView): CustomFieldEntry[] {
  const rows = (link.customFields ?? []).map((f) => ({
    key: f.key,
    type: f.type,
    label: f.label,
    labelEn: f.labelEn ?? '',
    required: f.required,
    // A Text's maxLength at the default reads as an empty input, as it was most likely made.
    maxLength: f.maxLength !== undefined && f.maxLength !== 255 ? String(f.maxLength) : '',
    options: (f.options ?? []).join('\n'),
  }));
  return [...rows, ...blankCustomFields()].slice(0, CUSTOM_FIELD_ROWS);
}

/** The filled rows as the API's list, and the row each entry of the list came from. */
export function customFieldsBody(rows: readonly CustomFieldEntry[]): { list: Record<string, unknown>[]; rowOf: number[] } {
  const list: Record<string, unknown>[] = [];
  const rowOf: number[] = [];
  rows.forEach((r, i) => {
    if (isBlank(r)) return;
    const f: Record<string, unknown> = {};
    if (r.key.trim() !== '') f.key = r.key.trim();
    if (r.type !== '') f.type = r.type;
    if (r.label.trim() !== '') f.label = r.label.trim();
    if (r.labelEn.trim() !== '') f.labelEn = r.labelEn.trim();
    f.required = r.required;
    const max = wholeNumberOf(r.maxLength);
    if (max !== undefined) f.maxLength = max;
    const options = r.options
      .split(/\r?\n/)
      .map((o) => o.trim())
      .filter((o) => o !== '');
    if (options.length > 0) f.options = options;
    list.push(f);
    rowOf.push(i);
  });
  return { list, rowOf };
}

/** The service's errors on `customFields[i]…` moved to the row's inputs (an option's error to the options box). */
export function placeCustomFieldErrors(errors: readonly FieldError[], rowOf: readonly number[]): FieldError[] {
  return errors.map((e) => {
    const m = /^customFields\[(\d+)\]\.(\w+)/.exec(e.field);
    if (!m) return e;
    return { ...e, field: `customFields[${rowOf[Number(m[1])] ?? m[1]}].${m[2]}` };
  });
}

/** Every input of the rows, for the forms' list of fields that show their errors beside them. */
export const CUSTOM_FIELD_INPUTS: readonly string[] = Array.from({ length: CUSTOM_FIELD_ROWS }, (_, i) =>
  CUSTOM_FIELD_PARTS.map((part) => customInput(i, part)),
).flat();
