import type { Children, Html } from '../../html/jsx-runtime.js';
import type { FieldError } from '../../errors.js';
import { formatDateTime, formatMoney, isoTime } from '../../html/format.js';
import { FORM_TOKEN_FIELD } from '../../web/formTokens.js';
import { fieldMessage, type FieldErrors, type PublicView } from '../view.js';

// The portal's shared pieces. Every input has a visible <label>; an error is tied to its input
// (aria-describedby, aria-invalid) and the form's summary is announced (role=alert). Scripts only
// enhance (copy buttons, item rows, live totals): every form posts and works without them.

/** An id usable in HTML for a field named by its JSON path (`items[0].amount` → `f-items-0-amount`). */
export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/-+$/, '')}`;
}

export function Csrf({ view }: { view: PublicView }): Html {
  return <input type="hidden" name={FORM_TOKEN_FIELD} value={view.csrf} />;
}

interface FieldProps {
  view: PublicView;
  name: string;
  label: string;
  value?: string | number | null;
  type?: 'text' | 'email' | 'password' | 'number' | 'url' | 'date' | 'datetime-local' | 'search' | 'tel' | 'color';
  errors?: FieldErrors;
  hint?: string;
  required?: boolean;
  disabled?: boolean;
  /** Why it is disabled, said beside it. */
  disabledReason?: string;
  autocomplete?: string;
  inputmode?: 'numeric' | 'decimal' | 'email' | 'url' | 'text';
  placeholder?: string;
  maxLength?: number;
  min?: string | number;
  max?: string | number;
  step?: string | number;
  pattern?: string;
  class?: string;
  /** A multi-line input instead of one line. */
  multiline?: boolean;
  /** Extra attributes for the input (data-* for scripts). */
  data?: Record<string, string>;
}

function describedBy(id: string, hint: boolean, errors: readonly FieldError[], reason: boolean): string | undefined {
  const ids = [...(hint ? [`${id}-hint`] : []), ...(reason ? [`${id}-why`] : []), ...(errors.length > 0 ? [`${id}-error`] : [])];
  return ids.length > 0 ? ids.join(' ') : undefined;
}

export function FieldMessages({ view, id, errors }: { view: PublicView; id: string; errors: readonly FieldError[] }): Html | null {
  if (errors.length === 0) return null;
  return (
    <p class="error" id={`${id}-error`}>
      {errors.map((e) => fieldMessage(view, e)).join(' ')}
    </p>
  );
}

/** The data-* attributes of a field's input, for the scripts that enhance it. */
function dataAttributes(data: Readonly<Record<string, string>> | undefined): Record<`data-${string}`, string> {
  const out: Record<`data-${string}`, string> = {};
  for (const k in data) out[`data-${k}`] = data[k] as string;
  return out;
}

/** What follows a field's input: its hint, why it is disabled, its errors. */
function fieldNotes(p: { view: PublicView; hint?: string; disabledReason?: string }, id: string, errors: readonly FieldError[]): Html {
  return (
    <>
      {p.hint ? (
        <span class="hint" id={`${id}-hint`}>
          {p.hint}
        </span>
      ) : null}
      {p.disabledReason ? (
        <span class="hint" id={`${id}-why`}>
          {p.disabledReason}
        </span>
      ) : null}
      <FieldMessages view={p.view} id={id} errors={errors} />
    </>
  );
}

export function Field(p: FieldProps): Html {
  const id = fieldId(p.name);
  const errors = p.errors?.of(p.name) ?? [];
  // The input's attributes: its own, the scripts' data-*, then those of its kind (one object, built
  // in place: this is on every form and filter).
  const attributes: Record<string, string | number | boolean | undefined> = {
    id,
    name: p.name,
    required: p.required,
    disabled: p.disabled,
    autocomplete: p.autocomplete,
    inputmode: p.inputmode,
    placeholder: p.placeholder,
    maxlength: p.maxLength,
    'aria-invalid': errors.length > 0 ? 'true' : undefined,
    'aria-describedby': describedBy(id, p.hint !== undefined, errors, p.disabledReason !== undefined),
  };
  for (const k in p.data) attributes[`data-${k}`] = p.data[k];
  let input: Html;
  if (p.multiline) {
    attributes.rows = 3;
    input = <textarea {...attributes}>{p.value ?? ''}</textarea>;
  } else {
    attributes.type = p.type ?? 'text';
    attributes.value = p.value ?? '';
    attributes.min = p.min;
    attributes.max = p.max;
    attributes.step = p.step;
    attributes.pattern = p.pattern;
    input = <input {...attributes} />;
  }
  return (
    <div class={`field${p.class ? ` ${p.class}` : ''}`}>
      <label for={id}>
        {p.label}
        {p.required ? <span class="tag"> ({p.view.t('required')})</span> : null}
      </label>
      {input}
      {fieldNotes(p, id, errors)}
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function Select(p: {
  view: PublicView;
  name: string;
  label: string;
  options: readonly Option[];
  value?: string | null;
  errors?: FieldErrors;
  hint?: string;
  required?: boolean;
  disabled?: boolean;
  disabledReason?: string;
  class?: string;
  data?: Record<string, string>;
}): Html {
  const id = fieldId(p.name);
  const errors = p.errors?.of(p.name) ?? [];
  const chosen = p.value ?? '';
  return (
    <div class={`field${p.class ? ` ${p.class}` : ''}`}>
      <label for={id}>{p.label}</label>
      <select
        id={id}
        name={p.name}
        disabled={p.disabled}
        required={p.required}
        aria-invalid={errors.length > 0 ? 'true' : undefined}
        aria-describedby={describedBy(id, p.hint !== undefined, errors, p.disabledReason !== undefined)}
        {...dataAttributes(p.data)}
      >
        {p.options.map((o) => (
          <option value={o.value} selected={o.value === chosen}>
            {o.label}
          </option>
        ))}
      </select>
      {fieldNotes(p, id, errors)}
    </div>
  );
}

type SelectProps = Parameters<typeof Select>[0];
type Scoped<P> = Omit<P, 'view' | 'errors'>;

/**
 * A form's Field and Select bound to its view, its errors and its values: each input then says only
 * what is its own (name, label, hint, limits), and its value is the form's value of that name unless
 * it gives one. One form, one scope: `const { Field, Select } = formScope(view, errors, values)`.
 */
export function formScope(
  view: PublicView,
  errors: FieldErrors | undefined,
  values: object = {},
): { Field: (p: Scoped<FieldProps>) => Html; Select: (p: Scoped<SelectProps>) => Html } {
  const valueOf = (p: { name: string; value?: unknown }): string | number | null | undefined => {
    const v = 'value' in p ? p.value : (values as Record<string, unknown>)[p.name];
    return typeof v === 'string' || typeof v === 'number' ? v : null;
  };
  return {
    Field: (p) => Field({ ...p, view, errors, value: valueOf(p) }),
    Select: (p) => {
      const v = valueOf(p);
      return Select({ ...p, view, errors, value: v === null || v === undefined ? null : String(v) });
    },
  };
}

export function Checkbox(p: { name: string; label: string; checked: boolean; value?: string; hint?: string; disabled?: boolean }): Html {
  const id = fieldId(`${p.name}-${p.value ?? 'on'}`);
  return (
    <div class="check">
      <input
        type="checkbox"
        id={id}
        name={p.name}
        value={p.value ?? 'on'}
        checked={p.checked}
        disabled={p.disabled}
        aria-describedby={p.hint ? `${id}-hint` : undefined}
      />
      <label for={id}>{p.label}</label>
      {p.hint ? (
        <span class="hint" id={`${id}-hint`}>
          {p.hint}
        </span>
      ) : null}
    </div>
  );
}

/**
 * A group of checkboxes sharing one name (event types, capabilities), each with a hint; the errors of
 * the field and of its entries (`name[2]`) are shown under the group.
 */
export function CheckGroup(p: {
  view: PublicView;
  name: string;
  legend: string;
  hint: string;
  options: readonly (Option & { hint: string })[];
  chosen: readonly string[];
  errors: FieldErrors;
}): Html {
  const id = fieldId(p.name);
  const problems = p.errors.within(p.name);
  return (
    <fieldset id={id} aria-describedby={problems.length > 0 ? `${id}-hint ${id}-error` : `${id}-hint`}>
      <legend>{p.legend}</legend>
      <span class="hint" id={`${id}-hint`}>
        {p.hint}
      </span>
      <div class="checks">
        {p.options.map((o) => (
          <Checkbox name={p.name} value={o.value} label={o.label} hint={o.hint} checked={p.chosen.includes(o.value)} />
        ))}
      </div>
      <FieldMessages view={p.view} id={id} errors={problems} />
    </fieldset>
  );
}

/** The errors at the top of a form: how many, and those that name no field shown on it. */
export function ErrorSummary({ view, errors, shownFields }: { view: PublicView; errors: FieldErrors; shownFields?: readonly string[] }): Html | null {
  if (errors.size === 0) return null;
  const loose = shownFields ? errors.except(shownFields) : [];
  return (
    <div class="alert" role="alert" tabindex={-1} id="form-errors">
      <p>{view.t('fieldErrorsSummary', { count: errors.size })}</p>
      {loose.length > 0 ? (
        <ul>
          {loose.map((e) => (
            <li>
              {e.field ? <code>{e.field}</code> : null} {fieldMessage(view, e)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A message after an action (role=status: announced without moving focus). */
export function Notice({ children, kind = 'ok' }: { children: Children; kind?: 'ok' | 'warn' | 'error' }): Html {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** Instead of a form that has nothing left to do (a link already disabled, nothing left to reverse): why, and the way back. */
export function NothingToDo({ view, why, back }: { view: PublicView; why: Children; back: string }): Html {
  return (
    <>
      <Notice kind="warn">{why}</Notice>
      <p>
        <a href={back}>{view.t('back')}</a>
      </p>
    </>
  );
}

/** A one-button form: an action on this page (disable, revoke, sign out) with its CSRF token. */
export function PostButton(p: {
  view: PublicView;
  action: string;
  label: string;
  fields?: Record<string, string>;
  kind?: 'primary' | 'secondary' | 'danger' | 'link';
  ariaLabel?: string;
}): Html {
  return (
    <form method="post" action={p.action} class="inline">
      <Csrf view={p.view} />
      {Object.entries(p.fields ?? {}).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <button type="submit" class={p.kind ?? 'secondary'} aria-label={p.ariaLabel}>
        {p.label}
      </button>
    </form>
  );
}

/**
 * A value to copy (a URL, a key, an identifier): a read-only input the reader can select, and a copy
 * button that the portal's script makes work (without the script the button is not shown).
 */
export function CopyField({ view, label, value, id, secret }: { view: PublicView; label: string; value: string; id: string; secret?: boolean }): Html {
  return (
    <div class="field copy">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} type="text" readonly value={value} class={secret ? 'mono secret' : 'mono'} spellcheck={false} autocomplete="off" />
        <button type="button" class="secondary copy-button" data-copy={id} data-copied={view.t('copied')} hidden>
          {view.t('copy')}
        </button>
      </div>
    </div>
  );
}

export function Money({ view, minor, currency }: { view: PublicView; minor: number; currency: string }): Html {
  return <span class="num">{formatMoney(minor, currency, view.lang)}</span>;
}

export function Time({ view, at, seconds }: { view: PublicView; at: Date | null; seconds?: boolean }): Html {
  if (at === null) return <span class="muted">–</span>;
  return <time datetime={isoTime(at)}>{formatDateTime(at, view.lang, { seconds })}</time>;
}

export function Badge({ children, tone }: { children: Children; tone: 'ok' | 'warn' | 'bad' | 'neutral' | 'info' }): Html {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

/**
 * Page links for a list: `page` counts from 0 as in the API; the other query parameters of the list
 * (its filters) are kept.
 */
export function Pager({
  view,
  base,
  query,
  page,
  pageSize,
  total,
}: {
  view: PublicView;
  base: string;
  query: Record<string, string>;
  page: number;
  pageSize: number;
  total: number;
}): Html | null {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (total === 0) return null;
  const href = (p: number): string => {
    const q = new URLSearchParams({ ...query, page: String(p) });
    return `${base}?${q.toString()}`;
  };
  const from = Math.min(total, page * pageSize + 1);
  const to = Math.min(total, (page + 1) * pageSize);
  return (
    <nav class="pager" aria-label={view.t('pageOf', { page: page + 1, pages })}>
      <span>{view.t('showing', { from, to, total })}</span>
      {page > 0 ? (
        <a href={href(page - 1)} rel="prev">
          {view.t('previous')}
        </a>
      ) : null}
      {page + 1 < pages ? (
        <a href={href(page + 1)} rel="next">
          {view.t('next')}
        </a>
      ) : null}
    </nav>
  );
}

/** A definition list of label → value rows. */
export function Facts({ rows }: { rows: readonly (readonly [string, Children] | null)[] }): Html {
  return (
    <dl class="facts">
      {rows
        .filter((r): r is readonly [string, Children] => r !== null)
        .map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </>
        ))}
    </dl>
  );
}

/** A table that scrolls sideways on a narrow screen instead of overflowing the page. */
export function TableWrap({ children, label }: { children: Children; label: string }): Html {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabindex={0}>
      {children}
    </div>
  );
}
