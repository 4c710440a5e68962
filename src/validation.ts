import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { Static, TSchema } from 'typebox';
import { isEmailAddress } from './emailAddress.js';
import { validationError, type FieldError } from './errors.js';

// Checking an input against its TypeBox schema, for every caller alike: the service operations check
// their own inputs with it (the API route, the portal's forms and the CLI call the same operation), and
// Fastify checks query strings, path parameters and headers with the same validators
// (src/http/validation.ts). The schema is the source of truth. Bodies are validated strictly (no
// coercion, no silent removal of unknown fields, every error reported); query strings and path
// parameters arrive as text, so they are coerced.

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

/** ajv-formats' formats, but an e-mail address by the service's one rule (src/emailAddress.ts). */
const withFormats = (ajv: Ajv): Ajv => addFormats(ajv).addFormat('email', { type: 'string', validate: isEmailAddress });

const bodyAjv = withFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: false, removeAdditional: false, useDefaults: false, verbose: true }));
const textAjv = withFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: true, removeAdditional: false, useDefaults: true, verbose: true }));

/** Each schema's validator, compiled once per kind of input (docs/performance.md). */
const compiled = { body: new WeakMap<object, ValidateFunction>(), text: new WeakMap<object, ValidateFunction>() };

/** The validator of a schema: `body` for JSON (strict), `text` for query strings, path parameters and headers (coerced). */
export function compiledFor(schema: object, kind: 'body' | 'text'): ValidateFunction {
  let validate = compiled[kind].get(schema);
  if (!validate) {
    validate = (kind === 'body' ? bodyAjv : textAjv).compile(schema) as ValidateFunction;
    compiled[kind].set(schema, validate);
  }
  return validate;
}

const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** Whether any string value or property name holds U+0000; iterative, so any depth is safe. */
function hasNul(data: unknown): boolean {
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return true;
    } else if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
    } else if (value !== null && typeof value === 'object') {
      for (const k of Object.keys(value)) {
        if (k.includes('\u0000')) return true;
        stack.push((value as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

/** Every string value or property name holding U+0000, as Ajv-style errors; iterative, so any depth is safe. */
export function nulErrors(data: unknown): ErrorObject[] {
  // The common case, no NUL anywhere, is found without building a path for every value (docs/performance.md).
  if (!hasNul(data)) return [];
  const out: ErrorObject[] = [];
  const stack: { value: unknown; path: string }[] = [{ value: data, path: '' }];
  const error = (instancePath: string): ErrorObject => ({
    keyword: 'format',
    instancePath,
    schemaPath: '#/format',
    params: { format: 'no-nul' },
    message: NUL_MESSAGE,
  });
  while (stack.length > 0 && out.length < 100) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    if (typeof value === 'string') {
      if (value.includes('\u0000')) out.push(error(path));
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, path: `${path}/${i}` }));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const child = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (k.includes('\u0000')) out.push(error(child));
        else stack.push({ value: v, path: child });
      }
    }
  }
  return out.reverse();
}

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  const?: unknown;
  /** What a pattern asks, said in words for the error (`must start with a letter, …`) instead of the expression. */
  'x-pattern'?: string;
  [k: string]: unknown;
};

/** `/items/3/amount` → `items[3].amount` (§Errors). */
function jsonPathOf(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const p of parts) {
    if (/^\d+$/.test(p)) out += `[${p}]`;
    else out += out === '' ? p : `.${p}`;
  }
  return out === '' ? '(body)' : out;
}

function typeWord(t: unknown): string {
  const name = Array.isArray(t) ? t.join(' or ') : String(t);
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

function describe(e: ErrorObject, knownProps: readonly string[]): FieldError {
  const parent = (e.parentSchema ?? {}) as JsonSchema;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { field: jsonPathOf(e.instancePath, String(p.missingProperty)), code: 'REQUIRED', message: 'is required' };
    case 'additionalProperties': {
      const name = String(p.additionalProperty);
      const dup = knownProps.some((k) => k.toLowerCase() === name.toLowerCase());
      return dup
        ? { field: jsonPathOf(e.instancePath, name), code: 'DUPLICATE_FIELD', message: 'is given twice (property names are matched without regard to case)' }
        : { field: jsonPathOf(e.instancePath, name), code: 'UNKNOWN_FIELD', message: 'is not a known field' };
    }
    case 'minLength':
    case 'maxLength': {
      const { minLength: min, maxLength: max } = parent;
      const message =
        min !== undefined && min === max
          ? `must be exactly ${min} characters`
          : min !== undefined && max !== undefined
            ? `must be ${min} to ${max} characters`
            : min !== undefined
              ? `must be at least ${min} characters`
              : `must be at most ${max} characters`;
      return { field: jsonPathOf(e.instancePath), code: 'LENGTH', message };
    }
    case 'type':
      return { field: jsonPathOf(e.instancePath), code: 'TYPE', message: `must be ${typeWord(p.type)}` };
    case 'enum':
      return { field: jsonPathOf(e.instancePath), code: 'ENUM', message: `must be one of ${(parent.enum ?? []).map(String).join(', ')}` };
    case 'const':
      return { field: jsonPathOf(e.instancePath), code: 'ENUM', message: `must be ${String(parent.const)}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const { minimum: min, maximum: max } = parent;
      const message = min !== undefined && max !== undefined ? `must be from ${min} to ${max}` : (e.message ?? 'is out of range');
      return { field: jsonPathOf(e.instancePath), code: 'RANGE', message };
    }
    case 'minItems':
    case 'maxItems':
      return { field: jsonPathOf(e.instancePath), code: 'COUNT', message: e.message ?? 'has the wrong number of entries' };
    case 'pattern':
      return { field: jsonPathOf(e.instancePath), code: 'FORMAT', message: parent['x-pattern'] ?? e.message ?? 'has the wrong format' };
    case 'format':
      return { field: jsonPathOf(e.instancePath), code: 'FORMAT', message: e.message ?? 'has the wrong format' };
    default:
      return { field: jsonPathOf(e.instancePath), code: e.keyword.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase(), message: e.message ?? 'is invalid' };
  }
}

/**
 * Turns Ajv's errors into §Errors's field errors: one per failing field. A union (anyOf) that fails
 * reports once, as a type error, instead of once per branch.
 */
export function toFieldErrors(errors: readonly ErrorObject[], rootSchema: JsonSchema | undefined): FieldError[] {
  const unionPaths = errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath.replace(/\/anyOf$/, '/anyOf/'));
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && unionPaths.some((u) => e.schemaPath.startsWith(u))) continue;
    let fe: FieldError;
    if (e.keyword === 'anyOf') {
      const branches = ((e.parentSchema as JsonSchema | undefined)?.anyOf ?? []).map((b) => b.type ?? 'object').flat();
      fe = { field: jsonPathOf(e.instancePath), code: 'TYPE', message: `must be ${branches.map((b) => typeWord(b)).join(' or ')}` };
    } else {
      const known = Object.keys(schemaAt(rootSchema, e.schemaPath)?.properties ?? {});
      fe = describe(e, known);
    }
    const key = `${fe.field}|${fe.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(fe);
  }
  return out;
}

/** The sub-schema that owns an error's keyword, found from its schemaPath (`#/properties/items/items/additionalProperties`). */
function schemaAt(root: JsonSchema | undefined, schemaPath: string): JsonSchema | undefined {
  const parts = schemaPath.replace(/^#\/?/, '').split('/').slice(0, -1);
  let cur: unknown = root;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur as JsonSchema | undefined;
}

interface NormalizeOptions {
  /** §Clients in the field: in a create request a null optional field means absent; in an update (§Updating a link) it clears. */
  nullMeansAbsent: boolean;
}

interface CheckOptions extends NormalizeOptions {
  /** The input arrived as text (a query string): checked with the coercing validator, as Fastify checks query strings. */
  text?: boolean;
}

/**
 * A schema keyword (an OpenAPI extension, shown in the document) for a string enum whose values are
 * matched without regard to case and stored in the enum's spelling: `Customer request` is
 * `CUSTOMER REQUEST`.
 */
export const CASE_INSENSITIVE = 'x-caseInsensitive';

/** Each object schema's required names and lower-case spellings, worked out once (docs/performance.md). */
const schemaNames = new WeakMap<JsonSchema, { required: ReadonlySet<string>; lower: ReadonlyMap<string, string> }>();

function namesOf(schema: JsonSchema, props: Record<string, JsonSchema>): { required: ReadonlySet<string>; lower: ReadonlyMap<string, string> } {
  let names = schemaNames.get(schema);
  if (!names) {
    names = { required: new Set(schema.required ?? []), lower: new Map(Object.keys(props).map((k) => [k.toLowerCase(), k])) };
    schemaNames.set(schema, names);
  }
  return names;
}

/** The branches of an anyOf other than null, found once per schema. */
const nonNull = new WeakMap<JsonSchema, JsonSchema[]>();
function nonNullBranches(schema: JsonSchema, anyOf: JsonSchema[]): JsonSchema[] {
  let branches = nonNull.get(schema);
  if (branches === undefined) nonNull.set(schema, (branches = anyOf.filter((b) => !hasType(b, 'null'))));
  return branches;
}

function hasType(schema: JsonSchema, t: string): boolean {
  return schema.type === t || (Array.isArray(schema.type) && schema.type.includes(t));
}

/**
 * §Clients in the field: clients in the field send property names in any case and integers as digit strings.
 * This maps each property name to the schema's spelling (a name given twice in two spellings is
 * left as it is, so validation reports it) and digit strings to integers where the schema wants an
 * integer, before validation runs. Nothing else is changed: the validator still sees every mistake.
 */
function normalizeToSchema(schema: JsonSchema | undefined, value: unknown, opts: NormalizeOptions): unknown {
  if (schema === undefined) return value;
  if (schema.anyOf) {
    if (value === null) return null;
    const branches = nonNullBranches(schema, schema.anyOf);
    const pick =
      branches.find((b) =>
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? hasType(b, 'object')
          : Array.isArray(value)
            ? hasType(b, 'array')
            : !hasType(b, 'object') && !hasType(b, 'array'),
      ) ?? branches[0];
    return normalizeToSchema(pick, value, opts);
  }
  if (hasType(schema, 'integer') && typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (schema[CASE_INSENSITIVE] === true && typeof value === 'string' && schema.enum) {
    const lower = value.toLowerCase();
    return schema.enum.find((e) => typeof e === 'string' && e.toLowerCase() === lower) ?? value;
  }
  if (hasType(schema, 'array') && Array.isArray(value)) return value.map((v) => normalizeToSchema(schema.items, v, opts));
  if (hasType(schema, 'object') && schema.properties && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const props = schema.properties;
    const { required, lower } = namesOf(schema, props);
    const out: Record<string, unknown> = {};
    // Exact spellings first, so that {"amount": .., "Amount": ..} keeps the exact one and flags the other
    // (sorted only when some name is not spelt exactly, which is rare). The names, not the entries: a
    // create walks about twenty fields, and an array per field was a part of what it allocates.
    const record = value as Record<string, unknown>;
    let keys = Object.keys(record);
    if (keys.some((k) => !(k in props))) keys = keys.sort((a, b) => Number(!(a in props)) - Number(!(b in props)));
    for (const key of keys) {
      const v = record[key];
      const canonical = key in props ? key : lower.get(key.toLowerCase());
      if (canonical === undefined || canonical in out) {
        out[key] = v;
        continue;
      }
      if (v === null && opts.nullMeansAbsent && !required.has(canonical)) continue;
      out[canonical] = normalizeToSchema(props[canonical], v, opts);
    }
    return out;
  }
  return value;
}

/** The objects normalizeInput made, with the schema and mode they were made for. */
const normalizedBy = new WeakMap<object, { schema: JsonSchema; nullMeansAbsent: boolean }>();

/**
 * normalizeToSchema, done once per input: the API normalises a body before the steps that come before
 * its operation (the capability a link's type needs, the Idempotency-Key's body), and the operation
 * normalises its input again, which for that same object is a look-up rather than a second walk
 * (docs/performance.md). Normalising is idempotent, so an input made for another schema or mode is
 * simply normalised again.
 */
export function normalizeInput(schema: JsonSchema, input: unknown, opts: NormalizeOptions): unknown {
  if (typeof input === 'object' && input !== null) {
    const made = normalizedBy.get(input);
    if (made !== undefined && made.schema === schema && made.nullMeansAbsent === opts.nullMeansAbsent) return input;
  }
  const value = normalizeToSchema(schema, input, opts);
  if (typeof value === 'object' && value !== null) normalizedBy.set(value, { schema, nullMeansAbsent: opts.nullMeansAbsent });
  return value;
}

/**
 * An input normalised to its schema (§Clients in the field) and the schema's field errors for it,
 * with the NUL check (§Errors): what an operation starts from. The operation adds the errors of its
 * own rules across fields, so that one answer names every failing field.
 */
export function schemaCheck(schema: TSchema, input: unknown, opts: CheckOptions): { value: unknown; errors: FieldError[] } {
  const value = normalizeInput(schema as JsonSchema, input, opts);
  return { value, errors: inputErrors(schema, value, opts.text === true ? 'text' : 'body') };
}

/** An input that satisfies its schema, normalised; otherwise §Errors's answer naming every failing field. */
export function checkInput<S extends TSchema>(schema: S, input: unknown, opts: CheckOptions): Static<S> {
  const { value, errors } = schemaCheck(schema, input, opts);
  if (errors.length > 0) throw validationError(errors);
  return value as Static<S>;
}

/** The field errors of a value (already normalised) under its schema, in the API's wording (§Errors). */
function inputErrors(schema: object, value: unknown, kind: 'body' | 'text'): FieldError[] {
  const validate = compiledFor(schema, kind);
  const ok = validate(value);
  const nul = nulErrors(value);
  if (ok && nul.length === 0) return [];
  return toFieldErrors([...(validate.errors ?? []), ...nul], schema as JsonSchema);
}
