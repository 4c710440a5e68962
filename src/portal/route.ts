import type { FastifyError, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { Actor } from '../actor.js';
import type { App } from '../http/app.js';
import type { PortalSession } from '../users/service.js';
import type { Permission } from './access.js';
import { formOf, seeOther, sendPage, sessionOfRequest, viewFor, type Form, type PortalDeps } from './http.js';
import type { View } from './view.js';

// A signed-in portal route in one declaration: the permission its role needs (src/portal/access.ts)
// and the page it renders. The kit hands the handler the session and its merchant (every object a
// handler reads or changes is looked up within that merchant, so another merchant's is not found),
// the signed-in person as the actor of the operations it calls (each records its own audit entry),
// the posted form, and the reader's view, made once when first asked for. A handler does its work and
// answers how it went; the kit draws the page.

/** How a handler answers: the route's page with its data, another page, a redirect, or its own answer (a file, JSON). */
export type Outcome<D> = { status?: number; data: D } | { status?: number; page: (view: View) => string } | { seeOther: string } | { sent: FastifyReply };

export interface Ctx<RG extends RouteGenericInterface> {
  request: FastifyRequest<RG>;
  reply: FastifyReply;
  session: PortalSession;
  /** The merchant the session acts for. */
  merchantId: string;
  /** The signed-in person, as the operations they make record them. */
  actor: Actor;
  form: Form;
  /** The reader's view (language, user, merchant, form token): made on the first call, then the same. */
  view(): Promise<View>;
}

/** What a route declares besides its method and path. */
export interface Declaration<D> {
  permission: Permission;
  /** The page the route renders with the data its handler answers. */
  view?: (view: View, data: D) => string;
  /** A route's own answer to an error before its handler runs (an upload over its limit). */
  errorHandler?: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
}

/** A route's work: its parameters and query are those its context names (`Ctx<{ Params: … }>`). */
type Handler<RG extends RouteGenericInterface, D> = (ctx: Ctx<RG>) => Promise<Outcome<D>>;

/** The data a page of the portal is drawn from (its render function's second argument). */
export type PageData<F> = F extends (view: View, data: infer D) => string ? D : never;

/** A declared route, waiting for its handler (a second call, so that the page's data is known to type what the handler answers). */
interface Declared<D> {
  handle<RG extends RouteGenericInterface = RouteGenericInterface>(handler: Handler<RG, D>): void;
}

export interface PortalRouter {
  get<D = never>(url: string, declared: Declaration<D>): Declared<D>;
  post<D = never>(url: string, declared: Declaration<D>): Declared<D>;
}

/** The route declarer of a part of the portal, over the portal's context and dependencies. */
export function portalRouter(portal: App, deps: PortalDeps): PortalRouter {
  const route = (method: 'GET' | 'POST', url: string, spec: Declaration<unknown>, work: Handler<RouteGenericInterface, unknown>): void => {
    portal.route({
      method,
      url,
      // The route table records it (src/http/routeTable.ts).
      config: { portal: { permission: spec.permission } },
      schema: { hide: true },
      ...(spec.errorHandler ? { errorHandler: spec.errorHandler } : {}),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const session = sessionOfRequest(request);
        // A page's view is read at once, beside the handler's own reads (a post may not need one).
        let view = spec.view && method === 'GET' ? viewFor(request, reply, deps) : undefined;
        view?.catch(() => undefined);
        const ctx: Ctx<RouteGenericInterface> = {
          request,
          reply,
          session,
          merchantId: session.merchantId,
          actor: { kind: 'user', userId: session.userId, email: session.email },
          form: formOf(request),
          view: () => (view ??= viewFor(request, reply, deps)),
        };
        const outcome = await work(ctx);
        if ('sent' in outcome) return outcome.sent;
        if ('seeOther' in outcome) return seeOther(reply, outcome.seeOther);
        const status = outcome.status ?? 200;
        if ('page' in outcome) return sendPage(reply, status, outcome.page(await ctx.view()));
        if (!spec.view) throw new Error(`portal route ${method} ${url} answers data but declares no view`);
        return sendPage(reply, status, spec.view(await ctx.view(), outcome.data));
      },
    });
  };
  // The portal's routes have no schema: a handler's parameters and query are as its context names them.
  return {
    get: (url, declared) => ({ handle: (handler) => route('GET', url, declared as Declaration<unknown>, handler as Handler<RouteGenericInterface, unknown>) }),
    post: (url, declared) => ({
      handle: (handler) => route('POST', url, declared as Declaration<unknown>, handler as Handler<RouteGenericInterface, unknown>),
    }),
  };
}
