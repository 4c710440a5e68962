import type { JSX as ElementTypes } from 'preact';

// The one way the service writes markup: JSX, compiled by TypeScript's automatic runtime to calls of
// `jsx` below (tsconfig.json's `jsxImportSource` names this file through package.json's `imports`).
// Each call writes its element's HTML at once, as a string held in an `Html` value: a page is written
// while its components run, with no element tree kept and walked a second time. A portal list of 50
// rows is written in about half the time Preact's renderer took over the same JSX, and the service's
// pages come out byte for byte as that renderer wrote them (docs/performance.md, Pages).
//
// Escaping is the default and cannot be turned off:
// - a string or number among an element's children is text, escaped; an `Html` value (what JSX
//   gives) is markup, copied; null, undefined, booleans, functions and plain objects are nothing; a
//   list is each of these in turn;
// - every attribute value is escaped inside double quotes; a function (an event handler) is left out;
//   an attribute whose name could end the tag is left out, and a tag name that could is refused;
// - there is no way to hand in raw HTML: nothing here reads `dangerouslySetInnerHTML`, and an `Html`
//   value can be made only by this file.
// Inside an <svg>, attributes are written as given: spell them as SVG does (`viewBox`, `stroke-width`).
// A <select>'s `value` is written as an attribute: mark the chosen <option> with `selected`.
// The attribute types are Preact's (the element and attribute names of HTML and SVG, checked by the
// compiler); Preact itself does not run.

/** Markup written by JSX: made only here (the class is not exported), so whatever holds one holds escaped HTML. */
class Markup {
  /** Only this class's own values are Html to the compiler too (an object of the same shape is not). */
  declare private readonly nominal: never;
  constructor(readonly markup: string) {}
}

/** Markup written by JSX. */
export type Html = Markup;

/** What may stand between elements: text, a number, markup, nothing, or a list of these. */
export type Child = Html | string | number | bigint | boolean | null | undefined | readonly Child[];

/** The children a component takes. */
export type Children = Child;

/** A component: a function of its props that writes markup (or nothing). */
export type Component<P = object> = (props: P) => Html | null;

const ENTITY = /["&<]/;

/** A value escaped for text or a double-quoted attribute: `"`, `&` and `<` (a `>` alone opens nothing). */
export function escapeText(text: string): string {
  if (text.length === 0 || !ENTITY.test(text)) return text;
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    let entity: string;
    switch (text.charCodeAt(i)) {
      case 34:
        entity = '&quot;';
        break;
      case 38:
        entity = '&amp;';
        break;
      case 60:
        entity = '&lt;';
        break;
      default:
        continue;
    }
    if (i !== last) out += text.slice(last, i);
    out += entity;
    last = i + 1;
  }
  return last < text.length ? out + text.slice(last) : out;
}

/** Children as HTML: text escaped, markup copied, nothing left out. */
function childrenHtml(child: unknown): string {
  if (typeof child === 'string') return escapeText(child);
  if (child instanceof Markup) return child.markup;
  if (typeof child === 'object' && child !== null) {
    if (Array.isArray(child)) {
      let out = '';
      for (let i = 0; i < child.length; i++) out += childrenHtml(child[i]);
      return out;
    }
    return '';
  }
  if (typeof child === 'number' || typeof child === 'bigint') return String(child);
  return '';
}

const VOID = new Set(['area', 'base', 'br', 'col', 'command', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** A name that could end an attribute or the tag. */
const UNSAFE_NAME = /[\s\\/='"\0<>]/;
/** DOM property names whose attribute is their lowercase (`maxLength` is `maxlength`). */
const LOWER_CASE =
  /^(?:accessK|auto[A-Z]|cell|ch|col|cont|cross|dateT|encT|form[A-Z]|frame|hrefL|inputM|maxL|minL|noV|playsI|popoverT|readO|rowS|src[A-Z]|tabI|useM|item[A-Z])/;
/** Attribute names checked once: a page uses few, again and again. */
const names = new Map<string, string | null>();

/** The attribute a prop is written as, or null for a prop that is not one. */
function attributeName(prop: string): string | null {
  let name: string | null;
  if (prop === 'children' || prop === 'key' || prop === 'ref' || prop === 'dangerouslySetInnerHTML' || UNSAFE_NAME.test(prop)) name = null;
  else if (prop === 'className') name = 'class';
  else if (prop === 'htmlFor') name = 'for';
  else if (prop === 'defaultValue') name = 'value';
  else if (prop === 'defaultChecked') name = 'checked';
  else if (prop === 'acceptCharset') name = 'accept-charset';
  else if (prop === 'httpEquiv') name = 'http-equiv';
  else name = LOWER_CASE.test(prop) ? prop.toLowerCase() : prop;
  if (names.size < 1000) names.set(prop, name);
  return name;
}

/** Element names checked once. */
const tags = new Set<string>();

function element(tag: string, props: Record<string, unknown>): Html {
  if (!tags.has(tag)) {
    if (UNSAFE_NAME.test(tag)) throw new Error(`${JSON.stringify(tag)} is not an element name`);
    if (tags.size < 1000) tags.add(tag);
  }
  let open = '<' + tag;
  let children: unknown;
  for (const prop in props) {
    let value = props[prop];
    if (prop === 'children') {
      children = value;
      continue;
    }
    if (value === undefined || value === null) continue;
    let name = names.get(prop);
    if (name === undefined) name = attributeName(prop);
    if (name === null) continue;
    // class and for win over className and htmlFor.
    if (name !== prop && ((prop === 'className' && 'class' in props) || (prop === 'htmlFor' && 'for' in props))) continue;
    if (typeof value === 'string') {
      // A textarea's value is its text (children given after it win, as they would in Preact).
      if (name === 'value' && tag === 'textarea') children = value;
      else open += value === '' ? ' ' + name : ' ' + name + '="' + escapeText(value) + '"';
      continue;
    }
    if (typeof value === 'function') continue;
    // aria-* and data-* booleans are words ("true", "false"), as are these two.
    if (typeof value === 'boolean' && (name.charCodeAt(4) === 45 || name === 'draggable' || name === 'spellcheck')) value = String(value);
    else if (value === false) continue;
    if (name === 'value' && tag === 'textarea') children = value;
    else open += value === true || value === '' ? ' ' + name : ' ' + name + '="' + escapeText(String(value as number)) + '"';
  }
  const inner = childrenHtml(children);
  if (inner === '' && VOID.has(tag)) return new Markup(open + '/>');
  return new Markup(open + '>' + inner + '</' + tag + '>');
}

const NOTHING = new Markup('');

/** Children side by side, with no element around them (`<>…</>`). */
export function Fragment(props: { children?: Child }): Html {
  return new Markup(childrenHtml(props.children));
}

/** An element or a component, written now (what TypeScript compiles JSX to). */
export function jsx<P extends object>(type: string | Component<P>, props: P): Html {
  if (typeof type === 'string') return element(type, props as Record<string, unknown>);
  return type(props) ?? NOTHING;
}

export { jsx as jsxs, jsx as jsxDEV };

/** Markup as the HTML it holds. */
export function htmlOf(value: Child): string {
  return childrenHtml(value);
}

// The types the compiler checks JSX against: Preact's names of elements and attributes, this file's
// values.
// eslint-disable-next-line @typescript-eslint/no-namespace
export namespace JSX {
  export type Element = Html;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a component's props are its own; the compiler checks them at each use
  export type ElementType = string | ((props: any) => Html | null);
  export interface ElementChildrenAttribute {
    children: unknown;
  }
  export interface IntrinsicAttributes {
    key?: string | number;
  }
  export type IntrinsicElements = ElementTypes.IntrinsicElements;
}
