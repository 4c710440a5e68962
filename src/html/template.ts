import { Fragment, isValidElement, type ComponentChildren, type VNode } from 'preact';
import { jsxEscape, jsxTemplate } from 'preact/jsx-runtime';

// Markup written as a tagged template, for what the portal renders on every page and many times a
// page: its frame, its fields and pagers, and the list pages with their rows. It is the same
// renderer's precompiled form of JSX: Preact's own template nodes (`jsxTemplate`, which
// preact-render-to-string writes out as its static parts with the values between them), so a row
// costs a few string joins instead of a dozen elements walked one by one, and the HTML is the same
// (docs/performance.md has the figures). Elsewhere the pages stay JSX.
//
// Escaping stays the default, as in JSX:
// - a value between elements is text: a string or number is escaped, an element (JSX or another
//   template) is rendered as one, null/undefined/booleans are left out, an array is each of these;
// - a value inside a double-quoted attribute must be a string or a number, and is escaped;
// - a value where an attribute may begin (after the tag's name, a space, a quoted value or another
//   such value) must be a list of attributes made by `attrs`, which checks their names and escapes
//   their values, or null for none;
// - a value anywhere else (an attribute name, an unquoted or single-quoted value, inside a tag, a
//   comment, a script or a style) is refused when the template is first used, so that no value can
//   be written where escaping would not hold.
// Line breaks and the indentation after them are not part of the HTML (as between JSX elements):
// write a space where a space is meant.

/** What may stand between elements: what JSX takes as children (text, a number, an element, nothing, or a list of these). */
export type TemplateChild = ComponentChildren;

type Slot = 'text' | 'attribute' | 'attributes';

interface Compiled {
  parts: string[];
  slots: Slot[];
}

const compiled = new WeakMap<TemplateStringsArray, Compiled>();

/** Where each value of a template falls, read once per template from its static parts. */
function compile(strings: TemplateStringsArray): Compiled {
  const parts = strings.map((s) => s.replace(/[ \t]*\r?\n\s*/g, ''));
  const slots: Slot[] = [];
  // The states of an HTML tokenizer, reduced to what decides how a value must be written.
  let state: 'text' | 'tag' | 'dq' | 'sq' | 'comment' | 'raw' = 'text';
  let rawEnd = '';
  let tag = '';
  let attribute = '';
  for (let p = 0; p < parts.length; p++) {
    const s = parts[p] as string;
    for (let i = 0; i < s.length; i++) {
      const c = s[i] as string;
      if (state === 'text') {
        if (s.startsWith('<!--', i)) {
          state = 'comment';
          i += 3;
        } else if (c === '<') {
          state = 'tag';
          tag = '';
          const raw = /^<(script|style)\b/i.exec(s.slice(i));
          rawEnd = raw ? `</${(raw[1] as string).toLowerCase()}` : '';
        }
      } else if (state === 'tag') {
        if (c === '"') {
          state = 'dq';
          attribute = /([^\s"'=<>/]+)\s*=\s*$/.exec(tag)?.[1]?.toLowerCase() ?? '';
        } else if (c === "'") state = 'sq';
        else if (c === '>') state = rawEnd ? 'raw' : 'text';
        tag += c;
      } else if (state === 'dq') {
        if (c === '"') state = 'tag';
      } else if (state === 'sq') {
        if (c === "'") state = 'tag';
      } else if (state === 'comment') {
        if (s.startsWith('-->', i)) {
          state = 'text';
          i += 2;
        }
      } else if (s.slice(i).toLowerCase().startsWith(rawEnd)) {
        state = 'tag';
        rawEnd = '';
      }
    }
    if (p === parts.length - 1) break;
    if (state === 'text') slots.push('text');
    else if (state === 'tag' && /^[a-zA-Z][\w-]*$|["\s]$/.test(tag)) slots.push('attributes');
    // Escaping keeps a value inside its quotes; it would not make a script or a style safe.
    else if (state === 'dq' && attribute !== '' && attribute !== 'style' && !attribute.startsWith('on')) slots.push('attribute');
    else
      throw new Error(
        `html template: a value after ${JSON.stringify(s.slice(-40))} would not be safe there (values go between elements, inside a double-quoted attribute that is not a style or an event handler, or as attrs(...) where an attribute may begin)`,
      );
  }
  if (state !== 'text') throw new Error(`html template: it ends inside a tag, a comment or a raw-text element (${JSON.stringify(parts.at(-1)?.slice(-40))})`);
  return { parts, slots };
}

const ATTRIBUTES: unique symbol = Symbol('attributes');

/**
 * A value between elements: text escaped here (the renderer writes a template's values as they are),
 * an element or a list handed to the renderer, which escapes the text inside them as in JSX.
 */
function textValue(value: TemplateChild | Attributes): string | VNode | null | readonly TemplateChild[] {
  if (Array.isArray(value)) return [...(value as readonly TemplateChild[])];
  if (typeof value === 'object' && value !== null && ATTRIBUTES in value)
    throw new TypeError('html template: attrs(...) stands only where an attribute may begin');
  // Anything else that is not an element (a plain object) is nothing, as in JSX.
  if (typeof value === 'object' && value !== null && !isValidElement(value)) return null;
  return jsxEscape(value) as string | VNode | null;
}

/** The markup of a template whose values were all written when it was made (see `html`), or undefined. */
function writtenMarkup(node: VNode): string | undefined {
  const props = node.props as { tpl?: readonly string[]; exprs?: readonly unknown[] };
  return node.type === Fragment && props.tpl?.length === 1 && props.exprs?.length === 0 ? props.tpl[0] : undefined;
}

/**
 * A value between elements as the renderer would write it, when that can be known now: text and
 * numbers escaped, nothing for null, undefined, booleans, functions and plain objects, a written
 * template's markup, a list as its items one after the other. Undefined for anything the renderer
 * must render itself (a JSX element, or a list holding one).
 */
function markupNow(value: unknown): string | undefined {
  if (typeof value === 'string') return jsxEscape(value) as string;
  if (value === null || value === undefined || typeof value === 'boolean' || typeof value === 'function') return '';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    let out = '';
    for (const item of value as readonly unknown[]) {
      const m = markupNow(item);
      if (m === undefined) return undefined;
      out += m;
    }
    return out;
  }
  if (typeof value === 'object') {
    if (ATTRIBUTES in value) throw new TypeError('html template: attrs(...) stands only where an attribute may begin');
    return isValidElement(value) ? writtenMarkup(value) : '';
  }
  return undefined;
}

function attributeValue(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return jsxEscape(String(value)) as string;
  throw new TypeError(`html template: an attribute's value must be a string or a number, not ${value === null ? 'null' : typeof value}`);
}

/** Attributes written by `attrs`, for a template's tag. */
export interface Attributes {
  readonly [ATTRIBUTES]: string;
}

export type AttributeValue = string | number | boolean | null | undefined;

/** A name an attribute list may use: lowercase HTML names, never an event handler or a style. */
const ATTRIBUTE_NAME = /^(?!on)[a-z][a-z0-9-]*$/;

/** The names found good so far (they are written in the code, so there are few). */
const allowedNames = new Set<string>();

function allowName(name: string): void {
  if (!ATTRIBUTE_NAME.test(name) || name === 'style') throw new Error(`html template: ${JSON.stringify(name)} is not an attribute a template writes`);
  if (allowedNames.size < 1000) allowedNames.add(name);
}

/**
 * Attributes for a tag in a template, written as JSX writes them: in the order given, null,
 * undefined and false left out, true and '' as the bare name (an aria- or data- attribute's boolean
 * as its word), every other value escaped inside double quotes.
 */
export function attrs(list: Readonly<Record<string, AttributeValue>>): Attributes {
  let out = '';
  for (const name in list) {
    if (!allowedNames.has(name)) allowName(name);
    let v = list[name];
    if ((name.startsWith('aria-') || name.startsWith('data-')) && typeof v === 'boolean') v = String(v);
    if (v === undefined || v === null || v === false) continue;
    out += v === true || v === '' ? ` ${name}` : ` ${name}="${jsxEscape(String(v)) as string}"`;
  }
  return { [ATTRIBUTES]: out };
}

function attributesValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && ATTRIBUTES in value) return (value as Attributes)[ATTRIBUTES];
  throw new TypeError('html template: where an attribute may begin, only attrs(...) (or nothing) may stand');
}

/**
 * A piece of markup with its values escaped (see above); it renders wherever a JSX element can. When
 * every value is text, a number, nothing or another such template, the markup is written now, as one
 * string the renderer copies out; a JSX element among the values leaves the rest to the renderer.
 */
export function html(strings: TemplateStringsArray, ...values: (TemplateChild | Attributes)[]): VNode {
  let c = compiled.get(strings);
  if (!c) {
    c = compile(strings);
    compiled.set(strings, c);
  }
  const { parts, slots } = c;
  let out = parts[0] as string;
  for (let i = 0; i < values.length; i++) {
    const slot = slots[i];
    const v = values[i];
    const m = slot === 'text' ? markupNow(v) : slot === 'attribute' ? attributeValue(v) : attributesValue(v);
    if (m === undefined) return rendered(c, values);
    out += m + (parts[i + 1] as string);
  }
  return jsxTemplate([out]);
}

/** A template with a JSX element among its values, for the renderer to write. */
function rendered(c: Compiled, values: readonly (TemplateChild | Attributes)[]): VNode {
  const exprs = values.map((v, i) => (c.slots[i] === 'text' ? textValue(v) : c.slots[i] === 'attribute' ? attributeValue(v) : attributesValue(v)));
  return jsxTemplate(c.parts, ...(exprs as (string | VNode | null)[]));
}
