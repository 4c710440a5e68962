import { defaultQuantities, linesFor, quantityProblems, totalFor, unitAmount, type QuantityItem, type QuantityProblem } from '../paymentLinks/quantities.js';
import type { ChosenItem } from '../paymentLinks/shopper.js';
import type { Checkoutable } from './shopper.js';

// A link's page and its payment at the quantities the shopper chose (docs/rules.md, §Adjustable
// quantities): the same Checkoutable, its lines and amount at those quantities. The total itself
// is paymentLinks/quantities.ts's.

/** The quantities a form asks for, one per item: `qty-{i}`; a missing or unreadable one is left as NaN for the rules to refuse. */
export function quantitiesOf(c: Checkoutable, read: (name: string) => string | undefined): number[] | null {
  if (c.choice === null) return null;
  return c.choice.map((item, i) => {
    if (item.adjustableQuantity === undefined) return item.quantity;
    const raw = read(`qty-${i}`)?.trim();
    if (raw === undefined || raw === '') return item.quantity;
    return /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  });
}

/** What is wrong with a choice of quantities for this checkout (none for one that offers no choice). */
export function problemsOf(c: Checkoutable, quantities: readonly number[] | null): QuantityProblem[] {
  return c.choice === null || quantities === null ? [] : quantityProblems(c.choice, quantities);
}

/** The checkout at the chosen quantities: its lines and its amount; as it is when it offers no choice. */
export function atQuantities(c: Checkoutable, quantities: readonly number[] | null): Checkoutable {
  if (c.choice === null || quantities === null) return c;
  const lines = linesFor(c.choice, quantities);
  return { ...c, items: lines, amount: totalFor(c.choice, quantities), chosen: [...quantities] };
}

/** The items as paid, for the payment and the link's submission; null when no choice was offered. */
export function chosenItemsOf(c: Checkoutable): ChosenItem[] | null {
  if (c.choice === null) return null;
  const quantities = c.chosen ?? defaultQuantities(c.choice);
  return linesFor(c.choice, quantities).map((l) => ({ name: l.name, quantity: l.quantity, amount: l.amount }));
}

export { unitAmount };
export type { QuantityItem, QuantityProblem };
