import { isValidElement, type ComponentChildren, type VNode } from 'preact';
import { jsxEscape, jsxTemplate } from 'preact/jsx-runtime';

// Markup written as a tagged template, for the few parts of a page rendered many times over (a list
// page's rows, the portal's frame). It is the same renderer's precompiled form of JSX: Preact's own
// template nodes (`jsxTemplate`, which preact-render-to-string writes out as its static parts with
// the values between them), so a row costs a few string joins instead of a dozen elements walked one
// by one. A page of 20 rows renders in a fraction of the time (docs/performance.md), with the same
// HTML.
//
// Escaping stays the default, as in JSX:
// - a value between elements is text: a string or number is escaped, an element (JSX or another
//   template) is rendered as one, null/undefined/booleans are left out, an array is each of these;
// - a value inside a double-quoted attribute must be a string or a number, and is escaped;
// - a value where an attribute may begin (after the tag's name, a space or a quoted value) must be
//   a list of attributes made by `attrs`, which checks their names and escapes their values;
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
    else throw new Error(`html template: a value after ${JSON.stringify(s.slice(-40))} would not be safe there (values go between elements, inside a double-quoted attribute that is not a style or an event handler, or as attrs(...) where an attribute may begin)`);
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
  if (typeof value === 'object' && value !== null && ATTRIBUTES in value) throw new TypeError('html template: attrs(...) stands only where an attribute may begin');
  // Anything else that is not an element (a plain object) is nothing, as in JSX.
  if (typeof value === 'object' && value !== null && !isValidElement(value)) return null;
  return jsxEscape(value) as string | VNode | null;
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

/**
 * Attributes for a tag in a template, written as JSX writes them: in the order given, null,
 * undefined and false left out, true and '' as the bare name (an aria- or data- attribute's boolean
 * as its word), every other value escaped inside double quotes.
 */
export function attrs(list: Readonly<Record<string, AttributeValue>>): Attributes {
  let out = '';
  for (const name in list) {
    if (!ATTRIBUTE_NAME.test(name) || name === 'style') throw new Error(`html template: ${JSON.stringify(name)} is not an attribute a template writes`);
    let v = list[name];
    if ((name.startsWith('aria-') || name.startsWith('data-')) && typeof v === 'boolean') v = String(v);
    if (v === undefined || v === null || v === false) continue;
    out += v === true || v === '' ? ` ${name}` : ` ${name}="${jsxEscape(String(v)) as string}"`;
  }
  return { [ATTRIBUTES]: out };
}

function attributesValue(value: unknown): string {
  if (typeof value === 'object' && value !== null && ATTRIBUTES in value) return (value as Attributes)[ATTRIBUTES];
  throw new TypeError('html template: where an attribute may begin, only attrs(...) may stand');
}

/** A piece of markup with its values escaped (see above); it renders wherever a JSX element can. */
export function html(strings: TemplateStringsArray, ...values: (TemplateChild | Attributes)[]): VNode {
  let c = compiled.get(strings);
  if (!c) {
    c = compile(strings);
    compiled.set(strings, c);
  }
  const slots = c.slots;
  const exprs = values.map((v, i) => (slots[i] === 'text' ? textValue(v) : slots[i] === 'attribute' ? attributeValue(v) : attributesValue(v)));
  return jsxTemplate(c.parts, ...(exprs as (string | VNode | null)[]));
}
