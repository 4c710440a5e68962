import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { errorCatalogue, type ErrorCode } from '../../src/errors.js';
import type { RouteEntry } from '../../src/http/routeTable.js';
import type { TestContext } from '../helpers/app.js';
import type { World } from '../security/world.js';
import { contentTypes, hostileQuery, hostileSegment, mutated, rawBodies, hostileValue, hostileString } from './arbitraries.js';
import { tableCounts, writeCount } from './writes.js';

// One fuzz case is one request to one route of the app's own route table (§Hardening, property 3).

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: Buffer | undefined;
}

/** A valid body per route that takes one: the mutations start from it, so they reach deep rules. */
export function validBodies(w: World): Record<string, unknown> {
  const a = w.a;
  return {
    'POST /api/v1/paymentlinks/create': {
      type: 'PayByLink',
      terminalIdentifier: a.terminalIdentifier,
      amount: 3000,
      currency: 'EUR',
      description: 'fuzz',
      returnUrl: 'https://shop.example/r',
      exactSalesCount: 3,
      shopperInfo: [{ field: 'Ssn', requirementType: 'Required' }],
      items: [{ name: 'Mug', quantity: 2, unitPrice: 1500, amountWithoutDiscount: 3000, amount: 3000 }],
    },
    'POST /api/v1/paymentlinks/update': { paymentLinkReference: a.linkReference, description: 'updated', maxSalesCount: 10, validUntil: null, culture: 'en' },
    'POST /api/v1/paymentlinks/disable': { paymentLinkReference: a.tokenizeLinkReference },
    'POST /api/v1/webhooks': { url: 'https://hooks.example.com/fuzz', eventTypes: ['Authorization'], description: 'fuzz' },
    'POST /api/v1/webhooks/:webhookId/update': { url: 'https://hooks.example.com/fuzz2', eventTypes: [], description: 'x', enabled: true },
    'POST /api/v1/webhooks/listeners': { eventTypes: ['Refund'], description: 'fuzz listener' },
    'POST /api/v1/webhooks/:webhookId/listen/attempts': {
      deliveryId: a.deliveryId,
      attemptToken: 'eyJkIjoiZGx2In0',
      responseStatus: 200,
      responseBody: 'ok',
      durationMs: 5,
      errorKind: null,
      errorDetail: null,
    },
    'POST /api/v1/sandbox/deliveries/advance': {},
    'POST /api/v1/webhooks/:webhookId/recover': { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' },
    'POST /api/v1/sandbox/events': {
      eventType: 'Authorization',
      amount: 100,
      currency: 'EUR',
      success: true,
      reason: null,
      merchantReference: 'm',
      additionalData: { k: 'v' },
    },
    'POST /api/v1/hostedcheckout': {
      amount: 12345,
      currency: 'EUR',
      returnUrl: 'https://shop.example/r',
      reference: 'order-1',
      terminalIdentifier: a.terminalIdentifier,
      culture: 'en',
      isManualCapture: true,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      shopperContact: { email: 'a@b.is' },
      items: [{ name: 'x', amount: -5, quantity: '0.5' }],
    },
    'POST /api/v1/modification/capture': { reference: 'order-17', payfacReference: a.payfacReference, amount: 1, currency: 'EUR' },
    'POST /api/v1/modification/refund': { reference: 'order-17', payfacReference: a.payfacReference, amount: 1, currency: 'EUR', refundReason: 'OTHER' },
    'POST /api/v1/modification/reverse': { reference: 'order-17', payfacReference: a.payfacReference },
    'POST /api/v1/modification/adjust': { reference: 'order-17', payfacReference: a.payfacReference, amount: 1, currency: 'EUR' },
    'POST /api/v1/payment': {
      terminalIdentifier: a.terminalIdentifier,
      amount: 500,
      currency: 'ISK',
      reference: 'r-1',
      returnUrl: 'https://shop.example/r',
      channel: 'Web',
      tokenDetails: { tokenValue: a.tokenValue, recurringProcessingModel: 'CardOnFile' },
    },
    'POST /api/v1/payment/disable-token': { tokenValue: a.tokenValue },
    'POST /api/v1/promotioncodes': { code: 'FUZZ10', percentOff: 10, expiresAt: '2030-01-01T00:00:00Z', maxRedemptions: 5 },
    'POST /api/v1/promotioncodes/:promotionCodeId/update': { active: false, expiresAt: null, maxRedemptions: 10 },
  };
}

/** Values that exist (so a request can get past "not found") for each path parameter. */
function knownSegments(w: World, route: RouteEntry, param: string): string[] {
  const a = w.a;
  if (param === 'webhookId') return [a.webhookId, w.b.webhookId, w.partner.webhookId];
  if (param === 'deliveryId') return [a.deliveryId, w.b.deliveryId, w.partner.deliveryId];
  if (param === 'checkoutReference' || route.url.startsWith('/checkout')) return [a.checkoutReference, a.paidCheckoutReference, w.b.checkoutReference];
  return [a.linkReference, a.tokenizeLinkReference, w.b.linkReference];
}

function pathArbitrary(w: World, route: RouteEntry): fc.Arbitrary<string> {
  const parts = route.url
    .split('/')
    .map((seg) =>
      seg.startsWith(':')
        ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...knownSegments(w, route, seg.slice(1))) }, { weight: 2, arbitrary: hostileSegment })
        : fc.constant(seg),
    );
  return fc.tuple(...parts).map((segs) => segs.join('/'));
}

const formBody = fc
  .dictionary(
    fc.constantFrom('_csrf', 'cardNumber', 'expiryDate', 'cvc', 'lang', 'challenge', 'action', 'Ssn', 'FullName', 'x'),
    hostileString.filter((s) => s.length < 20_000),
    { maxKeys: 6 },
  )
  .map((d) => Buffer.from(new URLSearchParams(d).toString()));

function bodyArbitrary(route: RouteEntry, valid: unknown): fc.Arbitrary<{ payload: Buffer | undefined; contentType: string | undefined }> {
  const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v) ?? 'null');
  const isPage = !route.url.startsWith('/api/');
  if (isPage) {
    return fc.oneof(
      fc.record({ payload: formBody, contentType: fc.constant<string | undefined>('application/x-www-form-urlencoded') }),
      fc.record({ payload: rawBodies({}), contentType: fc.option(contentTypes, { nil: undefined }) }),
      fc.constant({ payload: undefined, contentType: undefined }),
    );
  }
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ payload: mutated(valid ?? {}).map(json), contentType: contentTypes }) },
    { weight: 2, arbitrary: fc.record({ payload: hostileValue.map(json), contentType: contentTypes }) },
    { weight: 3, arbitrary: fc.record({ payload: rawBodies(valid ?? {}), contentType: fc.option(contentTypes, { nil: undefined }) }) },
    { weight: 1, arbitrary: fc.constant({ payload: undefined, contentType: undefined }) },
    { weight: 1, arbitrary: fc.record({ payload: fc.constant(json(valid ?? {})), contentType: contentTypes }) },
  );
}

const apiKeyHeader = (w: World): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(w.a.apiKey) },
    { weight: 1, arbitrary: fc.constantFrom(w.partner.apiKey, w.b.apiKey) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, '', 'pk_x', `pk_${'A'.repeat(43)}`, 'x'.repeat(5000), `${w.a.apiKey} `, w.a.apiKey.toUpperCase()) },
  );

const idempotencyKey = fc.option(fc.constantFrom('k-1', 'k-2', '', ' ', 'x'.repeat(300), 'é'), { nil: undefined, freq: 3 });

export function requestArbitrary(w: World, route: RouteEntry, valid: unknown): fc.Arbitrary<FuzzRequest> {
  const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH' || route.method === 'DELETE';
  return fc
    .record({
      path: pathArbitrary(w, route),
      query: hostileQuery,
      body: hasBody
        ? bodyArbitrary(route, valid)
        : fc.oneof(
            fc.constant({ payload: undefined, contentType: undefined }),
            fc.record({ payload: rawBodies({}), contentType: fc.option(contentTypes, { nil: undefined }) }),
          ),
      apiKey: apiKeyHeader(w),
      idem: idempotencyKey,
      origin: fc.option(fc.constantFrom('https://evil.example', 'null', ''), { nil: undefined, freq: 5 }),
    })
    .map(({ path, query, body, apiKey, idem, origin }) => {
      const headers: Record<string, string> = {};
      if (apiKey !== undefined) headers['x-api-key'] = apiKey;
      if (body.contentType !== undefined) headers['content-type'] = body.contentType;
      if (idem !== undefined) headers['idempotency-key'] = idem;
      if (origin !== undefined) headers.origin = origin;
      const req: FuzzRequest = { method: route.method, url: `${path}${query}`, headers, payload: body.payload };
      // A failing case is printed in this short form, not as a megabyte of Buffer bytes.
      Object.defineProperty(req, fc.toStringMethod, { value: () => describeRequest(req), enumerable: false });
      return req;
    });
}

export function describeRequest(req: FuzzRequest): string {
  const body = req.payload === undefined ? '' : ` body(${req.payload.length} bytes)=${JSON.stringify(req.payload.subarray(0, 300).toString('latin1'))}`;
  return `${req.method} ${JSON.stringify(req.url.slice(0, 300))} headers=${JSON.stringify(req.headers).slice(0, 300)}${body}`;
}

const CODES = new Set(Object.keys(errorCatalogue));

/** §Errors for the API, and never a 5xx anywhere. Returns whether the request was rejected (4xx). */
export function checkResponse(route: RouteEntry, req: FuzzRequest, res: LightMyRequestResponse): boolean {
  const where = `${describeRequest(req)}\n→ ${res.statusCode} ${res.body.slice(0, 400)}`;
  expect(res.statusCode, where).toBeLessThan(500);
  const api = route.url.startsWith('/api/v1') && route.url !== '/api/v1/openapi.json';
  if (res.statusCode >= 400) {
    if (api) {
      expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
      if (req.method !== 'HEAD') {
        const body = JSON.parse(res.body) as Record<string, unknown>;
        expect(CODES.has(body.code as string), where).toBe(true);
        expect(body.status, where).toBe(res.statusCode);
        expect(errorCatalogue[body.code as ErrorCode].status, where).toBe(res.statusCode);
        expect(body, where).toMatchObject({
          type: 'about:blank',
          title: expect.any(String),
          detail: expect.any(String),
          message: body.detail,
          responseDateTime: expect.any(String),
          responseIdentifier: expect.any(String),
        });
        if (body.errors !== undefined) {
          expect(Array.isArray(body.errors), where).toBe(true);
          for (const e of body.errors as unknown[])
            expect(e, where).toMatchObject({ field: expect.any(String), code: expect.any(String), message: expect.any(String) });
        }
      }
    }
    return true;
  }
  if (api && req.method !== 'HEAD' && res.statusCode === 200) {
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(body, where).toMatchObject({ responseDateTime: expect.any(String), responseIdentifier: expect.any(String) });
  }
  return false;
}

/** Sends one case and checks it; a rejected case must leave every table as it was. Returns the status. */
export async function runCase(ctx: TestContext, route: RouteEntry, req: FuzzRequest): Promise<number> {
  const before = await writeCount(ctx.tdb.db);
  const countsBefore = await tableCounts(ctx.tdb.db).catch(() => ({}));
  const res = await ctx.app.inject({
    method: req.method as 'GET',
    url: req.url,
    headers: req.headers,
    ...(req.payload !== undefined ? { payload: req.payload } : {}),
  });
  if (res.statusCode >= 500) {
    // Name the cause: the error the app logged for this request.
    const id = /"responseIdentifier":"([^"]+)"/.exec(res.body)?.[1] ?? String(res.headers['x-request-id'] ?? '');
    const logged = ctx.logs
      .filter((l) => (id !== '' && l.includes(id)) || /"level":(50|60)/.test(l))
      .slice(-2)
      .join('\n');
    expect.soft(logged, `${describeRequest(req)} → ${res.statusCode}`).toBe('');
  }
  const rejected = checkResponse(route, req, res);
  if (rejected) {
    const after = await writeCount(ctx.tdb.db);
    if (after !== before) {
      const countsAfter = await tableCounts(ctx.tdb.db);
      expect({ counts: countsAfter, status: res.statusCode, url: req.url }).toEqual({ counts: countsBefore, status: res.statusCode, url: req.url });
      expect(after, `${req.method} ${req.url} answered ${res.statusCode} but wrote ${after - before} rows`).toBe(before);
    }
  }
  return res.statusCode;
}
