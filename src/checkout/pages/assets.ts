import { asset, assetHref, type Asset } from '../../web/assets.js';
import { luhnValid } from '../../payments/card.js';
import { CHECKOUT_CSS } from './styles.js';
import { applyDiscount, minimumCharge, type DiscountTerms } from '../../promotionCodes/discount.js';
import { writeMoney, type MoneySample } from '../../html/format.js';

// The shopper pages' static files, served by the web layer's one mechanism (src/web/assets.ts); the
// icon is the web layer's own, shared with the portal.

/**
 * Runs in the shopper's browser, before the payment form is sent: the same checks as the server's
 * (card number length and Luhn digit, expiry not passed, a 3- or 4-digit code), so that a mistyped
 * number is caught while everything the shopper typed is still in the form. Without JavaScript the
 * server checks alone; with it, the server still checks. It is written here as a function so that it
 * is type-checked and linted with the rest, and sent as its own source text.
 */
function checkCardForm(luhn: (digits: string) => boolean): void {
  const form = document.querySelector<HTMLFormElement>('form[data-card-form]');
  if (!form) return;
  const digitsOf = (v: string): string => v.replace(/[\s-]/g, '');
  const cardNumberOk = (v: string): boolean => /^\d{12,19}$/.test(digitsOf(v)) && luhn(digitsOf(v));
  const expiryOk = (v: string): boolean => {
    const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(v);
    if (!m) return false;
    const month = Number(m[1]);
    const year = m[2]?.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
    const now = new Date();
    return month >= 1 && month <= 12 && Date.UTC(year, month, 1) > now.getTime() && year <= now.getUTCFullYear() + 30;
  };
  const cvcOk = (v: string): boolean => {
    const amex = /^3[47]/.test(digitsOf((form.elements.namedItem('cardNumber') as HTMLInputElement | null)?.value ?? ''));
    return new RegExp(`^\\d{${amex ? 4 : 3}}$`).test(v.trim());
  };
  const checks: [string, (v: string) => boolean][] = [
    ['cardNumber', cardNumberOk],
    ['expiryDate', expiryOk],
    ['cvc', cvcOk],
  ];
  const show = (input: HTMLInputElement, ok: boolean): void => {
    const id = `${input.name}-error`;
    let message = document.getElementById(id);
    if (ok) {
      message?.remove();
      input.removeAttribute('aria-invalid');
      if (document.getElementById(`${input.name}-hint`)) input.setAttribute('aria-describedby', `${input.name}-hint`);
      else input.removeAttribute('aria-describedby');
      return;
    }
    if (!message) {
      message = document.createElement('p');
      message.className = 'error';
      message.id = id;
      input.insertAdjacentElement('afterend', message);
    }
    message.textContent = input.dataset.error ?? '';
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', id);
  };
  form.addEventListener('submit', (event) => {
    // "Update total" (docs/rules.md, Adjustable quantities) sends no card: nothing to check.
    if (event.submitter?.hasAttribute('formnovalidate')) return;
    let first: HTMLInputElement | null = null;
    for (const [name, check] of checks) {
      const input = form.elements.namedItem(name);
      if (!(input instanceof HTMLInputElement)) continue;
      const ok = check(input.value);
      show(input, ok);
      if (!ok && first === null) first = input;
    }
    if (first !== null) {
      event.preventDefault();
      first.focus();
    }
  });
}

/**
 * Runs where the page lets the shopper choose quantities (quantityChoice.tsx): as a quantity changes,
 * the order's lines and total, an applied code's discount and total, the amount on the Pay button and
 * the total the payment's form says the shopper saw (shownTotal) follow at once, worked out by the
 * server's own functions (sent as their source text), so the amount on the button is the one charged.
 * A quantity outside its range shows no total; the server says why when the form is sent. Without
 * JavaScript the "Update total" button asks the server instead.
 */
function followQuantities(discounted: typeof applyDiscount, write: typeof writeMoney): void {
  const choice = document.querySelector<HTMLElement>('fieldset[data-quantities]');
  const form = choice?.closest('form');
  if (!choice || !form) return;
  const currency = choice.dataset.currency ?? '';
  const sample = JSON.parse(choice.dataset.money ?? 'null') as MoneySample | null;
  const terms = choice.dataset.terms ? (JSON.parse(choice.dataset.terms) as DiscountTerms) : null;
  const fixed = Number(choice.dataset.fixed ?? '0');
  const money = (minor: number): string => write(sample ?? undefined, currency, minor);
  const inputs = Array.from(choice.querySelectorAll<HTMLInputElement>('input[data-unit-amount]'));
  const shownTotal = form.querySelector<HTMLInputElement>('input[name="shownTotal"]');
  const pay = form.querySelector<HTMLButtonElement>('button[data-pay]');
  const set = (selector: string, text: string, within: ParentNode = document): void => {
    const el = within.querySelector(selector);
    if (el) el.textContent = text;
  };
  // The error beside a quantity (the server's own sentence, data-error), shown while it is out of range.
  const sayWhy = (input: HTMLInputElement, ok: boolean): void => {
    const id = `${input.id}-error`;
    const shown = document.getElementById(id);
    const described = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((d) => d !== '' && d !== id);
    if (ok) {
      shown?.remove();
      input.removeAttribute('aria-invalid');
      input.setAttribute('aria-describedby', described.join(' '));
      return;
    }
    if (!shown) {
      const message = document.createElement('p');
      message.className = 'error';
      message.id = id;
      message.textContent = input.dataset.error ?? '';
      (document.getElementById(`${input.id}-hint`) ?? input).insertAdjacentElement('afterend', message);
    }
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', [...described, id].join(' '));
  };
  const recompute = (): void => {
    let base: number | null = fixed;
    for (const input of inputs) {
      const raw = input.value.trim();
      const q = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
      const row = document.querySelector(`table.items tr[data-line="${input.dataset.index ?? ''}"]`);
      const inRange = q >= Number(input.min) && q <= Number(input.max);
      sayWhy(input, inRange);
      if (!inRange) {
        // Out of its range: said beside the input, as the server says it; the line and the total show no amount.
        base = null;
        if (row) set('[data-amount]', '–', row);
        continue;
      }
      const amount = Number(input.dataset.unitAmount) * q;
      if (base !== null) base += amount;
      if (row) {
        set('[data-quantity]', String(q), row);
        set('[data-amount]', money(amount), row);
        set('[data-full]', money(Number(input.dataset.unitPrice) * q), row);
      }
      // The code's own form carries the quantities too, so that applying a code keeps them.
      for (const carried of Array.from(document.querySelectorAll<HTMLInputElement>(`form[data-promo-form] input[name="${input.name}"]`))) {
        carried.value = String(q);
      }
    }
    const after = base !== null && terms !== null ? discounted(base, currency, terms) : null;
    const total = after !== null ? after.total : base;
    set('table.items [data-total]', base === null ? '–' : money(base));
    if (after !== null) {
      set('[data-discount-amount]', `\u2212${money(after.discount)}`);
      set('[data-new-total]', money(after.total));
    } else if (base === null) {
      set('[data-new-total]', '–');
    }
    if (shownTotal && base !== null) shownTotal.value = String(base);
    if (pay) pay.textContent = (pay.dataset.pay ?? '{amount}').replace('{amount}', total === null ? '–' : money(total));
  };
  choice.addEventListener('input', recompute);
  // The total follows as it is typed: the button that asks the server for it is not needed.
  const update = choice.querySelector<HTMLButtonElement>('button[data-update-total]');
  if (update) update.hidden = true;
}

// The Luhn check, the discount and the writing of money are the server's own functions, sent as their source text.
const CHECKOUT_JS = [
  `"use strict";`,
  `(${checkCardForm.toString()})(${luhnValid.toString()});`,
  // applyDiscount calls minimumCharge: both are sent, the one in the other's scope.
  `(${followQuantities.toString()})((() => { ${minimumCharge.toString()}\n return ${applyDiscount.toString()}; })(), ${writeMoney.toString()});`,
  '',
].join('\n');

const STYLESHEET = asset('/assets/checkout.css', 'text/css; charset=utf-8', CHECKOUT_CSS);

/** The stylesheet's address with its version: a year in the browser's cache, and a new address with every change. */
export const CHECKOUT_CSS_HREF = assetHref(STYLESHEET);

export const PAGE_ASSETS: readonly Asset[] = [
  STYLESHEET,
  // The script keeps its plain address (an hour, then revalidated by its ETag).
  asset('/assets/checkout.js', 'text/javascript; charset=utf-8', CHECKOUT_JS),
];
