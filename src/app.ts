import Fastify, { LogController } from 'fastify';
import swagger from '@fastify/swagger';
import { ping } from './db/database.js';
import { newUuid } from './ids.js';
import { ApiError } from './errors.js';
import { KeyUsageRecorder, PrincipalCache } from './accounts/service.js';
import { installAuth } from './http/auth.js';
import { RateLimiter } from './http/rateLimit.js';
import { documentErrorAnswers, envelope } from './http/envelope.js';
import { ROUTER_MAX_PARAM_LENGTH, UnroutablePages, clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './http/errorHandler.js';
import { installRouteTable } from './http/routeTable.js';
import { installTransportSecurity, strictTransportSecurity } from './http/transportSecurity.js';
import { installCreatePipeline } from './http/createPipeline.js';
import { validatorCompiler } from './http/validation.js';
import { normalizeInput, type JsonSchema } from './validation.js';
import swaggerUi from '@fastify/swagger-ui';
import { FAVICON_SVG } from './web/assets.js';
import { CSP } from './web/headers.js';
import { loggedPath, loggerOptions, requestLogger } from './logging.js';
import { paymentLinkRoutes } from './paymentLinks/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { ListenerHub } from './webhooks/listen/hub.js';
import { waitingTotals } from './payments/authorisations/service.js';
import { deliveryBacklog } from './webhooks/deliveries/service.js';
import { Metrics } from './metrics.js';
import { timingSafeEqual } from 'node:crypto';
import { hostedCheckoutRoutes } from './checkout/routes.js';
import { shopperPageRoutes } from './checkout/pages/routes.js';
import { portalRoutes } from './portal/routes.js';
import { webLayer } from './web/layer.js';
import { themeAssetRoutes } from './themes/routes.js';
import { paymentRoutes } from './payments/routes.js';
import { settlementRoutes } from './settlements/routes.js';
import { promotionCodeRoutes } from './promotionCodes/routes.js';
import type { App, AppDeps } from './deps.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PACKAGE_VERSION } from './version.js';

/** How long a listen stream's claim on a delivery lasts: it is not renewed while the CLI forwards it. */
const LISTENER_LEASE_MS = 60_000;

export type { App, AppDeps } from './deps.js';

/** Levels at which the one line per request is written (§Running the service). */
const LOGS_INFO = new Set(['trace', 'debug', 'info']);

/** Builds the HTTP application; it never listens itself (main.ts does). */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db, clock } = deps;
  const hsts = strictTransportSecurity(config);
  // The HTML parts' pages for a URL under them that cannot be routed (registered as the parts are).
  const unroutablePages = new UnroutablePages();
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: loggerOptions(config.logLevel) }),
    genReqId: () => newUuid(),
    logController: new LogController({ requestIdLogLabel: 'reqId', disableRequestLogging: true }),
    childLoggerFactory: requestLogger,
    bodyLimit: 1024 * 1024,
    // Behind a listed proxy, request.ip is the client's address from X-Forwarded-For and request.protocol
    // follows X-Forwarded-Proto; from any other address those headers are ignored (docs/production.md).
    trustProxy: config.trustProxy === null ? false : [...config.trustProxy],
    // Requests arriving while the server drains get §Errors's 503 from the hook below, not Fastify's own body.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler(clock, hsts),
    rewriteUrl: (req) => unroutablePages.rewrite(req.url ?? '/'),
    clientErrorHandler: clientErrorHandler(clock, hsts),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: ROUTER_MAX_PARAM_LENGTH },
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Before every other hook and route, so that every answer has it (production over https only).
  installTransportSecurity(app, hsts);
  app.setValidatorCompiler(validatorCompiler);
  // JSON is the only body the API takes (§Status codes: anything else is 415); Fastify would otherwise accept text/plain.
  app.removeContentTypeParser('text/plain');

  // One line per request at info (§Running the service), carrying the request id like every other line,
  // and its path without the query and without any secret in it (src/logging.ts).
  // The hooks that run on every request take callbacks rather than returning promises: no promise
  // and no extra microtask per hook and request (docs/performance.md).
  const metrics =
    deps.metrics ??
    new Metrics({ db, backlog: () => deliveryBacklog(db, clock.now()), authorisations: () => waitingTotals({ db, clock, config }), now: () => clock.now() });
  // What the parts of the app read (src/http/app.ts, Provided): each names those it needs.
  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('clock', clock);
  app.decorate('sealer', deps.sealer);
  app.decorate('acquirer', deps.acquirer);
  app.decorate('webhookResolver', deps.webhookResolver ?? null);
  app.decorate('metrics', metrics);
  app.decorate('unroutablePages', unroutablePages);
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeHttp(request.method, request.routeOptions.url ?? '(unmatched)', reply.statusCode, reply.elapsedTime / 1000);
    if (LOGS_INFO.has(request.log.level)) {
      request.log.info({ method: request.method, url: loggedPath(request), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
    }
    done();
  });

  // Every JSON object response of the API gets the envelope (interface §2.1); problem bodies carry
  // their own. The API reference's copy of the OpenAPI document (/docs/json) stays the document itself.
  app.addHook('preSerialization', (request, _reply, payload: unknown, done) => {
    if (
      request.url.startsWith('/docs/') ||
      payload === null ||
      typeof payload !== 'object' ||
      Array.isArray(payload) ||
      Buffer.isBuffer(payload) ||
      'responseIdentifier' in payload
    ) {
      done(null, payload);
      return;
    }
    done(null, { ...payload, ...envelope(request.id, clock) });
  });

  // §Clients in the field: a query's parameter names in any case, digit-string integers. A body is
  // the input of a service operation, which normalises it as it checks it (src/validation.ts,
  // schemaCheck); a create's is normalised before that by the create pipeline, which needs it
  // (src/http/createPipeline.ts), and the operation then finds it normalised already.
  app.addHook('preValidation', (request, _reply, done) => {
    const schema = request.routeOptions.schema as { querystring?: JsonSchema } | undefined;
    if (schema?.querystring && request.query && typeof request.query === 'object') {
      request.query = normalizeInput(schema.querystring, request.query, { nullMeansAbsent: false });
    }
    done();
  });

  installRouteTable(app);
  // The streams of `paylinks listen`: ended first when the server closes, so the drain never waits on
  // a stream that would stay open for ever.
  const listeners = new ListenerHub({
    db,
    clock,
    sealer: deps.sealer,
    leaseMs: LISTENER_LEASE_MS,
    heartbeatMs: config.listenHeartbeatMs,
    logger: app.log,
  });
  app.decorate('listeners', listeners);
  app.addHook('preClose', (done) => {
    listeners.closeAll();
    done();
  });
  installErrorHandling(app, clock);
  // §Running the service drain: a request that arrives on a kept-alive connection after SIGTERM is answered 503 in §Errors
  // form with Retry-After (§Status codes), and the connection is closed so the client reconnects elsewhere.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    reply.header('Connection', 'close');
    done(new ApiError('UNAVAILABLE', 'the service is shutting down; try again shortly', undefined, { 'Retry-After': '2' }));
  });
  // When each key was last used, written in batches (never on the request path) and once at close.
  const keyUsage = new KeyUsageRecorder(db, () => clock.now());
  keyUsage.start();
  app.addHook('onClose', async () => {
    await keyUsage.stop();
  });
  installAuth(
    app,
    db,
    new RateLimiter({ perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst, now: () => clock.now().getTime() }),
    new PrincipalCache(config.keyCacheMs),
    keyUsage,
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'paylinks',
        version: PACKAGE_VERSION,
        description:
          "Payment links, hosted checkout and webhook delivery. Every /api/v1 call carries the merchant's key in X-API-Key; every error is application/problem+json with a stable code.",
      },
      servers: [{ url: config.publicBaseUrl }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
      security: [{ apiKey: [] }],
    },
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Prometheus metrics. With PAYLINKS_METRICS_TOKEN set they need it as a bearer token; without one
  // they are open in development and do not exist in production (use PAYLINKS_METRICS_LISTEN there, a
  // listener of their own on a private address).
  const token = config.metricsToken === null ? null : Buffer.from(`Bearer ${config.metricsToken}`);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token === null && config.env === 'production') throw new ApiError('NOT_FOUND', 'not found');
    if (token !== null) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== token.length || !timingSafeEqual(given, token)) {
        throw new ApiError('UNAUTHENTICATED', 'the metrics need the header Authorization: Bearer <PAYLINKS_METRICS_TOKEN>', undefined, {
          'WWW-Authenticate': 'Bearer',
        });
      }
    }
    const { contentType, body } = await metrics.text();
    return reply.type(contentType).header('Cache-Control', 'no-store').send(body);
  });
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await ping(db.pool);
      return { status: 'ready' };
    } catch {
      reply.code(503).header('Retry-After', '2');
      return { status: 'not ready', reason: 'database unreachable' };
    }
  });

  await app.register(
    async (api) => {
      api.addHook('onRoute', documentErrorAnswers);
      installCreatePipeline(api, { db, clock, sealer: deps.sealer });
      for (const part of [paymentLinkRoutes, webhookRoutes, hostedCheckoutRoutes, paymentRoutes, settlementRoutes, promotionCodeRoutes])
        await api.register(part);
    },
    { prefix: '/api/v1' },
  );
  // Everything that answers HTML, inside the one web layer (cookies, form tokens, page headers).
  await webLayer(app, { shopper: shopperPageRoutes, portal: portalRoutes });
  await app.register(themeAssetRoutes);

  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger()));
  });
  // /docs: the API reference, rendered from the same OpenAPI document by Swagger UI, served from
  // node_modules (no CDN: the service may run without internet). Chosen for its try-it-out against
  // this very service (with an API key in Authorize), its navigation by tag and its schema views; it
  // needs no inline script and no inline style, so the page keeps a CSP without 'unsafe-inline'
  // (src/web/headers.ts).
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      tryItOutEnabled: false,
      persistAuthorization: false,
    },
    staticCSP: CSP.docs,
    theme: {
      title: 'paylinks API reference',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) }],
    },
    logo: { type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG), href: '/docs', target: '_self' },
    uiHooks: {
      onRequest: (_request, reply, next) => {
        reply.header('X-Content-Type-Options', 'nosniff').header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin');
        next();
      },
    },
  });

  return app;
}
