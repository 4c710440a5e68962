import type { Children, Html } from '../html/jsx-runtime.js';
import { formatMoney, formatQuantity } from '../html/format.js';
import type { Lang } from './lang.js';

// The item lines of an order as a table: the shopper's order summary on the pay page
// (src/checkout/pages/layout.tsx) and the items of a link or a checkout session in the portal
// (src/portal/links/detailPage.tsx, src/portal/sessions/views.tsx). The two looks differ in small
// ways: the shopper's page leaves a missing quantity or price blank and strikes a discounted line's
// full amount through; the portal's lets a long name wrap, shows a dash for what is missing and can
// give a discount its own column.

/** One line: a quantity and unit price when the merchant gave them, the amount before discount when it has one. */
export interface ItemLine {
  name: string;
  quantity: number | null;
  unitPrice: number | null;
  amountWithoutDiscount: number | null;
  amount: number;
}

export interface ItemsWords {
  item: string;
  quantity: string;
  unitPrice: string;
  amount: string;
  /** The header of the discount column (the portal's link page). */
  discount?: string;
  total?: string;
}

interface Look {
  lang: Lang;
  currency: string;
  look: 'shopper' | 'portal';
  words: ItemsWords;
}

/** An amount: the portal marks it as a number wherever it stands (its `num` span). */
function amountOf(p: Look, minor: number): Children {
  const text = formatMoney(minor, p.currency, p.lang);
  return p.look === 'portal' ? <span class="num">{text}</span> : text;
}

/**
 * One line. Its row and cells carry data-* hooks (data-line, its index; data-quantity, data-full,
 * data-amount) for the pay page's script, which writes a line again as the shopper changes its quantity.
 */
function Line({ p, line, index }: { p: Look; line: ItemLine; index: number }): Html {
  const money = (minor: number): Children => amountOf(p, minor);
  const missing = p.look === 'shopper' ? '' : '–';
  const discounted = line.amountWithoutDiscount !== null && line.amountWithoutDiscount !== line.amount;
  const column = p.words.discount !== undefined;
  // The portal's lines carry their column's label, for its stylesheet to stack them on a narrow screen.
  const label = (word: string | undefined): { 'data-label'?: string } => (p.look === 'portal' && word !== undefined ? { 'data-label': word } : {});
  const w = p.words;
  return (
    <tr data-line={String(index)}>
      <td class={p.look === 'portal' ? 'wrap' : undefined} {...label(w.item)}>
        {line.name}
      </td>
      <td class="num" data-quantity="" {...label(w.quantity)}>
        {line.quantity !== null ? formatQuantity(line.quantity, p.lang) : missing}
      </td>
      <td class="num" {...label(w.unitPrice)}>
        {line.unitPrice !== null ? money(line.unitPrice) : missing}
      </td>
      {column ? (
        <td class="num" {...label(w.discount)}>
          {discounted && line.amountWithoutDiscount !== null ? money(line.amountWithoutDiscount - line.amount) : '–'}
        </td>
      ) : null}
      <td class="num" {...label(w.amount)}>
        {!column && discounted && line.amountWithoutDiscount !== null ? (
          <>
            <del data-full="">{money(line.amountWithoutDiscount)}</del>{' '}
          </>
        ) : null}
        <span data-amount="">{money(line.amount)}</span>
      </td>
    </tr>
  );
}

/** The table of an order's lines; with `total` (and its word) a footer row gives the order's amount. */
export function ItemsTable(p: Look & { lines: readonly ItemLine[]; caption?: string; class?: string; total?: number }): Html {
  const w = p.words;
  const columns = [w.quantity, w.unitPrice, ...(w.discount !== undefined ? [w.discount] : []), w.amount];
  const total = p.total !== undefined ? amountOf(p, p.total) : null;
  return (
    <table class={[p.class, p.look === 'portal' ? 'stack' : undefined].filter(Boolean).join(' ') || undefined}>
      {p.caption !== undefined ? <caption>{p.caption}</caption> : null}
      <thead>
        <tr>
          <th scope="col">{w.item}</th>
          {columns.map((label) => (
            <th scope="col" class="num">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {p.lines.map((line, index) => (
          <Line p={p} line={line} index={index} />
        ))}
      </tbody>
      {total !== null ? (
        <tfoot>
          <tr>
            <th scope="row" colSpan={columns.length}>
              {w.total}
            </th>
            {p.look === 'shopper' ? (
              <td class="num" data-total="" aria-live="polite">
                {total}
              </td>
            ) : (
              <td class="num">
                <strong>{total}</strong>
              </td>
            )}
          </tr>
        </tfoot>
      ) : null}
    </table>
  );
}
