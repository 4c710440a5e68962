import { asset, type Asset } from '../web/assets.js';

// The portal's stylesheet and its one script, served by the web layer's one mechanism
// (src/web/assets.ts). The script only enhances: every page works, and every form posts, without it.

const PORTAL_CSS = `
:root { color-scheme: light; --bg: #f4f5f7; --panel: #ffffff; --text: #1d2330; --muted: #535c6d; --accent: #1f5eff; --accent-dark: #1546c4; --accent-text: #ffffff;
  --border: #d5d9e0; --error: #b00020; --ok: #116a41; --warn: #8a5a00; --bad-bg: #fde8eb; --ok-bg: #e3f4ea; --warn-bg: #fff3d6; --info-bg: #e7eeff; --neutral-bg: #eceef2; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent-dark); }
a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--panel); padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: .5rem; top: .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.muted { color: var(--muted); }
.small { font-size: .85rem; }
.mono, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
/* an identifier (a reference, a key id) is one token: it never breaks inside, even in a wrapping cell; a table too wide scrolls sideways in its .table-wrap */
.mono { white-space: nowrap; overflow-wrap: normal; }
/* a long one (a saved card's token, an address) may break anywhere */
.mono.break { white-space: normal; overflow-wrap: anywhere; }
/* a merchant's text of several lines (a link's messages) keeps its line breaks */
.pre-line { white-space: pre-line; overflow-wrap: anywhere; }
.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
h1 { font-size: 1.5rem; margin: 0; line-height: 1.25; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 0 0 .75rem; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }

/* frame */
.topbar { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; padding: .6rem 1.25rem; background: var(--panel); border-bottom: 1px solid var(--border); }
.brand { display: inline-flex; align-items: center; gap: .5rem; font-weight: 700; color: var(--text); text-decoration: none; }
.who { display: flex; align-items: center; gap: .6rem; flex: 1; min-width: 0; }
.merchant-name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.role { font-size: .8rem; color: var(--muted); border: 1px solid var(--border); border-radius: 999px; padding: 0 .5rem; white-space: nowrap; }
.user { display: flex; align-items: center; gap: .9rem; flex-wrap: wrap; font-size: .9rem; }
.user a { overflow-wrap: anywhere; }
.shell { display: grid; grid-template-columns: 13rem minmax(0, 1fr); min-height: calc(100vh - 3.5rem); }
.sidenav { background: var(--panel); border-right: 1px solid var(--border); padding: 1rem .5rem; }
.sidenav ul { list-style: none; margin: 0; padding: 0; }
.sidenav a { display: block; padding: .45rem .75rem; border-radius: 6px; color: var(--text); text-decoration: none; }
.sidenav a:hover { background: var(--bg); }
.sidenav a[aria-current="page"] { background: var(--info-bg); color: var(--accent-dark); font-weight: 600; }
main { padding: 1.5rem 2rem 3rem; max-width: 72rem; width: 100%; }
main:focus { outline: none; }
.page-head { display: flex; align-items: center; justify-content: space-between; gap: 1rem; flex-wrap: wrap; margin-bottom: 1rem; }
.page-head h1 { min-width: 0; overflow-wrap: anywhere; }
.page-actions { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; }
.lead { color: var(--muted); margin: -.5rem 0 1rem; overflow-wrap: anywhere; }
.panel { background: var(--panel); border: 1px solid var(--border); border-radius: 10px; padding: 1.1rem 1.25rem; margin-bottom: 1.25rem; }
.panel > h2:first-child, .panel > p:first-child { margin-top: 0; }
.panel > p:last-child { margin-bottom: 0; }
.grid { display: grid; gap: 1.25rem; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); }
.stat { font-size: 1.6rem; font-weight: 700; margin: 0; }
.stat-label { color: var(--muted); margin: 0; font-size: .9rem; }

/* public pages */
body.public { display: flex; min-height: 100vh; align-items: flex-start; justify-content: center; }
.card { background: var(--panel); border: 1px solid var(--border); border-radius: 12px; margin: 3rem 1rem; padding: 1.5rem; max-width: 26rem; width: 100%; }
.card-head { display: flex; justify-content: space-between; align-items: center; margin-bottom: 1rem; }
.card h1 { font-size: 1.3rem; margin-bottom: 1rem; }

/* forms */
form.inline { display: inline; margin: 0; }
.field { margin-bottom: .9rem; }
label { display: block; font-weight: 600; font-size: .9rem; margin-bottom: .25rem; }
.tag { font-weight: 400; color: var(--muted); font-size: .8rem; }
.hint { display: block; color: var(--muted); font-size: .8rem; margin-top: .2rem; }
input, select, textarea { font: inherit; color: var(--text); background: var(--panel); border: 1px solid #8a93a3; border-radius: 6px; padding: .45rem .6rem; width: 100%; max-width: 32rem; }
input[type="checkbox"], input[type="radio"] { width: auto; }
input[type="color"] { padding: .1rem; height: 2.4rem; max-width: 6rem; }
input:disabled, select:disabled, textarea:disabled { background: var(--bg); color: var(--muted); border-color: var(--border); }
input[readonly] { background: var(--bg); }
[aria-invalid="true"] { border-color: var(--error); border-width: 2px; }
.error { color: var(--error); font-size: .85rem; margin: .25rem 0 0; }
.check { display: flex; gap: .5rem; align-items: baseline; flex-wrap: wrap; margin-bottom: .4rem; }
.check label { font-weight: 400; margin: 0; }
.checks { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: .1rem 1rem; margin-top: .5rem; }
.checks .check { row-gap: 0; align-content: flex-start; }
.checks .check .hint { flex-basis: 100%; margin: 0 0 0 1.6rem; }
fieldset { border: 1px solid var(--border); border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
legend { font-weight: 600; padding: 0 .25rem; }
.row-form { display: flex; gap: .75rem; align-items: flex-end; flex-wrap: wrap; }
.row-form .field { margin-bottom: 0; }
.two { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); column-gap: 1rem; }
.filters { display: flex; gap: .75rem; align-items: flex-end; flex-wrap: wrap; margin-bottom: 1rem; }
.filters .field { margin: 0; }
.filters input, .filters select { width: auto; min-width: 9rem; }
.copy-row { display: flex; gap: .5rem; max-width: 40rem; }
.copy-row input { max-width: none; }
.secret { font-weight: 600; }
.form-actions { display: flex; gap: .75rem; flex-wrap: wrap; align-items: center; margin-top: 1rem; }

/* buttons */
button, .button { font: inherit; font-weight: 600; border-radius: 6px; padding: .45rem .95rem; cursor: pointer; border: 1px solid transparent; text-decoration: none; display: inline-block; line-height: 1.4; }
button.primary, .button.primary { background: var(--accent); color: var(--accent-text); }
button.primary:hover, .button.primary:hover { background: var(--accent-dark); }
button.secondary, .button.secondary { background: var(--panel); color: var(--accent-dark); border-color: var(--accent-dark); }
button.danger, .button.danger { background: var(--panel); color: var(--error); border-color: var(--error); }
button.link { background: none; border: 0; padding: 0; color: var(--accent-dark); text-decoration: underline; font-weight: 400; }
button.small, .button.small { padding: .2rem .6rem; font-size: .85rem; }
button.wide { width: 100%; padding: .65rem; }
button:disabled { opacity: .55; cursor: not-allowed; }

/* notices and badges */
.notice { border-radius: 8px; padding: .7rem .9rem; margin: 0 0 1rem; border: 1px solid; }
.notice-ok { background: var(--ok-bg); border-color: #8cc9a6; }
.notice-warn { background: var(--warn-bg); border-color: #e2c170; }
.notice-error, .alert { background: var(--bad-bg); border: 1px solid #e59aa6; border-radius: 8px; padding: .7rem .9rem; margin: 0 0 1rem; }
.alert p { margin: 0; font-weight: 600; }
.alert ul { margin: .4rem 0 0; padding-left: 1.2rem; }
.badge { display: inline-block; font-size: .78rem; font-weight: 600; padding: .05rem .5rem; border-radius: 999px; white-space: nowrap; }
.badge-ok { background: var(--ok-bg); color: var(--ok); }
.badge-warn { background: var(--warn-bg); color: var(--warn); }
.badge-bad { background: var(--bad-bg); color: var(--error); }
.badge-info { background: var(--info-bg); color: var(--accent-dark); }
.badge-neutral { background: var(--neutral-bg); color: #3d4452; }

/* tables */
/* positioned, so a visually hidden heading inside scrolls with the table instead of widening the page */
.table-wrap { position: relative; overflow-x: auto; background: var(--panel); border: 1px solid var(--border); border-radius: 10px; margin-bottom: 1rem; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .55rem .8rem; border-bottom: 1px solid var(--border); vertical-align: top; }
thead th { font-size: .8rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); background: #fafbfc; white-space: nowrap; }
tbody tr:last-child td { border-bottom: 0; }
th.num, td.num { text-align: right; }
td.wrap { overflow-wrap: anywhere; }
.row-actions { display: inline-flex; gap: .4rem .9rem; flex-wrap: wrap; align-items: baseline; }
a.danger-link { color: var(--error); }
.facts { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .35rem 1.25rem; margin: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.pager { display: flex; gap: 1rem; align-items: center; justify-content: flex-end; margin: .5rem 0 1rem; }
.empty { color: var(--muted); padding: 1rem; }

/* charts */
.chart { width: 100%; height: auto; max-width: 44rem; }
.chart .bar { fill: var(--accent); }
.chart .axis { stroke: var(--border); }
.chart text { fill: var(--muted); font-size: 11px; }

/* narrow screens: the navigation goes under the header, its items wrapping onto as many lines as they need (every one on the screen, none scrolled out of sight) */
@media (max-width: 800px) {
  .shell { display: block; min-height: 0; }
  .sidenav { border-right: 0; border-bottom: 1px solid var(--border); padding: .4rem .5rem; }
  .sidenav ul { display: flex; flex-wrap: wrap; gap: .25rem; }
  .sidenav a { white-space: nowrap; padding: .3rem .6rem; }
  main { padding: 1rem .9rem 2rem; }
  .topbar { padding: .5rem .9rem; gap: .5rem .9rem; }
  .who { order: 3; flex-basis: 100%; }
  h1 { font-size: 1.3rem; }
  .facts { grid-template-columns: minmax(0, 1fr); gap: 0; }
  .facts dd { margin-bottom: .5rem; }
  th, td { padding: .45rem .55rem; }
}
/* phones: a list whose cells carry their column's label (table.stack, src/portal/views/table.tsx) is a
   stack of cards, a row each, each value beside its label; the header row stays for screen readers */
@media (max-width: 640px) {
  table.stack, table.stack tbody, table.stack tr { display: block; }
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
  table.stack tr { padding: .6rem .8rem; border-bottom: 1px solid var(--border); }
  table.stack tbody tr:last-child { border-bottom: 0; }
  table.stack td { display: block; border: 0; padding: .15rem 0; text-align: left; min-width: 0; }
  table.stack td[data-label] { display: flow-root; padding-left: 6.75rem; }
  table.stack td[data-label]::before { content: attr(data-label); float: left; width: 6.25rem; margin-left: -6.75rem; color: var(--muted); font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: .8rem; font-weight: 600; line-height: 1.5rem; white-space: normal; overflow-wrap: anywhere; }
  /* the label is in the page's type and wraps, also beside a number's or an identifier's value (.num, .mono);
     a card does not scroll sideways: an identifier longer than its card's width (a webhook's address) breaks where it must */
  table.stack td.mono, table.stack td .mono { white-space: normal; overflow-wrap: anywhere; }
  table.stack tfoot, table.stack tfoot tr { display: block; }
  table.stack tfoot tr { display: flex; justify-content: space-between; gap: 1rem; }
  table.stack tfoot th, table.stack tfoot td { display: block; border: 0; padding: 0; }
}
`;

/**
 * Runs in the browser after the page has loaded: copy buttons (shown only when the clipboard is
 * there), and `data-confirm` on forms that ask before an action. Pages that need more (item rows,
 * live totals) have their functions here too, each looking for its own markup and doing nothing
 * on a page without it. Written as functions, so they are type-checked and linted with the rest,
 * and sent as their source text.
 */
function enhanceCopyButtons(): void {
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    const target = document.getElementById(button.dataset.copy ?? '');
    if (!(target instanceof HTMLInputElement) || !navigator.clipboard) continue;
    button.hidden = false;
    const label = button.textContent ?? '';
    button.addEventListener('click', () => {
      void navigator.clipboard.writeText(target.value).then(() => {
        button.textContent = button.dataset.copied ?? label;
        window.setTimeout(() => {
          button.textContent = label;
        }, 1500);
      });
    });
  }
}

function enhanceConfirmations(): void {
  for (const form of Array.from(document.querySelectorAll<HTMLFormElement>('form[data-confirm]'))) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm ?? '')) event.preventDefault();
    });
  }
}

/**
 * A function the portal's script runs once the page is read, sent as its source text: on its own, or
 * with the self-contained functions it is given as arguments (shared with the server, as writeMoney).
 */
export type PortalScript = (() => void) | { run: (...helpers: never[]) => void; helpers: readonly ((...args: never[]) => unknown)[] };

const ENHANCEMENTS: readonly (() => void)[] = [enhanceCopyButtons, enhanceConfirmations];

function scriptSource(scripts: readonly PortalScript[]): string {
  const call = (s: PortalScript): string =>
    typeof s === 'function' ? `(${s.toString()})()` : `(${s.run.toString()})(${s.helpers.map((h) => `(${h.toString()})`).join(', ')})`;
  return `"use strict";\ndocument.addEventListener('DOMContentLoaded', () => {\n${scripts.map((s) => `  try { ${call(s)}; } catch (e) { console.error(e); }`).join('\n')}\n});\n`;
}

/** The stylesheet and the script, with the rules and enhancements the portal's parts bring (item rows, live totals, previews). */
export function portalAssets(extraStyles: readonly string[], extraScripts: readonly PortalScript[]): readonly Asset[] {
  return [
    asset('/portal/assets/portal.css', 'text/css; charset=utf-8', [PORTAL_CSS, ...extraStyles].join('\n')),
    asset('/portal/assets/portal.js', 'text/javascript; charset=utf-8', scriptSource([...ENHANCEMENTS, ...extraScripts])),
  ];
}
