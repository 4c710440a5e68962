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
    const fromJsx = renderToString(
      h(
        'ul',
        { class: 'x' },
        rows.map((r) => h('li', null, h('a', { href: `/p/${r}` }, r), ' ', 3)),
        null,
        false,
      ),
    );
    const fromTemplate = renderToString(html`<ul class="x">${rows.map((r) => html`<li><a href="/p/${r}">${r}</a> ${3}</li>`)}${null}${false}</ul>`);
    expect(fromTemplate).toBe(fromJsx);
  });

  it('renders elements, templates and lists inside it, escaping the text inside them once', () => {
    const list = ['<i>', 'a&b'];
    const out = renderToString(html`<div>${h('b', null, HOSTILE)}${html`<em>${'<x>'}</em>`}${list}</div>`);
    expect(out).toBe("<div><b>x&quot;'>&lt;script>alert(1)&lt;/script>&amp;amp;</b><em>&lt;x></em>&lt;i>a&amp;b</div>");
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
    const props = {
      id: 'f-a',
      name: HOSTILE,
      required: true,
      disabled: false,
      placeholder: undefined,
      maxlength: 200,
      'aria-invalid': 'true',
      'data-item': '',
      value: '',
    };
    expect(renderToString(html`<input${attrs(props)}/>`)).toBe(renderToString(h('input', props)));
    expect(renderToString(html`<div class="x"${attrs({ 'aria-hidden': true, 'data-on': false })}>y</div>`)).toBe(
      renderToString(h('div', { class: 'x', 'aria-hidden': true, 'data-on': false }, 'y')),
    );
    for (const name of ['onclick', 'style', 'Bad', 'a b', 'x"y', '']) expect(() => attrs({ [name]: 'v' })).toThrow(/not an attribute a template writes/);
    // A good name is checked once; a bad one is refused every time, also after good ones.
    expect(renderToString(html`<i${attrs({ id: 'a' })}></i><i${attrs({ id: 'b' })}></i>`)).toBe('<i id="a"></i><i id="b"></i>');
    for (let i = 0; i < 2; i++) expect(() => attrs({ id: 'a', onclick: 'v' })).toThrow(/not an attribute a template writes/);
  });

  it('takes several attribute lists one after another, and null for none', () => {
    const props = { id: 'f-a', 'data-x': '1', type: 'text', value: HOSTILE };
    expect(renderToString(html`<input${attrs({ id: 'f-a' })}${null}${attrs({ 'data-x': '1' })}${attrs({ type: 'text', value: HOSTILE })}/>`)).toBe(
      renderToString(h('input', props)),
    );
    expect(() => html`<a ${{} as unknown as null}>x</a>`).toThrow(/only attrs/);
  });

  it('writes the same HTML whether its values are known at once or an element among them is left to the renderer', () => {
    const inner = (x: unknown) => html`<li class="${'c"'}">${x as string}</li>`;
    const values: unknown[] = ['a<b', 7, null, undefined, true, false, () => 'f', { plain: 1 }, [['x&', 2], inner('<')], inner(inner('y'))];
    const jsx = (x: unknown): unknown => (Array.isArray(x) ? x.map(jsx) : x);
    for (const v of values) {
      const known = renderToString(html`<ul>${v as string}</ul>`);
      // The same value beside a JSX element: the template is the renderer's to write.
      const rendered = renderToString(html`<ul>${v as string}${h('b', null)}</ul>`);
      expect(rendered).toBe(known.replace('</ul>', '<b></b></ul>'));
      expect(known).toBe(renderToString(h('ul', null, jsx(v) as string)));
    }
    // A template written at once is one piece of markup, rendered as it is wherever it stands.
    expect(renderToString(h('div', null, html`<p>${'<'}</p>`, h('span', null, html`${'&'}`)))).toBe('<div><p>&lt;</p><span>&amp;</span></div>');
  });
});
