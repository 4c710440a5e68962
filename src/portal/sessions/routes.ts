import { getSession, listSessions, sessionUrl } from '../../checkout/service.js';
import { parseCursor } from '../../db/keyset.js';
import { paymentsOf } from '../../payments/service.js';
import { sendPage, sessionOfRequest, viewFor, type PortalArea } from '../http.js';
import { renderSessionDetail, renderSessionList } from './views.js';

// Checkout sessions in the portal (§The portal, §Hosted checkout): read only, as the API has them.

const PAGE_SIZE = 20;
/** A session is paid at most once; its refused attempts are few. */
const PAYMENTS_SHOWN = 50;
const read = { config: { portal: { permission: 'sessions.read' as const } }, schema: { hide: true } };

export const sessionsArea: PortalArea = {
  routes(portal, deps) {
    portal.get<{ Querystring: { before?: string; after?: string } }>('/sessions', read, async (request, reply) => {
      const keyset = parseCursor('newer', request.query.after) ?? parseCursor('older', request.query.before);
      const [view, page] = await Promise.all([viewFor(request, reply, deps), listSessions(deps, sessionOfRequest(request).merchantId, keyset, PAGE_SIZE)]);
      return sendPage(reply, 200, renderSessionList(view, page));
    });

    portal.get<{ Params: { checkoutReference: string } }>('/sessions/:checkoutReference', read, async (request, reply) => {
      const merchantId = sessionOfRequest(request).merchantId;
      const reference = request.params.checkoutReference;
      const [view, session, payments] = await Promise.all([
        viewFor(request, reply, deps),
        getSession(deps, merchantId, reference),
        paymentsOf(deps, merchantId, { checkoutReference: reference }, PAYMENTS_SHOWN),
      ]);
      return sendPage(reply, 200, renderSessionDetail(view, { session, url: sessionUrl(deps.config.publicBaseUrl, session.reference), payments }));
    });
  },
};
