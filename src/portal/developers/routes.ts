import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  addTerminal,
  allowedOrigins,
  createKey,
  listKeys,
  listTerminals,
  merchantKey,
  revokeKey,
  updateAllowedOrigins,
  type Capability,
} from '../../accounts/service.js';
import { keyCapabilitiesFor } from '../access.js';
import { auditFor, formOf, refusable, seeOther, sendPage, sessionOfRequest, viewFor, type PortalArea, type PortalDeps } from '../http.js';
import { FieldErrors } from '../view.js';
import {
  DEVELOPERS,
  DEVELOPER_STYLES,
  renderDevelopers,
  renderKeyCreated,
  renderRevokeKey,
  type DevelopersNotice,
  type KeyForm,
  type OriginsForm,
} from './views.js';

// The developers' page (§Authentication) on the same account functions the operator's commands use:
// keys, terminals and allowed origins of the session's merchant only. A key id of another merchant
// (or of a partner) is not found, and nothing is revoked.

const manage = { config: { portal: { permission: 'developers.manage' as const } }, schema: { hide: true } };

const NOTICES: readonly DevelopersNotice[] = ['keyRevoked', 'terminalAdded', 'originsSaved'];

export const developersArea: PortalArea = {
  styles: DEVELOPER_STYLES,
  routes(portal, deps: PortalDeps) {
    const { db } = deps;
    const merchantOf = (request: FastifyRequest): string => sessionOfRequest(request).merchantId;
    const allowedOf = (request: FastifyRequest): Capability[] => keyCapabilitiesFor(sessionOfRequest(request).role);
    const audit = auditFor(deps);

    /** The page, with a form as it was sent when that form was refused. */
    const page = async (
      request: FastifyRequest,
      reply: FastifyReply,
      status: number,
      s: { notice?: DevelopersNotice | null; keyForm?: KeyForm; origins?: OriginsForm },
    ): Promise<FastifyReply> => {
      const merchantId = merchantOf(request);
      const [keys, terminals, origins] = await Promise.all([
        listKeys(db, { merchantId }),
        listTerminals(db, merchantId),
        s.origins ? null : allowedOrigins(db, merchantId),
      ]);
      const view = await viewFor(request, reply, deps);
      return sendPage(
        reply,
        status,
        renderDevelopers(view, {
          keys,
          terminals,
          keyForm: s.keyForm ?? { capabilities: [], errors: new FieldErrors(), allowed: allowedOf(request) },
          origins: s.origins ?? { text: (origins ?? []).join('\n'), sent: [], errors: new FieldErrors() },
          notice: s.notice ?? null,
        }),
      );
    };

    portal.get<{ Querystring: { done?: string } }>('/developers', manage, async (request, reply) => {
      const done = request.query.done;
      return page(request, reply, 200, { notice: NOTICES.find((n) => n === done) ?? null });
    });

    portal.post('/developers/keys', manage, async (request, reply) => {
      const merchantId = merchantOf(request);
      const chosen = formOf(request).texts('capabilities');
      // A key may do only what the user's own role may do (src/portal/access.ts).
      const allowed = allowedOf(request);
      const outcome = await refusable(() => createKey(db, { merchantId }, chosen, allowed));
      if ('errors' in outcome) return page(request, reply, 400, { keyForm: { capabilities: chosen, errors: outcome.errors, allowed } });
      const created = outcome.ok;
      // The key itself goes nowhere but this answer.
      await audit(request, 'key.create', created.keyId, { capabilities: created.capabilities });
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, 200, renderKeyCreated(view, { apiKey: created.apiKey, capabilities: created.capabilities }));
    });

    portal.get<{ Params: { keyId: string } }>('/developers/keys/:keyId/revoke', manage, async (request, reply) => {
      const key = await merchantKey(db, merchantOf(request), request.params.keyId);
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, 200, renderRevokeKey(view, { key }));
    });

    portal.post<{ Params: { keyId: string } }>('/developers/keys/:keyId/revoke', manage, async (request, reply) => {
      const { key, revokedNow } = await revokeKey(db, request.params.keyId, { merchantId: merchantOf(request) });
      if (revokedNow) await audit(request, 'key.revoke', key.keyId, { display: key.display, capabilities: key.capabilities });
      return seeOther(reply, `${DEVELOPERS}?done=keyRevoked#keys`);
    });

    portal.post('/developers/terminals', manage, async (request, reply) => {
      const { terminalIdentifier } = await addTerminal(db, merchantOf(request));
      await audit(request, 'terminal.add', terminalIdentifier);
      return seeOther(reply, `${DEVELOPERS}?done=terminalAdded#terminals`);
    });

    portal.post('/developers/origins', manage, async (request, reply) => {
      const form = formOf(request);
      const text = form.text('allowedOrigins');
      const sent = text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      // A value that is no text (a JSON post's object or number) goes to the service as it came, to be
      // refused there: read as no text, it would save an empty list, which allows any origin.
      const given = form.has('allowedOrigins') && form.texts('allowedOrigins').length === 0 ? null : sent;
      const outcome = await refusable(() => updateAllowedOrigins(db, merchantOf(request), given));
      if ('errors' in outcome) return page(request, reply, 400, { origins: { text, sent, errors: outcome.errors } });
      await audit(request, 'origins.update', merchantOf(request), { allowedOrigins: outcome.ok });
      return seeOther(reply, `${DEVELOPERS}?done=originsSaved#origins`);
    });
  },
};
