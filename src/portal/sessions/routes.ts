import { getSession, listSessions, sessionUrl } from '../../checkout/service.js';
import { keysetOf } from '../../db/keyset.js';
import { paymentsOf } from '../../payments/service.js';
import { PAGE_SIZE, type PortalArea } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { renderSessionDetail, renderSessionList } from './views.js';

// Checkout sessions in the portal (§The portal, §Hosted checkout): read only, as the API has them.

/** A session is paid at most once; its refused attempts are few. */
const PAYMENTS_SHOWN = 50;

export const sessionsArea: PortalArea = {
  routes(portal, deps) {
    const route = portalRouter(portal, deps);

    route
      .get('/sessions', { permission: 'sessions.read', view: renderSessionList })
      .handle(async ({ request, merchantId }: Ctx<{ Querystring: { before?: string; after?: string } }>) => {
        const keyset = keysetOf(request.query);
        return { data: await listSessions(deps, merchantId, keyset, PAGE_SIZE) };
      });

    route
      .get('/sessions/:checkoutReference', { permission: 'sessions.read', view: renderSessionDetail })
      .handle(async ({ request, merchantId }: Ctx<{ Params: { checkoutReference: string } }>) => {
        const reference = request.params.checkoutReference;
        const [session, payments] = await Promise.all([
          getSession(deps, merchantId, reference),
          paymentsOf(deps, merchantId, { checkoutReference: reference }, PAYMENTS_SHOWN),
        ]);
        return { data: { session, url: sessionUrl(deps.config.publicBaseUrl, session.reference), payments } };
      });
  },
};
