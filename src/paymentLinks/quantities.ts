// The quantities a shopper may choose for a link's items (docs/rules.md, §Adjustable quantities) and
// the total they make. Pure functions of the link's items and the chosen numbers, with no clock,
// database or page in them: the link's rules, the payment page and the payment all compute the total
// here, and whatever is applied to the total afterwards (a discount on the whole order) starts from
// what `totalFor` answers.

/** The range a shopper may choose an item's quantity from on the payment page. */
export interface AdjustableQuantity {
  minimum: number;
  maximum: number;
}

/** The highest maximum a link may give an item (docs/rules.md, §Adjustable quantities). */
export const MAX_ADJUSTABLE_QUANTITY = 99;

/** An item as far as its quantity and price go. */
export interface QuantityItem {
  name: string;
  quantity: number;
  unitPrice: number;
  amountWithoutDiscount: number;
  amount: number;
  adjustableQuantity?: AdjustableQuantity;
}

/** One line of the order at a chosen quantity: its amounts scale with the quantity from the item's per unit. */
export interface ChosenLine {
  name: string;
  quantity: number;
  unitPrice: number;
  amountWithoutDiscount: number;
  amount: number;
}

/** Whether the shopper may change any quantity of these items. */
export function hasAdjustable(items: readonly QuantityItem[]): boolean {
  return items.some((i) => i.adjustableQuantity !== undefined);
}

/** The quantities the link was made with: what a page shows first and what a link without choices charges. */
export function defaultQuantities(items: readonly QuantityItem[]): number[] {
  return items.map((i) => i.quantity);
}

/**
 * What one unit of an item costs the shopper after its discount. The link's rules make this a whole
 * number for every adjustable item (amount is a multiple of quantity).
 */
export function unitAmount(item: QuantityItem): number {
  return item.amount / item.quantity;
}

/** The item's line at quantity `q`; at its own quantity, the item's amounts exactly as given. */
export function lineAt(item: QuantityItem, q: number): ChosenLine {
  if (q === item.quantity) {
    return { name: item.name, quantity: q, unitPrice: item.unitPrice, amountWithoutDiscount: item.amountWithoutDiscount, amount: item.amount };
  }
  return { name: item.name, quantity: q, unitPrice: item.unitPrice, amountWithoutDiscount: item.unitPrice * q, amount: unitAmount(item) * q };
}

/** The order's lines at the chosen quantities (`quantities[i]` for `items[i]`). */
export function linesFor(items: readonly QuantityItem[], quantities: readonly number[]): ChosenLine[] {
  return items.map((item, i) => lineAt(item, quantities[i] ?? item.quantity));
}

/** The total for the chosen quantities: the sum of each item's amount per unit times its chosen quantity. */
export function totalFor(items: readonly QuantityItem[], quantities: readonly number[]): number {
  return linesFor(items, quantities).reduce((sum, line) => sum + line.amount, 0);
}

/** Why a choice of quantities cannot be paid. */
export type QuantityProblem =
  | { kind: 'outOfRange'; index: number; minimum: number; maximum: number }
  | { kind: 'notAdjustable'; index: number }
  | { kind: 'nothingLeft' }
  | { kind: 'zeroTotal' };

/**
 * What is wrong with a choice (`quantities[i]` for `items[i]`, whole numbers): a quantity outside its
 * item's range, a change to an item that has none, every item dropped, or a total of nothing to pay.
 */
export function quantityProblems(items: readonly QuantityItem[], quantities: readonly number[]): QuantityProblem[] {
  const problems: QuantityProblem[] = [];
  items.forEach((item, index) => {
    const q = quantities[index] ?? item.quantity;
    const range = item.adjustableQuantity;
    if (range === undefined) {
      if (q !== item.quantity) problems.push({ kind: 'notAdjustable', index });
    } else if (!Number.isSafeInteger(q) || q < range.minimum || q > range.maximum) {
      problems.push({ kind: 'outOfRange', index, minimum: range.minimum, maximum: range.maximum });
    }
  });
  if (problems.length > 0) return problems;
  if (items.every((item, i) => (quantities[i] ?? item.quantity) === 0)) return [{ kind: 'nothingLeft' }];
  if (totalFor(items, quantities) <= 0) return [{ kind: 'zeroTotal' }];
  return [];
}
