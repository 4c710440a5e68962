import type { Children, Html } from '../../html/jsx-runtime.js';
import { messages, translator } from '../i18n.js';
import { ItemsTable, type ItemLine, type ItemsWords } from '../../web/itemsTable.js';
import type { PublicView } from '../view.js';
import { TableWrap } from './components.js';
import { KeysetPager } from './keysetPager.js';

// The portal's one list table: its header row, the message shown instead of it when there is nothing
// to list, the region that scrolls it sideways on a narrow screen, and the pager below it. A list
// pages by keyset (src/db/keyset.ts): newer and older pages from opaque cursors, and the newest page.
// A row whose cells are written with `Td` has each cell's column label on it (`data-label`), and the
// table is then a `stack`: on a narrow screen the stylesheet lays each row out as a card, each value
// beside its label, instead of a table wider than the screen.

const M = messages({ newer: 'Newer', older: 'Older', newest: 'Newest' }, { newer: 'Nýrri', older: 'Eldri', newest: 'Nýjustu' });

/** A column's header: its label, and whether it holds numbers (aligned right) or its label is for screen readers only. */
export interface Column {
  label: Children;
  num?: boolean;
  hidden?: boolean;
}

/** Where a list's pages are: its address and filters, and the cursors of the pages beside this one (null: none). */
export interface Paging {
  base: string;
  query?: Readonly<Record<string, string>>;
  older: string | null;
  newer: string | null;
}

/** The keyset pager of a list: the newest page, newer, older; nothing when the list has one page. */
export function ListPager({ view, paging }: { view: PublicView; paging: Paging }): Html | null {
  const t = translator(M, view.lang);
  return KeysetPager({
    base: paging.base,
    query: paging.query ?? {},
    older: paging.older,
    newer: paging.newer,
    words: { newer: t('newer'), older: t('older'), newest: t('newest') },
  });
}

/** A column's label as text (for a cell's `data-label`); none for a label meant for screen readers only, or one that is markup. */
function labelText(column: Column | string): string | undefined {
  if (typeof column === 'string') return column;
  if (column.hidden) return undefined;
  return typeof column.label === 'string' ? column.label : undefined;
}

/** While DataTable draws its rows: its columns' labels, the column of the next cell, and whether a cell took its label. */
let drawing: { labels: readonly (string | undefined)[]; next: number; labelled: boolean } | null = null;

/**
 * A cell of a DataTable's row: a <td> with its column's label in `data-label`, shown before the value
 * when a narrow screen stacks the row (the cells of a row are written in order, one column each).
 */
export function Td({ children, class: className }: { children?: Children; class?: string }): Html {
  let label: string | undefined;
  if (drawing !== null) {
    label = drawing.labels[drawing.next++];
    if (label !== undefined) drawing.labelled = true;
  }
  return (
    <td class={className} data-label={label}>
      {children}
    </td>
  );
}

/** The rows `row` draws, and whether their cells carry their labels (written with Td). */
function drawRows<T>(
  labels: readonly (string | undefined)[],
  items: readonly T[],
  row: (item: T, index: number) => Children,
): { rows: Children[]; labelled: boolean } {
  const outer = drawing;
  const d = { labels, next: 0, labelled: false };
  drawing = d;
  try {
    const rows = items.map((item, i) => {
      d.next = 0;
      return row(item, i);
    });
    return { rows, labelled: d.labelled };
  } finally {
    drawing = outer;
  }
}

function HeaderCell({ column }: { column: Column | string }): Html {
  const c = typeof column === 'string' ? { label: column } : column;
  return (
    <th scope="col" class={c.num ? 'num' : undefined}>
      {c.hidden ? <span class="visually-hidden">{c.label}</span> : c.label}
    </th>
  );
}

/**
 * A list as a table. Each item is drawn by `row` (a <tr>), or the rows are given as children; with
 * no item the `empty` message stands in the table's place (a paragraph of class `emptyClass`, a panel
 * by default). The pager follows whenever `paging` is given, also on an empty page (the way back).
 */
export function DataTable<T>(p: {
  view: PublicView;
  /** The name of the scrolling region, for screen readers. */
  label: string;
  columns: readonly (Column | string)[];
  rows: readonly T[];
  row?: (item: T, index: number) => Children;
  children?: Children;
  empty?: Children;
  emptyClass?: string;
  paging?: Paging;
}): Html {
  const drawn = p.row ? drawRows(p.columns.map(labelText), p.rows, p.row) : { rows: p.children, labelled: false };
  const table =
    p.rows.length === 0 && p.empty !== undefined ? (
      <p class={p.emptyClass ?? 'panel empty'}>{p.empty}</p>
    ) : (
      <TableWrap label={p.label}>
        <table class={drawn.labelled ? 'stack' : undefined}>
          <thead>
            <tr>
              {p.columns.map((c) => (
                <HeaderCell column={c} />
              ))}
            </tr>
          </thead>
          <tbody>{drawn.rows}</tbody>
        </table>
      </TableWrap>
    );
  return (
    <>
      {table}
      {p.paging ? <ListPager view={p.view} paging={p.paging} /> : null}
    </>
  );
}

/** An order's item lines in the portal (a link's, a checkout session's), scrolling as a list does; with `total`, a footer row. */
export function ItemsList(p: { view: PublicView; label: string; currency: string; words: ItemsWords; lines: readonly ItemLine[]; total?: number }): Html {
  return (
    <TableWrap label={p.label}>
      <ItemsTable lang={p.view.lang} currency={p.currency} look="portal" words={p.words} lines={p.lines} total={p.total} />
    </TableWrap>
  );
}

/** The items section of a link's or a checkout session's page: its heading, and the lines or the sentence that there are none. */
export function ItemsSection(p: Parameters<typeof ItemsList>[0] & { empty: { text: string; class: string } }): Html {
  const { empty, ...list } = p;
  return (
    <section>
      <h2 id="items-title">{p.label}</h2>
      {p.lines.length === 0 ? <p class={empty.class}>{empty.text}</p> : <ItemsList {...list} />}
    </section>
  );
}
