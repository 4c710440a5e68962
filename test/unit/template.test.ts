import { describe, expect, it } from 'vitest';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { attrs, html } from '../../src/html/template.js';

// The markup templates of the busiest pages (src/html/template.ts): every value is escaped as JSX
// escapes it, a value where escaping would not hold is refused, and the HTML is what JSX gives.

const HOSTILE = `x"'><script>alert(1)</script>&amp;`;

describe('html templates', () => {
  it('escapes a value between elements and inside a double-quoted attribute', () => {
    const out = renderToString(html`<p title="${HOSTILE}">${HOSTILE}</p>`);
    expect(out).toBe('<p title="x&quot;\'>&lt;script>alert(1)&lt;/script>&amp;amp;">x&quot;\'>&lt;script>alert(1)&lt;/script>&amp;amp;</p>');
    expect(out).not.toContain('<script>');
  });

  it('writes what JSX writes for the same markup and values', () => {
    const rows = ['a<b', 'c&d'];
    // The same markup as JSX (`<ul class="x">{rows.map((r) => <li><a href={...}>{r}</a> {3}</li>)}{null}{false}</ul>`).
    const fromJsx = renderToString(h('ul', { class: 'x' }, rows.map((r) => h('li', null, h('a', { href: `/p/${r}` }, r), ' ', 3)), null, false));
    const fromTemplate = renderToString(html`<ul class="x">${rows.map((r) => html`<li><a href="/p/${r}">${r}</a> ${3}</li>`)}${null}${false}</ul>`);
    expect(fromTemplate).toBe(fromJsx);
  });

  it('renders elements, templates and lists inside it, escaping the text inside them once', () => {
    const list = ['<i>', 'a&b'];
    const out = renderToString(html`<div>${h('b', null, HOSTILE)}${html`<em>${'<x>'}</em>`}${list}</div>`);
    expect(out).toBe('<div><b>x&quot;\'>&lt;script>alert(1)&lt;/script>&amp;amp;</b><em>&lt;x></em>&lt;i>a&amp;b</div>');
    // The caller's list is left as it was (a second use is not escaped twice).
    expect(list).toEqual(['<i>', 'a&b']);
    expect(renderToString(html`<div>${list}</div>`)).toBe('<div>&lt;i>a&amp;b</div>');
  });

  it('leaves out line breaks and the indentation after them, as between JSX elements', () => {
    const out = renderToString(html`
      <p>
        <span>${'a'}</span> <span>b</span>
      </p>`);
    expect(out).toBe('<p><span>a</span> <span>b</span></p>');
  });

  it('refuses a value where escaping would not hold: unquoted, single-quoted, as an attribute name, in a script, a style, a comment, an event handler or a style attribute', () => {
    const v = 'x';
    expect(() => html`<a href=${v}>x</a>`).toThrow(/would not be safe/);
    expect(() => html`<a href='${v}'>x</a>`).toThrow(/would not be safe/);
    expect(() => html`<a x${v}="1">x</a>`).toThrow(/would not be safe/);
    // Where an attribute may begin, only a list made by attrs() stands.
    expect(() => html`<a ${v}>x</a>`).toThrow(/only attrs/);
    expect(() => html`<p>${attrs({ id: 'x' })}</p>`).toThrow(/only where an attribute may begin/);
    expect(() => html`<script>${v}</script>`).toThrow(/would not be safe/);
    expect(() => html`<style>${v}</style>`).toThrow(/would not be safe/);
    expect(() => html`<!-- ${v} -->`).toThrow(/would not be safe/);
    expect(() => html`<a onclick="${v}">x</a>`).toThrow(/would not be safe/);
    expect(() => html`<a style="${v}">x</a>`).toThrow(/would not be safe/);
    expect(() => html`<a href="x">x</a`).toThrow(/ends inside a tag/);
    // After a script or a comment has ended, values are text again.
    expect(renderToString(html`<script src="/a.js"></script><!-- c --><p>${'<'}</p>`)).toBe('<script src="/a.js"></script><!-- c --><p>&lt;</p>');
  });

  it('takes only text or a number as an attribute value', () => {
    expect(renderToString(html`<td colspan="${2}" class="a ${'b'}">x</td>`)).toBe('<td colspan="2" class="a b">x</td>');
    expect(() => html`<a href="${null as unknown as string}">x</a>`).toThrow(/must be a string or a number/);
    expect(() => html`<a href="${h('b', null) as unknown as string}">x</a>`).toThrow(/must be a string or a number/);
  });

  it('writes attribute lists as JSX writes the same props, and refuses a name that is not a plain attribute', () => {
    const props = { id: 'f-a', name: HOSTILE, required: true, disabled: false, placeholder: undefined, maxlength: 200, 'aria-invalid': 'true', 'data-item': '', value: '' };
    expect(renderToString(html`<input${attrs(props)}/>`)).toBe(renderToString(h('input', props)));
    expect(renderToString(html`<div class="x"${attrs({ 'aria-hidden': true, 'data-on': false })}>y</div>`)).toBe(renderToString(h('div', { class: 'x', 'aria-hidden': true, 'data-on': false }, 'y')));
    for (const name of ['onclick', 'style', 'Bad', 'a b', 'x"y', '']) expect(() => attrs({ [name]: 'v' })).toThrow(/not an attribute a template writes/);
  });
});
