import { asset, assetHref, type Asset } from '../../web/assets.js';
import { luhnValid } from '../../payments/card.js';
import { CHECKOUT_CSS } from './styles.js';

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

// The Luhn check is the server's own function, sent as its source text.
const CHECKOUT_JS = `"use strict";\n(${checkCardForm.toString()})(${luhnValid.toString()});\n`;

const STYLESHEET = asset('/assets/checkout.css', 'text/css; charset=utf-8', CHECKOUT_CSS);

/** The stylesheet's address with its version: a year in the browser's cache, and a new address with every change. */
export const CHECKOUT_CSS_HREF = assetHref(STYLESHEET);

export const PAGE_ASSETS: readonly Asset[] = [
  STYLESHEET,
  // The script keeps its plain address (an hour, then revalidated by its ETag).
  asset('/assets/checkout.js', 'text/javascript; charset=utf-8', CHECKOUT_JS),
];
