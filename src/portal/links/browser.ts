// What the link pages add when the browser runs scripts (the portal sends these functions' source
// text, so each is self-contained: nothing from this module's scope, and what it shares with the
// server, as the writing of money, comes as an argument). Without them the
// form works as it is: "Add a row" posts and comes back with one more row, and the server computes
// the totals.

import type { MoneySample, writeMoney } from '../../html/format.js';

/**
 * Item rows: "Add a row" adds one here, each row gets a "Remove" button, and the line totals and
 * the total follow what is typed. Amounts are read as the server reads them (form.ts minorOf:
 * digits, then "." or "," and at most two decimals), so the total shown is the one sent.
 */
export function enhanceItemRows(write: typeof writeMoney): void {
  const list = document.querySelector<HTMLElement>('[data-item-rows]');
  const form = list?.closest('form');
  // Rows that cannot change (a link with sales) get no buttons.
  if (!list || !form || list.querySelector('input:disabled')) return;
  const addButton = form.querySelector<HTMLButtonElement>('button[name="_action"][value="addRow"]');
  const currencySelect = form.querySelector<HTMLSelectElement>('select[name="currency"]');
  const totalOutput = form.querySelector<HTMLOutputElement>('output[data-total]');
  const max = Number(list.dataset.max ?? '200');
  // How the server writes money in the page's language, per currency (formPage.tsx moneySamples).
  const samples = JSON.parse(totalOutput?.dataset.money ?? '{}') as Record<string, MoneySample | undefined>;

  const minorOf = (text: string): number | null => {
    const m = /^(-?)(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(text.replace(/[\s\u00a0]/g, ''));
    if (!m || m[2] === undefined) return null;
    const minor = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
    return m[1] ? -minor : minor;
  };
  const money = (minor: number): string => {
    const currency = currencySelect?.value || 'ISK';
    return write(samples[currency], currency, minor);
  };
  const rows = (): HTMLElement[] => Array.from(list.querySelectorAll<HTMLElement>('[data-item-row]'));
  const value = (row: HTMLElement, item: string): string => row.querySelector<HTMLInputElement>(`[data-item="${item}"]`)?.value.trim() ?? '';
  // ISK is charged in whole krónur: a price or discount in part krónur is said beside its input as it
  // is typed (the sentence the server says there, from data-whole-kronur), and no total is shown for it.
  const partKronur = (row: HTMLElement, item: 'unitPrice' | 'discount', minor: number | null): boolean => {
    const input = row.querySelector<HTMLInputElement>(`[data-item="${item}"]`);
    const wrong = (currencySelect?.value || 'ISK') === 'ISK' && minor !== null && minor % 100 !== 0;
    if (!input) return wrong;
    const id = `${input.id}-live`;
    const shown = row.querySelector<HTMLElement>(`[data-live-error="${item}"]`);
    const described = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((d) => d !== '' && !d.endsWith('-live'));
    if (wrong && !shown && list.dataset.wholeKronur && !row.querySelector(`#${CSS.escape(input.id)}-error`)) {
      const message = document.createElement('p');
      message.className = 'error';
      message.id = id;
      message.dataset.liveError = item;
      message.textContent = list.dataset.wholeKronur;
      input.insertAdjacentElement('afterend', message);
      input.setAttribute('aria-describedby', [...described, id].join(' '));
      input.setAttribute('aria-invalid', 'true');
    } else if (!wrong && shown) {
      shown.remove();
      if (described.length > 0) input.setAttribute('aria-describedby', described.join(' '));
      else input.removeAttribute('aria-describedby');
      if (!row.querySelector(`#${CSS.escape(input.id)}-error`)) input.removeAttribute('aria-invalid');
    }
    return wrong;
  };

  const recompute = (): void => {
    let total = 0;
    let known = true;
    for (const row of rows()) {
      const output = row.querySelector<HTMLOutputElement>('output[data-line]');
      const blank = value(row, 'name') === '' && value(row, 'unitPrice') === '' && value(row, 'discount') === '';
      const price = minorOf(value(row, 'unitPrice'));
      const quantityText = value(row, 'quantity');
      const discount = value(row, 'discount') === '' ? 0 : minorOf(value(row, 'discount'));
      const inPart = [partKronur(row, 'unitPrice', price), partKronur(row, 'discount', discount)].includes(true);
      const line = !inPart && price !== null && discount !== null && /^\d+$/.test(quantityText) ? price * Number(quantityText) - discount : null;
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
      const kept = (el.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => !id.endsWith('-error') && !id.endsWith('-live'));
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
