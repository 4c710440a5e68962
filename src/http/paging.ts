import { Type } from 'typebox';

// Paging of every list: Page from 0, PageSize 1 to 100 (default 20). Both are optional: a client that
// sends neither gets the first page of 20. Their names are matched without regard to case.

export const DEFAULT_PAGE_SIZE = 20;

export const PagingQuery = {
  Page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'page number, from 0 (default 0)' })),
  PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_PAGE_SIZE, description: 'entries per page, 1 to 100 (default 20)' })),
};

export function pageOf(q: { Page?: number; PageSize?: number }): { page: number; pageSize: number } {
  return { page: q.Page ?? 0, pageSize: q.PageSize ?? DEFAULT_PAGE_SIZE };
}
