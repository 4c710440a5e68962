import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { App } from './app.js';
import { WithEnvelope, answerWith } from './envelope.js';

// Paging of every list: Page from 0, PageSize 1 to 100 (default 20). Both are optional: a client that
// sends neither gets the first page of 20. Their names are matched without regard to case.

export const DEFAULT_PAGE_SIZE = 20;

export const PagingQuery = {
  Page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'page number, from 0 (default 0)' })),
  PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_PAGE_SIZE, description: 'entries per page, 1 to 100 (default 20)' })),
};

export interface Paging {
  page: number;
  pageSize: number;
}

export function pageOf(q: { Page?: number; PageSize?: number }): Paging {
  return { page: q.Page ?? 0, pageSize: q.PageSize ?? DEFAULT_PAGE_SIZE };
}

/** A list's query: Page and PageSize, then the list's own filters. */
export function PagedQuery<P extends TProperties>(filters: P) {
  return Type.Object({ ...PagingQuery, ...filters });
}

/** A list's answer (§Lists): one page of `data` and the `totalCount` of all there are, in the envelope. */
export function ListAnswer<E extends TSchema>(entry: E, totalDescription?: string) {
  return WithEnvelope({ data: Type.Array(entry), totalCount: Type.Integer(totalDescription === undefined ? {} : { description: totalDescription }) });
}

/**
 * A list of the API: GET `path` with the list’s query (PagedQuery), whose handler is given the query and
 * the page asked for and answers one page (ListAnswer). Every list is paged, documented and answered
 * this one way.
 */
export function listRoute<Q extends TObject>(
  app: App,
  clock: Clock,
  path: string,
  route: {
    config: FastifyContextConfig;
    schema: { tags: string[]; summary: string; description: string; querystring: Q; response: Record<number, TSchema> };
  },
  list: (request: FastifyRequest, query: Static<Q>, paging: Paging) => Promise<{ data: unknown[]; totalCount: number }>,
): void {
  const ok = answerWith(clock);
  app.get(path, route, async (request) => {
    const query = request.query as Static<Q>;
    return ok(request, await list(request, query, pageOf(query as { Page?: number; PageSize?: number })));
  });
}
