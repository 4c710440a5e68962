import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, type TestContext } from '../helpers/app.js';

const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('HTTP foundation (§Authentication, §Errors, §Status codes, §Timestamps and identifiers)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('answers an unknown path with problem+json and the envelope', async () => {
    const r = await call(ctx, 'GET', '/api/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(r.res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ type: 'about:blank', status: 404, code: 'NOT_FOUND', title: 'Not found' });
    expect(r.body.message).toBe(r.body.detail);
    expect(r.body.responseDateTime).toMatch(MICROS);
    expect(r.body.responseIdentifier).toMatch(UUID4);
  });

  it('gives every response its own responseIdentifier', async () => {
    const a = await call(ctx, 'GET', '/healthz');
    const b = await call(ctx, 'GET', '/healthz');
    expect(a.body.responseIdentifier).toMatch(UUID4);
    expect(a.body.responseIdentifier).not.toBe(b.body.responseIdentifier);
    expect(a.body.responseDateTime).toMatch(MICROS);
  });

  it('reports readiness from the database', async () => {
    const r = await call(ctx, 'GET', '/readyz');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ready');
  });

  it('serves the OpenAPI document and a docs page generated from it', async () => {
    const doc = await call(ctx, 'GET', '/api/v1/openapi.json', undefined, { apiKey: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const page = await ctx.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    // Swagger UI, from the service itself (no CDN), reading the same document.
    expect(page.body).toMatch(/<script src="(\.|\/docs)\/static\/swagger-ui-bundle\.js"/);
    expect(page.body).not.toMatch(/https?:\/\//);
    const bundle = await ctx.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    const json = await ctx.app.inject({ method: 'GET', url: '/docs/json' });
    expect(JSON.parse(json.body)).toEqual(doc.body);
  });

  it('logs one line per request carrying the request id, and never the API key', async () => {
    const before = ctx.logs.length;
    const r = await call(ctx, 'GET', '/healthz', undefined, { headers: { 'x-api-key': ctx.merchant.apiKey } });
    const lines = ctx.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: r.body.responseIdentifier, msg: 'request', status: 200 });
    expect(ctx.logs.join('\n')).not.toContain(ctx.merchant.apiKey);
  });
});
