import type { FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { appPart } from '../http/app.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { usePageHeaders } from '../web/headers.js';
import { serveAssets } from '../web/assets.js';
import { isLang, rememberLang } from '../web/lang.js';
import { bindForms } from '../web/formTokens.js';
import { usePageErrors, type PageProblem } from '../web/errorPages.js';
import { secureCookies as secureCookiesOf } from '../web/layer.js';
import {
  changePassword,
  linkInfo,
  redeemLink,
  sessionOf,
  setLanguage,
  signIn,
  signOut,
  signOutEverywhere,
  switchMerchant,
  type SessionPolicy,
  type StartedSession,
} from '../users/service.js';
import { can } from './access.js';
import { portalAssets } from './assets.js';
import { formOf, publicViewFor, safeReturnPath, seeOther, sendPage, sessionCookieName, viewFor, type PortalArea, type PortalDeps } from './http.js';
import { ROLE_KEY, type CoreKey } from './i18n.js';
import { portalRouter, type Ctx } from './route.js';
import { renderAccount, renderLinkPage, renderMessagePage, renderSignIn, renderSignedInMessage, type PasswordProblem } from './views/auth.js';
import { PORTAL } from './views/layout.js';
import { overviewArea } from './overview/routes.js';
import { linksArea } from './links/routes.js';
import { sessionsArea } from './sessions/routes.js';
import { paymentsArea } from './payments/routes.js';
import { settlementsArea } from './settlements/routes.js';
import { promotionCodesArea } from './promotionCodes/routes.js';
import { themesArea } from './themes/routes.js';
import { usersArea } from './users/routes.js';
import { invitationsArea } from './invitations/routes.js';
import { auditArea } from './audit/routes.js';
import { webhooksArea } from './webhooks/routes.js';
import { mailArea } from './mail/routes.js';
import { paidNoticeOf, setPaidNotice } from '../users/memberships/service.js';
import { developersArea } from './developers/routes.js';

// The merchant portal (§The portal), served by the same process as the API under /portal (route
// paths below are relative to it; links in pages are absolute, from PORTAL): pages
// rendered on the server that work without JavaScript, behind a session cookie, with a CSRF token on
// every form. Its own Fastify context, so its cookie, form and multipart parsers, its headers and its
// HTML error pages apply here only; the API keeps answering JSON. The cookie parser and the form
// token are the web layer's (src/web/), shared with the shopper's pages.
//
// Every route declares what it needs in its config (`portal: { permission }` or `{ public: true }`):
// a signed-in route is declared through src/portal/route.ts, with its permission, the audit action it
// records and the page it draws in one place. One onRequest hook signs the request in from its cookie and checks the role, before any body is
// read, and binds the page's form tokens to the session; the web layer checks the token of every
// post. The pages call the same services as the API, so no rule is written twice.

/** Forms are small; a link with 200 item rows is about 40 KB. Uploads (a theme's logo) are 256 KB at most. */
const FORM_LIMIT = 256 * 1024;
const UPLOAD_LIMIT = 256 * 1024;

/** The parts of the portal, each with its routes (and the scripts its pages use). */
const AREAS: readonly PortalArea[] = [
  overviewArea,
  linksArea,
  sessionsArea,
  paymentsArea,
  settlementsArea,
  mailArea,
  promotionCodesArea,
  webhooksArea,
  developersArea,
  themesArea,
  usersArea,
  invitationsArea,
  auditArea,
];

/** The title and the sentence of each error page. */
const PROBLEM_WORDS: Record<PageProblem, readonly [CoreKey, CoreKey]> = {
  formToken: ['csrfTitle', 'csrf'],
  notFound: ['notFoundTitle', 'notFound'],
  badRequest: ['badRequestTitle', 'badRequest'],
  tooLarge: ['tooLargeTitle', 'tooLarge'],
  unavailable: ['errorTitle', 'unavailable'],
  error: ['errorTitle', 'error'],
};

export function sessionPolicyOf(config: Config): SessionPolicy {
  return { idleMs: config.portalIdleMinutes * 60_000, absoluteMs: config.portalSessionHours * 3_600_000 };
}

export const portalRoutes = appPart('portal', ['config', 'db', 'clock', 'sealer', 'acquirer', 'metrics', 'webhookResolver', 'unroutablePages'], async (app) => {
  const { config, db, clock, sealer, acquirer, metrics, webhookResolver } = app;
  const secureCookies = secureCookiesOf(config);
  const deps: PortalDeps = { config, db, clock, sealer, acquirer, metrics, webhookResolver, sessionPolicy: sessionPolicyOf(config), secureCookies };
  const sessionCookie = sessionCookieName(secureCookies);

  await app.register(
    async (portal) => {
      portal.decorateRequest('portalSession', null);
      portal.decorateRequest('portalBodyRead', false);
      await portal.register(formbody, { bodyLimit: FORM_LIMIT });
      await portal.register(multipart, {
        attachFieldsToBody: 'keyValues',
        throwFileSizeLimit: true,
        limits: { fileSize: UPLOAD_LIMIT, files: 1, fields: 50, parts: 51 },
      });
      // The multipart parser reads the body in its own preValidation hook, and the parser underneath
      // throws plain errors for a body that is not well formed ("Unexpected end of multipart data"):
      // this hook, added after it, marks the body as read, so that such an error is known for the
      // request's fault (400) and never mistaken for the service's.
      portal.addHook('preValidation', (request, _reply, done) => {
        request.portalBodyRead = true;
        done();
      });

      // A portal route without an access rule would be open to anyone: refuse to start instead.
      portal.addHook('onRoute', (route) => {
        if (!(route.config as { portal?: unknown } | undefined)?.portal)
          throw new Error(`portal route ${route.method} ${route.url} declares no access (config.portal)`);
      });

      usePageHeaders(portal, 'portal');

      // Who is asking, and may they: before the body is read.
      portal.addHook('onRequest', async (request, reply) => {
        const access = request.routeOptions.config.portal;
        if (access && 'static' in access) return;
        const token = request.cookies[sessionCookie];
        request.portalSession = token ? ((await sessionOf(db, clock, token, deps.sessionPolicy)) ?? null) : null;
        // A form token is bound to the session, so a token from another session is refused; before
        // sign-in, to nobody.
        bindForms(request, request.portalSession ? `session:${request.portalSession.tokenHash.toString('base64url')}` : null);
        if (!access || 'public' in access) return;
        const session = request.portalSession;
        if (!session) {
          const next = request.method === 'GET' ? `&next=${encodeURIComponent(request.url)}` : '';
          return seeOther(reply, `${PORTAL}/sign-in?m=${token ? 'ended' : 'in'}${next}`);
        }
        if (!can(session.role, access.permission)) {
          const view = await viewFor(request, reply, deps);
          return sendPage(reply, 403, renderSignedInMessage(view, 'forbiddenTitle', view.t('forbidden', { role: view.t(ROLE_KEY[session.role]) })));
        }
      });

      // The error pages are the web layer's rules (src/web/errorPages.ts) in the portal's frame and
      // words: a signed-in reader keeps the portal's navigation around the message.
      usePageErrors(portal, {
        logMessage: 'portal page failed',
        notFoundPages: true,
        // A portal URL that is not valid percent-encoding: the portal's page, signed in or not.
        unroutable: { prefixes: [PORTAL], config: { portal: { public: true } } },
        // The multipart parser's own errors for a body that is not well formed are plain errors: the
        // hook above marks when the body was read, so such an error is known for the request's fault.
        unreadableBody: (request) => !request.portalBodyRead && request.isMultipart(),
        render: async (request, reply, e) => {
          const view = publicViewFor(request, reply);
          const [title, text] = PROBLEM_WORDS[e.problem];
          if (request.portalSession && e.problem !== 'unavailable') {
            try {
              return renderSignedInMessage(await viewFor(request, reply, deps), title, view.t(text));
            } catch {
              // the database is away: the plain page below
            }
          }
          return renderMessagePage(view, title, view.t(text));
        },
      });

      const assets = portalAssets(
        AREAS.flatMap((a) => (a.styles ? [a.styles] : [])),
        AREAS.flatMap((a) => a.scripts ?? []),
      );
      serveAssets(portal, assets, { prefix: PORTAL, route: { config: { portal: { public: true, static: true } } } });

      const publicRoute = { config: { portal: { public: true as const } }, schema: { hide: true } };

      const setSessionCookie = (reply: FastifyReply, started: StartedSession): void => {
        reply.setCookie(sessionCookie, started.token, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure: secureCookies,
          maxAge: Math.floor(deps.sessionPolicy.absoluteMs / 1000),
        });
        rememberLang(reply, started.language, secureCookies);
      };
      const clearSessionCookie = (reply: FastifyReply): void => {
        reply.clearCookie(sessionCookie, { path: '/', httpOnly: true, sameSite: 'lax', secure: secureCookies });
      };
      /** A sign-in replaces whatever session the browser had: that one ends too. */
      const endPrevious = async (request: FastifyRequest): Promise<void> => {
        if (request.portalSession) await signOut(db, request.portalSession);
      };

      app.get('/', { config: { portal: { public: true } }, schema: { hide: true } }, async (_request, reply) => seeOther(reply, PORTAL));

      portal.get<{ Querystring: { next?: string; m?: string; wait?: string } }>('/sign-in', publicRoute, async (request, reply) => {
        const next = safeReturnPath(request.query.next ?? '');
        if (request.portalSession) return seeOther(reply, next);
        const m = request.query.m;
        const message = m === 'out' ? 'signedOut' : m === 'ended' ? 'ended' : m === 'locked' ? 'locked' : null;
        const wait = Number(request.query.wait);
        const retryMinutes = Number.isInteger(wait) && wait > 0 && wait <= 24 * 60 ? wait : undefined;
        return sendPage(reply, 200, renderSignIn(publicViewFor(request, reply), { email: '', next, message, retryMinutes }));
      });

      portal.post('/sign-in', publicRoute, async (request, reply) => {
        const form = formOf(request);
        const email = form.text('email').slice(0, 254);
        const next = safeReturnPath(form.text('next'));
        const outcome = await signIn(db, clock, { email, password: form.text('password'), address: request.ip }, deps.sessionPolicy);
        if (outcome.kind === 'ok') {
          await endPrevious(request);
          setSessionCookie(reply, outcome.session);
          return seeOther(reply, next);
        }
        if (outcome.kind === 'throttled') reply.header('Retry-After', String(outcome.retryAfterSeconds));
        const view = publicViewFor(request, reply);
        return sendPage(
          reply,
          outcome.kind === 'throttled' ? 429 : 401,
          renderSignIn(view, {
            email,
            next,
            message: outcome.kind === 'throttled' ? 'throttled' : 'failed',
            retryMinutes: outcome.kind === 'throttled' ? Math.ceil(outcome.retryAfterSeconds / 60) : undefined,
          }),
        );
      });

      portal.get<{ Params: { token: string } }>('/link/:token', publicRoute, async (request, reply) => {
        const view = publicViewFor(request, reply);
        // Opening the link changes nothing (a mail scanner that fetches it spends nothing): the post does.
        const info = await linkInfo(db, clock, request.params.token);
        if (!info) return sendPage(reply, 404, renderMessagePage(view, 'linkInvalidTitle', view.t('linkInvalid'), { signIn: true }));
        return sendPage(reply, 200, renderLinkPage(view, { token: request.params.token, ...info, problem: null }));
      });

      portal.post<{ Params: { token: string } }>('/link/:token', publicRoute, async (request, reply) => {
        const form = formOf(request);
        const token = request.params.token;
        const outcome = await redeemLink(db, clock, token, { password: form.text('password'), confirm: form.text('confirm') }, deps.sessionPolicy);
        const view = publicViewFor(request, reply);
        if (outcome.kind === 'ok') {
          await endPrevious(request);
          setSessionCookie(reply, outcome.session);
          return seeOther(reply, PORTAL);
        }
        if (outcome.kind === 'noMerchant') return sendPage(reply, 409, renderMessagePage(view, 'linkInvalidTitle', view.t('noMerchant')));
        if (outcome.kind === 'invalid') return sendPage(reply, 404, renderMessagePage(view, 'linkInvalidTitle', view.t('linkInvalid'), { signIn: true }));
        const info = await linkInfo(db, clock, token);
        if (!info) return sendPage(reply, 404, renderMessagePage(view, 'linkInvalidTitle', view.t('linkInvalid'), { signIn: true }));
        return sendPage(reply, 400, renderLinkPage(view, { token, ...info, problem: outcome.problem }));
      });

      portal.post('/sign-out', publicRoute, async (request, reply) => {
        if (request.portalSession) await signOut(db, request.portalSession);
        clearSessionCookie(reply);
        return seeOther(reply, `${PORTAL}/sign-in?m=out`);
      });

      // The language of the pages: saved with a signed-in user, and in a cookie for the sign-in page.
      portal.post('/language', publicRoute, async (request, reply) => {
        const form = formOf(request);
        const language = form.text('language');
        if (!isLang(language)) throw new ApiError('VALIDATION_FAILED', 'unknown language');
        if (request.portalSession) await setLanguage(db, request.portalSession.userId, language);
        rememberLang(reply, language, secureCookies);
        return seeOther(reply, safeReturnPath(form.text('back')));
      });

      const route = portalRouter(portal.withTypeProvider<TypeBoxTypeProvider>(), deps);

      route.post('/switch', { permission: 'portal.use' }).handle(async ({ session, form }) => {
        if (!(await switchMerchant(db, session, form.text('merchantId')))) throw new ApiError('NOT_FOUND', 'no such merchant');
        return { seeOther: PORTAL };
      });

      /** An owner's choice of the "you were paid" e-mail for the merchant the session acts for; null for another role. */
      const paidNotice = async (session: { userId: string; merchantId: string; role: string }): Promise<boolean | null> =>
        session.role === 'owner' ? paidNoticeOf(db, session.userId, session.merchantId) : null;

      route.get('/account', { permission: 'portal.use', view: renderAccount }).handle(async ({ request, session }: Ctx<{ Querystring: { done?: string } }>) => {
        const done = request.query.done;
        return {
          data: { notice: done === 'saved' ? 'saved' : done === 'password' ? 'passwordChanged' : null, problem: null, paidNotice: await paidNotice(session) },
        };
      });

      // The owners' "you were paid" e-mail (docs/mail.md): on or off for the merchant the session acts for.
      route.post('/account/paid-notice', { permission: 'users.manage' }).handle(async ({ session, form }) => {
        if (!(await setPaidNotice(db, session.userId, session.merchantId, form.text('paidNotice') === 'on')))
          throw new ApiError('NOT_FOUND', 'no such membership');
        return { seeOther: `${PORTAL}/account?done=saved` };
      });

      route.post('/account/language', { permission: 'portal.use' }).handle(async ({ reply, session, form }) => {
        const language = form.text('language');
        if (!isLang(language)) throw new ApiError('VALIDATION_FAILED', 'unknown language');
        await setLanguage(db, session.userId, language);
        rememberLang(reply, language, secureCookies);
        return { seeOther: `${PORTAL}/account?done=saved` };
      });

      route.post('/account/password', { permission: 'portal.use', view: renderAccount }).handle(async ({ request, reply, session, form, actor }) => {
        const outcome = await changePassword({ db, clock, actor }, session, {
          current: form.text('current'),
          next: form.text('next'),
          confirm: form.text('confirm'),
          address: request.ip,
        });
        if (outcome.kind === 'ok') return { seeOther: `${PORTAL}/account?done=password` };
        if (outcome.kind === 'signedOut') {
          // The session is over: the sign-in page says why, and when to try again.
          clearSessionCookie(reply);
          return { seeOther: `${PORTAL}/sign-in?m=locked&wait=${Math.ceil(outcome.retryAfterSeconds / 60)}` };
        }
        const problem: PasswordProblem = outcome.kind === 'wrongCurrent' ? 'wrongCurrent' : outcome.problem;
        return { status: 400, data: { notice: null, problem, paidNotice: await paidNotice(session) } };
      });

      route.post('/account/sign-out-everywhere', { permission: 'portal.use' }).handle(async ({ reply, session, actor }) => {
        await signOutEverywhere({ db, clock, actor }, session);
        clearSessionCookie(reply);
        return { seeOther: `${PORTAL}/sign-in?m=out` };
      });

      for (const area of AREAS) await area.routes(portal.withTypeProvider<TypeBoxTypeProvider>(), deps);
    },
    { prefix: PORTAL },
  );
});
