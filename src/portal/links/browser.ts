// What the link pages add when the browser runs scripts (the portal sends these functions' source
// text, so each is self-contained: no imports, nothing from this module's scope). Without them the
// form works as it is: "Add a row" posts and comes back with one more row, and the server computes
// the totals.

/**
 * Item rows: "Add a row" adds one here, each row gets a "Remove" button, and the line totals and
 * the total follow what is typed. Amounts are read as the server reads them (form.ts minorOf:
 * digits, then "." or "," and at most two decimals), so the total shown is the one sent.
 */
export function enhanceItemRows(): void {
  const list = document.querySelector<HTMLElement>('[data-item-rows]');
  const form = list?.closest('form');
  // Rows that cannot change (a link with sales) get no buttons.
  if (!list || !form || list.querySelector('input:disabled')) return;
  const addButton = form.querySelector<HTMLButtonElement>('button[name="_action"][value="addRow"]');
  const currencySelect = form.querySelector<HTMLSelectElement>('select[name="currency"]');
  const totalOutput = form.querySelector<HTMLOutputElement>('output[data-total]');
  const max = Number(list.dataset.max ?? '200');
  // How the server writes money in the page's language, per currency: 1 234 567 whole and with 89
  // cents (formPage.tsx moneySamples). The browser's own Intl may lack the language (Debian's
  // Chromium formats Icelandic as English: "ISK 0" for "0 kr."), so amounts are written from these.
  const samples = JSON.parse(totalOutput?.dataset.money ?? '{}') as Record<string, [string, string] | undefined>;

  const minorOf = (text: string): number | null => {
    const m = /^(-?)(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(text.replace(/[\s\u00a0]/g, ''));
    if (!m || m[2] === undefined) return null;
    const minor = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
    return m[1] ? -minor : minor;
  };
  const money = (minor: number): string => {
    const currency = currencySelect?.value || 'ISK';
    const sample = samples[currency];
    const exact = minor % 100 === 0;
    // The sample's text before the digits, the group sign, the decimal sign (if the amount shows decimals) and the text after.
    const parts = sample ? /^(.*?)1(\D*)234\D*567(?:(\D+)\d\d)?(\D*)$/.exec(exact ? sample[0] : sample[1]) : null;
    if (!parts) return `${(minor / 100).toFixed(2)} ${currency}`;
    const [, before = '', group = '', decimal, after = ''] = parts;
    const abs = Math.abs(minor);
    const units = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, group);
    const cents = decimal === undefined ? '' : `${decimal}${String(abs % 100).padStart(2, '0')}`;
    return `${minor < 0 ? '-' : ''}${before}${units}${cents}${after}`;
  };
  const rows = (): HTMLElement[] => Array.from(list.querySelectorAll<HTMLElement>('[data-item-row]'));
  const value = (row: HTMLElement, item: string): string => row.querySelector<HTMLInputElement>(`[data-item="${item}"]`)?.value.trim() ?? '';

  const recompute = (): void => {
    let total = 0;
    let known = true;
    for (const row of rows()) {
      const output = row.querySelector<HTMLOutputElement>('output[data-line]');
      const blank = value(row, 'name') === '' && value(row, 'unitPrice') === '' && value(row, 'discount') === '';
      const price = minorOf(value(row, 'unitPrice'));
      const quantityText = value(row, 'quantity');
      const discount = value(row, 'discount') === '' ? 0 : minorOf(value(row, 'discount'));
      const line = price !== null && discount !== null && /^\d+$/.test(quantityText) ? price * Number(quantityText) - discount : null;
      if (output) output.textContent = line === null ? '–' : money(line);
      if (blank) continue;
      if (line === null) known = false;
      else total += line;
    }
    if (totalOutput) totalOutput.textContent = known ? money(total) : '–';
  };

  // Each row's inputs are named by the API's path (items[2].unitPrice) and their ids follow
  // (f-items-2-unitPrice): after a row is added or removed, the rows are numbered again.
  const renumber = (): void => {
    const legend = list.dataset.legend ?? '{n}';
    rows().forEach((row, i) => {
      for (const el of Array.from(row.querySelectorAll<HTMLElement>('*'))) {
        for (const attr of ['name', 'id', 'for', 'aria-describedby']) {
          const v = el.getAttribute(attr);
          if (v !== null) el.setAttribute(attr, v.replace(/items\[\d+\]/g, `items[${i}]`).replace(/items-\d+-/g, `items-${i}-`));
        }
      }
      const l = row.querySelector('legend');
      if (l) l.textContent = legend.replace('{n}', String(i + 1));
    });
    if (addButton) addButton.disabled = rows().length >= max;
  };

  const addRemoveButton = (row: HTMLElement): void => {
    if (row.querySelector('button[data-remove-row]')) return;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'link remove-row';
    button.dataset.removeRow = '';
    button.textContent = list.dataset.remove ?? 'Remove';
    button.addEventListener('click', () => {
      const all = rows();
      const index = all.indexOf(row);
      if (all.length > 1) row.remove();
      else for (const input of Array.from(row.querySelectorAll<HTMLInputElement>('input'))) input.value = input.dataset.item === 'quantity' ? '1' : '';
      renumber();
      recompute();
      const next = rows()[Math.min(index, rows().length - 1)];
      next?.querySelector<HTMLInputElement>('input')?.focus();
    });
    (row.querySelector('.item-line') ?? row).appendChild(button);
  };

  addButton?.addEventListener('click', (event) => {
    event.preventDefault();
    const last = rows().at(-1);
    if (!last || rows().length >= max) return;
    const row = last.cloneNode(true) as HTMLElement;
    for (const input of Array.from(row.querySelectorAll<HTMLInputElement>('input'))) {
      input.value = input.dataset.item === 'quantity' ? '1' : '';
      input.removeAttribute('aria-invalid');
    }
    for (const error of Array.from(row.querySelectorAll('.error'))) error.remove();
    for (const el of Array.from(row.querySelectorAll('[aria-describedby]'))) {
      const kept = (el.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => !id.endsWith('-error'));
      if (kept.length > 0) el.setAttribute('aria-describedby', kept.join(' '));
      else el.removeAttribute('aria-describedby');
    }
    row.querySelector('button[data-remove-row]')?.remove();
    list.appendChild(row);
    addRemoveButton(row);
    renumber();
    recompute();
    row.querySelector<HTMLInputElement>('input')?.focus();
  });

  for (const row of rows()) addRemoveButton(row);
  list.addEventListener('input', recompute);
  currencySelect?.addEventListener('change', recompute);
  renumber();
  recompute();
}

export const LINK_STYLES = `
.link-form fieldset { background: var(--panel); }
.custom-field { border: 1px solid var(--border); border-radius: 8px; margin: 0 0 .6rem; }
.custom-field > summary { cursor: pointer; padding: .55rem .9rem; font-weight: 600; }
.custom-field > fieldset { border: 0; margin: 0; padding-top: 0; background: none; }
.item-rows { display: grid; gap: .6rem; margin-bottom: .75rem; }
.item-row { display: grid; grid-template-columns: minmax(10rem, 3fr) minmax(4.5rem, 1fr) minmax(6rem, 1.5fr) minmax(6rem, 1.5fr) minmax(4.5rem, 1fr) minmax(4.5rem, 1fr) minmax(7rem, 1.5fr); gap: 0 .75rem; align-items: start; margin: 0; padding: .5rem .75rem; }
.item-row legend { font-size: .85rem; color: var(--muted); font-weight: 600; }
.item-row .field { margin-bottom: .4rem; }
.item-line { margin: 1.6rem 0 0; text-align: right; white-space: nowrap; }
.item-line output { font-variant-numeric: tabular-nums; font-weight: 600; }
.remove-row { display: block; margin: .35rem 0 0 auto; font-size: .85rem; }
.total { margin-top: 1rem; padding-top: .75rem; border-top: 1px solid var(--border); }
.total > span:first-child { font-weight: 700; }
.total output { font-size: 1.25rem; font-weight: 700; font-variant-numeric: tabular-nums; }
.shopper-table th, .shopper-table td { padding: .35rem .5rem .35rem 0; vertical-align: top; }
.shopper-table thead th { background: none; padding-left: 0; }
.shopper-table th[scope="row"] { font-weight: 600; padding-top: .8rem; }
.shopper-table select, .shopper-table input { max-width: none; }
.shopper-table tbody tr:last-child th { border-bottom: 0; }
.nowrap { white-space: nowrap; }
td.min-col { min-width: 12rem; }
.break { overflow-wrap: anywhere; }
.share-body { display: flex; gap: 1.5rem; align-items: flex-start; flex-wrap: wrap; justify-content: space-between; }
.share-body > div { flex: 1 1 18rem; min-width: 0; }
.qr { background: #fff; border: 1px solid var(--border); border-radius: 8px; padding: .4rem; width: 160px; height: 160px; }
.answers { list-style: none; margin: 0; padding: 0; }
tfoot th, tfoot td { border-top: 1px solid var(--border); border-bottom: 0; }
@media (max-width: 800px) {
  .item-row { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
  .item-row .item-name { grid-column: 1 / -1; }
  .item-line { margin-top: 1.55rem; }
  .shopper-table thead { display: none; }
  .shopper-table tr { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 .75rem; border-bottom: 1px solid var(--border); padding-bottom: .4rem; }
  .shopper-table tbody tr:last-child { border-bottom: 0; }
  .shopper-table th[scope="row"] { grid-column: 1 / -1; border: 0; padding-bottom: 0; }
  .shopper-table td { border: 0; padding-right: 0; }
  .shopper-table td::before { content: attr(data-label); display: block; font-size: .8rem; font-weight: 600; color: var(--muted); margin-bottom: .15rem; }
}
`;
