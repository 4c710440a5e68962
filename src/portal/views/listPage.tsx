import type { Children } from '../../html/jsx-runtime.js';
import type { Translate } from '../i18n.js';
import type { View } from '../view.js';
import { portalPage, type PageProps } from './layout.js';
import { DataTable } from './table.js';

// A page that is one list of an area (the audit log, the themes, the invitations): the frame with the
// area's own title and lead, what the last post did, the list's table with its pager, and what follows.

/** The table of a list page: DataTable's props but the view, and the label (the page's title). */
type ListTable<T> = Omit<Parameters<typeof DataTable<T>>[0], 'view' | 'label'>;

/** The page of an area's list; `t` is the area's dictionary, whose `title` and `lead` head the page. */
export function listPage<T>(
  view: View,
  t: Translate<'title' | 'lead'>,
  p: Pick<PageProps, 'section' | 'actions' | 'notice'> & { table: ListTable<T>; after?: Children },
): string {
  const title = t('title');
  return portalPage({
    view,
    title,
    section: p.section,
    lead: t('lead'),
    actions: p.actions,
    notice: p.notice,
    children: (
      <>
        <DataTable view={view} label={title} {...p.table} />
        {p.after}
      </>
    ),
  });
}
