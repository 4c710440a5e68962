import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { h, Fragment as PreactFragment, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { Fragment, htmlOf, jsx, type Child, type Html } from '../../src/html/jsx-runtime.js';
import { renderDocument } from '../../src/html/render.js';

// The pages' JSX runtime (src/html/jsx-runtime.ts) writes what Preact's renderer wrote for the same
// JSX, byte for byte, and escapes every value. Preact stays a development dependency for this test and
// for the attribute types.

const HOSTILE = `x"'><script>alert(1)</script>&amp;<img src=x onerror=alert(2)>`;

/** A random tree described once, built with both runtimes. */
type Tree = { tag: string; attrs: Record<string, string | number | boolean | null | undefined>; children: (Tree | string | number | null | boolean)[] };

// Not <select>/<option>: Preact marked the option matching a select's `value`; the pages mark the
// chosen option with `selected` themselves, and the runtime writes attributes as they are given. Not
// <svg>: Preact rewrote some camelCase names inside one; the runtime writes an element before it knows
// its parent, so SVG attributes are written as SVG spells them (`viewBox`, `stroke-width`).
const TAGS = ['div', 'span', 'p', 'a', 'td', 'input', 'br', 'img', 'textarea', 'time', 'label', 'meta', 'button'] as const;
const NAMES = [
  'class',
  'className',
  'id',
  'href',
  'title',
  'value',
  'for',
  'htmlFor',
  'aria-label',
  'aria-hidden',
  'data-copy',
  'hidden',
  'disabled',
  'maxLength',
  'tabIndex',
  'spellcheck',
  'rows',
  'alt',
];
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(HOSTILE, '', ' ', '&', '<', '"', "'", '>', 'kr.'));
const value = fc.oneof(text, fc.integer({ min: -5, max: 100_000 }), fc.boolean(), fc.constant(null), fc.constant(undefined));

const leaf = fc.oneof(text, fc.integer(), fc.constant(null), fc.boolean());
/** Trees up to `depth` elements deep. */
function treeOf(depth: number): fc.Arbitrary<Tree> {
  const child = depth === 0 ? leaf : fc.oneof(treeOf(depth - 1), leaf);
  return fc.record({
    tag: fc.constantFrom(...TAGS),
    attrs: fc.dictionary(fc.constantFrom(...NAMES), value, { maxKeys: 4 }),
    children: fc.array(child, { maxLength: 4 }),
  });
}
const tree = treeOf(3);

function withPreact(t: Tree | string | number | null | boolean): VNode | string | number | null | boolean {
  if (t === null || typeof t !== 'object') return t;
  return h(t.tag, t.attrs, ...t.children.map(withPreact));
}

function withRuntime(t: Tree | string | number | null | boolean): Child {
  if (t === null || typeof t !== 'object') return t;
  const children = t.children.map(withRuntime);
  return jsx(t.tag, { ...t.attrs, ...(children.length === 0 ? {} : { children: children.length === 1 ? children[0] : children }) });
}

describe('the JSX runtime', () => {
  it('writes what Preact wrote, for any tree of elements, attributes and text', () => {
    fc.assert(
      fc.property(tree, (t) => {
        expect(htmlOf(withRuntime(t))).toBe(renderToString(withPreact(t) as VNode));
      }),
      { numRuns: 2000 },
    );
  });

  it('components and fragments are written as their markup, as Preact wrote them', () => {
    const Row = (p: { name: string; children?: Child }): Html =>
      jsx('tr', { children: [jsx('td', { children: p.name }), jsx('td', { children: p.children })] });
    const ours = jsx(Fragment, { children: [jsx(Row, { name: HOSTILE, children: 3 }), jsx(Row, { name: 'b', children: [null, false, 'x', [1, [2]]] })] });
    const PRow = (p: { name: string; children?: unknown }): VNode => h('tr', null, h('td', null, p.name), h('td', null, p.children as string));
    const theirs = h(PreactFragment, null, h(PRow, { name: HOSTILE }, 3), h(PRow, { name: 'b' }, null, false, 'x', [1, [2]]));
    expect(htmlOf(ours)).toBe(renderToString(theirs));
  });

  it('escapes text and attribute values, leaves out handlers and names that could end a tag', () => {
    const out = htmlOf(jsx('a', { href: HOSTILE, onclick: () => 1, 'x"><script': 'y', children: HOSTILE }));
    const escaped = `x&quot;'>&lt;script>alert(1)&lt;/script>&amp;amp;&lt;img src=x onerror=alert(2)>`;
    expect(out).toBe(`<a href="${escaped}">${escaped}</a>`);
    expect(out).not.toContain('<script');
    expect(out).not.toContain('onclick');
    expect(() => jsx('a><script', {})).toThrow(/not an element name/);
  });

  it('takes no raw HTML: dangerouslySetInnerHTML and look-alike objects are nothing', () => {
    expect(htmlOf(jsx('div', { dangerouslySetInnerHTML: { __html: '<b>x</b>' } }))).toBe('<div></div>');
    // An object that is not markup made by the runtime writes nothing, however it looks.
    expect(htmlOf(jsx('div', { children: { html: '<b>x</b>', __html: '<b>x</b>' } as unknown as Child }))).toBe('<div></div>');
  });

  it('a document is the doctype and the markup', () => {
    expect(renderDocument(jsx('html', { lang: 'is', children: jsx('body', { children: 'a<b' }) }))).toBe(
      '<!doctype html>\n<html lang="is"><body>a&lt;b</body></html>\n',
    );
  });
});
