import type { Children, Html } from '../../html/jsx-runtime.js';
import { messages, translator } from '../i18n.js';
import { ItemsTable, type ItemLine, type ItemsWords } from '../../web/itemsTable.js';
import type { PublicView } from '../view.js';
import { TableWrap } from './components.js';
import { KeysetPager } from './keysetPager.js';

// The portal's one list table: its header row, the message shown instead of it when there is nothing
// to list, the region that scrolls it sideways on a narrow screen, and the pager below it. A list
// pages by keyset (src/db/keyset.ts): newer and older pages from opaque cursors, and the newest page.

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
  const table =
    p.rows.length === 0 && p.empty !== undefined ? (
      <p class={p.emptyClass ?? 'panel empty'}>{p.empty}</p>
    ) : (
      <TableWrap label={p.label}>
        <table>
          <thead>
            <tr>
              {p.columns.map((c) => (
                <HeaderCell column={c} />
              ))}
            </tr>
          </thead>
          <tbody>{p.row ? p.rows.map((item, i) => p.row?.(item, i)) : p.children}</tbody>
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
