import type { RouteGenericInterface } from 'fastify';
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
import { refusable, type PortalArea, type PortalDeps } from '../http.js';
import { portalRouter, type PageData, type Ctx } from '../route.js';
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

const NOTICES: readonly DevelopersNotice[] = ['keyRevoked', 'terminalAdded', 'originsSaved'];

type PageState = { notice?: DevelopersNotice | null; keyForm?: KeyForm; origins?: OriginsForm };

export const developersArea: PortalArea = {
  styles: DEVELOPER_STYLES,
  routes(portal, deps: PortalDeps) {
    const { db, clock } = deps;
    const route = portalRouter(portal, deps);
    const allowedOf = (ctx: Ctx<RouteGenericInterface>): Capability[] => keyCapabilitiesFor(ctx.session.role);

    /** The page, with a form as it was sent when that form was refused. */
    const page = async (ctx: Ctx<RouteGenericInterface>, s: PageState): Promise<PageData<typeof renderDevelopers>> => {
      const merchantId = ctx.merchantId;
      const [keys, terminals, origins] = await Promise.all([
        listKeys(db, { merchantId }),
        listTerminals(db, merchantId),
        s.origins ? null : allowedOrigins(db, merchantId),
      ]);
      return {
        keys,
        terminals,
        keyForm: s.keyForm ?? { capabilities: [], errors: new FieldErrors(), allowed: allowedOf(ctx) },
        origins: s.origins ?? { text: (origins ?? []).join('\n'), sent: [], errors: new FieldErrors() },
        notice: s.notice ?? null,
      };
    };

    route.get('/developers', { permission: 'developers.manage', view: renderDevelopers }).handle(async (ctx: Ctx<{ Querystring: { done?: string } }>) => {
      const done = ctx.request.query.done;
      return { data: await page(ctx, { notice: NOTICES.find((n) => n === done) ?? null }) };
    });

    route.post('/developers/keys', { permission: 'developers.manage', view: renderDevelopers }).handle(async (ctx) => {
      const chosen = ctx.form.texts('capabilities');
      // A key may do only what the user's own role may do (src/portal/access.ts).
      const allowed = allowedOf(ctx);
      const outcome = await refusable(() => createKey({ db, clock, actor: ctx.actor }, { merchantId: ctx.merchantId }, chosen, allowed));
      if ('errors' in outcome) return { status: 400, data: await page(ctx, { keyForm: { capabilities: chosen, errors: outcome.errors, allowed } }) };
      const created = outcome.ok;
      // The key itself goes nowhere but this answer.
      return { page: (view) => renderKeyCreated(view, { apiKey: created.apiKey, capabilities: created.capabilities }) };
    });

    route
      .get('/developers/keys/:keyId/revoke', { permission: 'developers.manage', view: renderRevokeKey })
      .handle(async ({ request, merchantId }: Ctx<{ Params: { keyId: string } }>) => ({
        data: { key: await merchantKey(db, merchantId, request.params.keyId) },
      }));

    route
      .post('/developers/keys/:keyId/revoke', { permission: 'developers.manage' })
      .handle(async ({ request, merchantId, actor }: Ctx<{ Params: { keyId: string } }>) => {
        await revokeKey({ db, clock, actor }, request.params.keyId, { merchantId });
        return { seeOther: `${DEVELOPERS}?done=keyRevoked#keys` };
      });

    route.post('/developers/terminals', { permission: 'developers.manage' }).handle(async ({ merchantId, actor }) => {
      await addTerminal({ db, clock, actor }, merchantId);
      return { seeOther: `${DEVELOPERS}?done=terminalAdded#terminals` };
    });

    route.post('/developers/origins', { permission: 'developers.manage', view: renderDevelopers }).handle(async (ctx) => {
      const { form, merchantId } = ctx;
      const text = form.text('allowedOrigins');
      const sent = text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      // An empty list allows any origin, so only a field sent once, as text, is read as the list: a post
      // without the field, or with it twice, is refused here (either read as text would be a list the
      // owner did not send); a value that is no text (a JSON post's object or number) goes to the
      // service as it came, to be refused there.
      const missing = !form.has('allowedOrigins');
      const repeated = form.texts('allowedOrigins').length > 1;
      if (missing || repeated) {
        const errors = new FieldErrors([
          missing
            ? { field: 'allowedOrigins', code: 'REQUIRED', message: 'is required: the origins one per line, or an empty text to allow any origin' }
            : { field: 'allowedOrigins', code: 'REPEATED', message: 'must be sent once, with the origins one per line' },
        ]);
        return { status: 400, data: await page(ctx, { origins: { text, sent, errors } }) };
      }
      // Only a value sent once as text is the list; anything else goes as it came, to be refused.
      const given = form.single('allowedOrigins') === undefined ? null : sent;
      const outcome = await refusable(() => updateAllowedOrigins({ db, clock, actor: ctx.actor }, merchantId, given));
      if ('errors' in outcome) return { status: 400, data: await page(ctx, { origins: { text, sent, errors: outcome.errors } }) };
      return { seeOther: `${DEVELOPERS}?done=originsSaved#origins` };
    });
  },
};
