import type { Html } from '../../html/jsx-runtime.js';

// The pager of a list that pages by keyset (src/db/keyset.ts): the newest page, the page of newer
// rows, the page of older ones. The list's filters stay in the query.

export function KeysetPager(p: {
  base: string;
  query: Readonly<Record<string, string>>;
  older: string | null;
  newer: string | null;
  words: { newer: string; older: string; newest: string };
  label?: string;
}): Html | null {
  if (p.older === null && p.newer === null) return null;
  const href = (extra: Record<string, string>): string => {
    const q = new URLSearchParams({ ...p.query, ...extra }).toString();
    return q ? `${p.base}?${q}` : p.base;
  };
  return (
    <nav class="pager" aria-label={p.label ?? `${p.words.newer} / ${p.words.older}`}>
      {p.newer !== null ? (
        <>
          <a href={href({})}>{p.words.newest}</a>
          <a href={href({ after: p.newer })} rel="prev">
            {p.words.newer}
          </a>
        </>
      ) : null}
      {p.older !== null ? (
        <a href={href({ before: p.older })} rel="next">
          {p.words.older}
        </a>
      ) : null}
    </nav>
  );
}
