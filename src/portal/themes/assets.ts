import { DEFAULT_PALETTE } from '../../checkout/preview.js';

// The themes pages' style rules and their one enhancement, added to the portal's stylesheet and
// script. The preview is the payment page in miniature; it takes its colours from the same custom
// properties the payment page uses (the default palette until a theme's stylesheet or the script
// sets them), so whatever colours the preview shows are the ones the page will have.

export const THEMES_CSS = `
.theme-editor { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 22rem); gap: 1.25rem; align-items: start; }
.theme-editor > form { margin: 0; }
@media (max-width: 1000px) { .theme-editor { grid-template-columns: minmax(0, 1fr); } }
.shapes { display: flex; gap: .25rem 1.25rem; flex-wrap: wrap; }
.logo-current { display: flex; gap: .75rem; align-items: center; flex-wrap: wrap; margin: .1rem 0 .5rem; }
.theme-editor .logo-field .check { margin-top: .5rem; }
.logo-current img { display: block; max-height: 3rem; max-width: min(12rem, 100%); border: 1px dashed var(--border); padding: .25rem; background: #fff; }
.swatches { display: inline-flex; gap: .5rem; align-items: center; white-space: nowrap; }
.swatches svg { display: block; flex: none; }
.builtins { display: flex; flex-wrap: wrap; gap: .5rem 1rem; list-style: none; padding: 0; margin: 0; }

.pay-preview-figure { margin: 0; }
.pay-preview-figure figcaption { font-weight: 600; font-size: .9rem; margin-bottom: .4rem; }
.pay-preview { ${DEFAULT_PALETTE} background: var(--bg); color: var(--text); border: 1px solid #c3c8d1; border-radius: 10px; padding: 1.25rem .75rem; font-size: .95rem; }
.pay-preview [hidden] { display: none; }
.pay-preview p { margin: 0; }
.pv-main { max-width: 22rem; margin: 0 auto; background: var(--panel); border: 1px solid var(--border); border-radius: 12px; padding: 1rem; }
.pv-head { display: flex; justify-content: space-between; align-items: center; gap: .75rem; }
.pv-merchant { font-weight: 600; color: var(--muted); overflow-wrap: anywhere; min-width: 0; }
.pv-logo { display: block; max-height: 2.5rem; max-width: 100%; }
.pv-lang { color: var(--link, var(--accent)); text-decoration: underline; font-size: .85rem; }
.pay-preview .pv-title { font-size: 1.15rem; font-weight: 700; margin: .35rem 0 .6rem; }
.pv-line { display: flex; justify-content: space-between; gap: .5rem; padding: .3rem 0; border-bottom: 1px solid var(--border); }
.pv-total { font-weight: 700; border-bottom: 0; }
.pay-preview .pv-label { font-size: .9rem; margin: .6rem 0 .2rem; }
.pv-input { height: 2.3rem; border: 1px solid var(--border); border-radius: 8px; background: var(--panel); }
.pay-preview .pv-button { margin-top: .9rem; padding: .65rem 1rem; text-align: center; font-weight: 700; background: var(--accent); color: var(--accent-text); border-radius: var(--button-radius, 8px); }
.pay-preview .pv-cancel { margin-top: .6rem; text-align: center; color: var(--muted); font-size: .9rem; }
`;

/**
 * The live preview. As the colours or the shape change, the portal is asked for the palette they
 * make (the themes module derives it, the same as for the payment page, so no rule is written twice
 * in the browser) and the preview takes its custom properties; a colour the page would refuse gets
 * its error beside the field at once. A chosen logo is shown from the file itself, before anything is
 * sent; a file over the limit is stopped here with the same error the server would give.
 */
export function enhanceThemePreview(): void {
  const form = document.querySelector<HTMLFormElement>('form[data-theme-form]');
  const preview = document.getElementById('theme-preview');
  if (!form || !preview) return;
  const field = (name: string): HTMLInputElement | null => {
    const el = form.elements.namedItem(name);
    return el instanceof HTMLInputElement ? el : null;
  };

  const showError = (name: string, message: string | null): void => {
    const input = field(name);
    if (!input) return;
    const id = `${input.id}-error`;
    const described = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((x) => x !== '' && x !== id);
    let p = document.getElementById(id);
    if (message === null) {
      p?.remove();
      input.removeAttribute('aria-invalid');
    } else {
      if (!p) {
        p = document.createElement('p');
        p.className = 'error';
        p.id = id;
        (document.getElementById(`${input.id}-hint`) ?? input).insertAdjacentElement('afterend', p);
      }
      p.textContent = message;
      input.setAttribute('aria-invalid', 'true');
      described.push(id);
    }
    if (described.length > 0) input.setAttribute('aria-describedby', described.join(' '));
    else input.removeAttribute('aria-describedby');
  };

  let asked = 0;
  let timer: number | undefined;
  const refresh = (): void => {
    const shape = form.querySelector<HTMLInputElement>('input[name="buttonShape"]:checked')?.value ?? '';
    const query = new URLSearchParams({
      accentColor: field('accentColor')?.value ?? '',
      backgroundColor: field('backgroundColor')?.value ?? '',
      buttonShape: shape,
    });
    const ask = ++asked;
    void fetch(`${preview.dataset.palette ?? ''}?${query.toString()}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      .then((r) => (r.ok ? (r.json() as Promise<{ variables: Record<string, string> | null; errors: { field: string; message: string }[] }>) : null))
      .then((body) => {
        // An older answer arriving after a newer one is dropped.
        if (body === null || ask !== asked) return;
        if (body.variables) for (const [k, v] of Object.entries(body.variables)) preview.style.setProperty(k, v);
        for (const name of ['accentColor', 'backgroundColor']) showError(name, body.errors.find((e) => e.field === name)?.message ?? null);
      })
      .catch(() => undefined);
  };
  const soon = (event: Event): void => {
    const target = event.target;
    if (!(target instanceof HTMLInputElement) || (target.type !== 'color' && target.name !== 'buttonShape')) return;
    // A colour picker sends an input event for every step of a drag: ask once it rests.
    window.clearTimeout(timer);
    timer = window.setTimeout(refresh, 120);
  };
  form.addEventListener('input', soon);
  form.addEventListener('change', soon);

  const logo = field('logo');
  const remove = field('removeLogo');
  const img = preview.querySelector<HTMLImageElement>('img.pv-logo');
  const name = preview.querySelector<HTMLElement>('.pv-name');
  const max = Number(logo?.dataset.maxBytes ?? '0');
  let chosen: string | null = null;
  const show = (src: string | null): void => {
    if (!img || !name) return;
    if (src) img.src = src;
    else img.removeAttribute('src');
    img.hidden = src === null;
    name.hidden = src !== null;
  };
  const tooLarge = (): boolean => (logo?.files?.[0]?.size ?? 0) > max;
  const logoChanged = (): void => {
    if (chosen) URL.revokeObjectURL(chosen);
    chosen = null;
    const file = logo?.files?.[0];
    const kept = remove?.checked ? null : img?.dataset.saved || null;
    if (!file) {
      showError('logo', null);
      show(kept);
    } else if (tooLarge()) {
      showError('logo', logo?.dataset.tooLarge ?? '');
      show(kept);
    } else if (file.type !== 'image/png' && file.type !== 'image/jpeg') {
      showError('logo', logo?.dataset.wrongType ?? '');
      show(kept);
    } else {
      showError('logo', null);
      chosen = URL.createObjectURL(file);
      show(chosen);
    }
  };
  logo?.addEventListener('change', logoChanged);
  remove?.addEventListener('change', logoChanged);
  form.addEventListener('submit', (event) => {
    if (!tooLarge()) return;
    event.preventDefault();
    showError('logo', logo?.dataset.tooLarge ?? '');
    logo?.focus();
  });
}
