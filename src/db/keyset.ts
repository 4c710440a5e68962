// Keyset paging of a list ordered newest first by (created_at, reference): a page is "the rows just
// older (or newer) than this row", read from the list's index wherever it starts, so the thousandth
// page costs what the first does, and a row added meanwhile neither repeats nor hides a row. What a
// caller sees is an opaque cursor: the row's created_at to the microsecond (a JavaScript Date holds
// only milliseconds, and two rows a microsecond apart must not tie) and its reference.

export type Direction = 'older' | 'newer';

export interface Keyset {
  direction: Direction;
  /** created_at as PostgreSQL's text to the microsecond, UTC. */
  at: string;
  reference: string;
}

/** The SQL expression of a row's cursor time (created_at to the microsecond, UTC); `column` is trusted text. */
export function cursorTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)_([A-Za-z0-9_-]{1,100})$/;

function cursorOf(row: { at: string; reference: string }): string {
  return `${row.at}_${row.reference}`;
}

/** The cursor of a query string, or null (the first page) for anything that is not one. */
export function parseCursor(direction: Direction, raw: unknown): Keyset | null {
  if (typeof raw !== 'string') return null;
  const m = CURSOR.exec(raw);
  if (!m?.[1] || !m[2]) return null;
  return { direction, at: m[1], reference: m[2] };
}

/** A list's query string: the cursor of the page it asks for. */
export type PageQuery = { before?: unknown; after?: unknown };

/** The cursors of the pages beside a page (null: none). */
export interface PageCursors {
  older: string | null;
  newer: string | null;
}

/** The keyset of a list's query string: `after` (the page newer than it) or `before` (older); null: the newest page. */
export function keysetOf(q: PageQuery): Keyset | null {
  return parseCursor('newer', q.after) ?? parseCursor('older', q.before);
}

/**
 * One page from rows read with `limit + 1` in the keyset's direction (oldest-first when going newer):
 * the page newest first, and the cursors of the pages beside it. Coming from a page, the way back
 * exists; whether the way on does is told by the extra row.
 */
export function keysetPage<T extends { at: string; reference: string }>(
  rows: readonly T[],
  limit: number,
  keyset: Keyset | null,
): { rows: T[]; older: string | null; newer: string | null } {
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (keyset?.direction === 'newer') page.reverse();
  const first = page[0];
  const last = page.at(-1);
  const hasOlder = keyset?.direction === 'newer' ? page.length > 0 : more;
  const hasNewer = keyset === null ? false : keyset.direction === 'older' ? true : more;
  return {
    rows: page,
    older: hasOlder && last ? cursorOf(last) : null,
    newer: hasNewer && first ? cursorOf(first) : null,
  };
}
