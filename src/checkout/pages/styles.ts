// The pages' one stylesheet, served by the app at /assets/checkout.css (no CDN: the service runs
// where there may be no internet). Kept in code so the build needs no asset copying. Themes are
// palettes chosen by themeKey: one of the six below, or a theme the merchant made in the portal (its
// own stylesheet sets the same properties, and --link and --button-radius besides); an unknown key
// gets the default.

export const THEMES = ['default', 'light', 'dark', 'ocean', 'forest', 'sunset'] as const;

export function themeClass(themeKey: string | null): string {
  const key = (themeKey ?? '').toLowerCase();
  return `theme-${(THEMES as readonly string[]).includes(key) ? key : 'default'}`;
}

/** The default palette's properties: pages without a theme, and the portal's preview of a theme not yet saved. */
export const DEFAULT_PALETTE =
  '--bg: #f4f5f7; --panel: #ffffff; --text: #1d2330; --muted: #5b6475; --accent: #1f5eff; --accent-text: #ffffff; --border: #d5d9e0; --error: #b00020; --ok: #16794c;';

export const CHECKOUT_CSS = `
:root { color-scheme: light; }
.theme-default { ${DEFAULT_PALETTE} }
.theme-light   { --bg: #ffffff; --panel: #ffffff; --text: #111111; --muted: #555555; --accent: #222222; --accent-text: #ffffff; --border: #cccccc; --error: #b00020; --ok: #16794c; }
.theme-dark    { --bg: #11151c; --panel: #1b212b; --text: #eef1f6; --muted: #a9b3c3; --accent: #6ea8ff; --accent-text: #0b0f15; --border: #364152; --error: #ff8a8a; --ok: #6fdca5; color-scheme: dark; }
.theme-ocean   { --bg: #e6f2f7; --panel: #ffffff; --text: #0d2a36; --muted: #4a6572; --accent: #006d8f; --accent-text: #ffffff; --border: #b9d4de; --error: #b00020; --ok: #16794c; }
.theme-forest  { --bg: #edf4ec; --panel: #ffffff; --text: #1c2b1a; --muted: #4f634c; --accent: #2f6b2a; --accent-text: #ffffff; --border: #c3d6bf; --error: #b00020; --ok: #2f6b2a; }
.theme-sunset  { --bg: #fdf0e8; --panel: #ffffff; --text: #33190d; --muted: #74523f; --accent: #c2410c; --accent-text: #ffffff; --border: #efcdb9; --error: #a0001c; --ok: #16794c; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 32rem; margin: 2rem auto; padding: 1.5rem; background: var(--panel); border: 1px solid var(--border); border-radius: 12px; }
header { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; }
header:has(.logo) { align-items: center; }
a { color: var(--link, var(--accent)); }
.merchant { margin: 0; font-weight: 600; color: var(--muted); }
.lang a { color: var(--link, var(--accent)); font-size: .9rem; }
.merchant .logo { display: block; max-height: 3rem; max-width: min(14rem, 100%); height: auto; width: auto; }
h1 { font-size: 1.4rem; margin: .25rem 0 1rem; }
table { width: 100%; border-collapse: collapse; margin: 0 0 1rem; }
caption { text-align: left; font-weight: 600; margin-bottom: .25rem; }
th, td { padding: .35rem 0; text-align: left; border-bottom: 1px solid var(--border); vertical-align: top; }
th.num, td.num { text-align: right; white-space: nowrap; padding-left: .75rem; }
tfoot th, tfoot td { font-weight: 700; border-bottom: 0; font-size: 1.1rem; }
del { color: var(--muted); font-size: .85rem; margin-right: .25rem; }
fieldset { border: 0; padding: 0; margin: 0 0 1rem; }
legend { font-weight: 600; margin-bottom: .5rem; padding: 0; }
.field { margin-bottom: .75rem; }
.row { display: grid; grid-template-columns: 1fr 1fr; grid-template-rows: auto auto auto; column-gap: .75rem; }
.row .field { display: grid; grid-row: span 3; grid-template-rows: subgrid; align-content: start; }
.row label { align-self: end; }
label { display: block; font-size: .95rem; margin-bottom: .2rem; }
.tag { color: var(--muted); font-size: .8rem; margin-left: .25rem; }
.hint { display: block; color: var(--muted); font-size: .8rem; margin-top: .2rem; }
input, textarea { width: 100%; font: inherit; padding: .55rem .65rem; border: 1px solid var(--border); border-radius: 8px; background: var(--panel); color: var(--text); }
input[readonly] { background: var(--bg); color: var(--muted); }
select { width: 100%; font: inherit; padding: .55rem .65rem; border: 1px solid var(--border); border-radius: 8px; background: var(--panel); color: var(--text); }
select:focus { outline: 3px solid var(--accent); outline-offset: 1px; }
input:focus, textarea:focus, button:focus, a:focus { outline: 3px solid var(--accent); outline-offset: 1px; }
[aria-invalid="true"] { border-color: var(--error); }
.error { color: var(--error); font-size: .85rem; margin: .2rem 0 0; }
.alert { border: 1px solid var(--error); color: var(--error); border-radius: 8px; padding: .75rem; margin: 0 0 1rem; }
.notice { border: 1px solid var(--border); border-radius: 8px; padding: .75rem; margin: 0 0 1rem; color: var(--muted); }
.success { color: var(--ok); }
button, .button { display: inline-block; width: 100%; padding: .75rem 1rem; font: inherit; font-weight: 700; color: var(--accent-text); background: var(--accent); border: 0; border-radius: var(--button-radius, 8px); cursor: pointer; text-align: center; text-decoration: none; }
/* What the page's script hides (the "Update total" button once the total follows the quantity) stays hidden whatever its display. */
[hidden] { display: none !important; }
button.secondary { background: transparent; color: var(--link, var(--accent)); border: 1px solid var(--link, var(--accent)); margin-top: .5rem; }
.cancel { display: block; margin-top: 1rem; text-align: center; color: var(--muted); }
dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; }
dt { color: var(--muted); }
dd { margin: 0; }
@media (max-width: 480px) {
  main { margin: 0; padding: 1rem; border-radius: 0; border-width: 0 0 1px; }
  th.num, td.num { white-space: normal; padding-left: .5rem; }
  td.num del { display: block; margin-right: 0; }
}
.merchant-message { white-space: pre-line; overflow-wrap: anywhere; color: var(--text); }
section.notice > .merchant-message { margin: 0; }
.terms p { margin: 0 0 .5rem; }
.consent { display: flex; gap: .6rem; align-items: flex-start; }
.consent input { width: 1.25rem; height: 1.25rem; margin: .15rem 0 0; flex: none; accent-color: var(--accent); }
.consent label { margin: 0; }
.promo { margin: 0 0 1rem; }
.promo-row { display: flex; gap: .5rem; align-items: stretch; }
.promo-row input { flex: 1 1 auto; min-width: 0; text-transform: uppercase; }
.promo-row button.secondary { width: auto; flex: none; margin-top: 0; }
.promo button.link-button { width: auto; margin: 0; padding: .25rem 0; background: none; border: 0; color: var(--link, var(--accent)); text-decoration: underline; font-size: .9rem; font-weight: 400; cursor: pointer; }
dl.discount { grid-template-columns: 1fr auto; margin: -.5rem 0 1rem; }
dl.discount dd { text-align: right; white-space: nowrap; }
dl.discount .new-total { font-weight: 700; font-size: 1.1rem; color: var(--text); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
