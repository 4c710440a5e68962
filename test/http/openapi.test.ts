import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';

// The OpenAPI document generated from the route schemas is what /docs renders and what client
// generators read: it must be valid OpenAPI, and say what a client needs (optional paging, every
// operation summarised, described, tagged and with its error answers).

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean }[];
  responses?: Record<string, unknown>;
}

describe('the OpenAPI document', () => {
  let ctx: TestContext;
  let doc: { paths: Record<string, Record<string, Operation>> };

  beforeAll(async () => {
    ctx = await createTestContext();
    doc = JSON.parse((await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).body) as typeof doc;
  });
  afterAll(async () => {
    await ctx.close();
  });

  const operations = (): [string, Operation][] =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
    );

  it('is valid OpenAPI 3.1 (checked by an OpenAPI validator)', async () => {
    const result = await validate(structuredClone(doc) as unknown as Parameters<typeof validate>[0]);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('makes Page and PageSize optional wherever a list takes them', () => {
    const paging = operations().flatMap(([name, op]) =>
      (op.parameters ?? []).filter((p) => p.in === 'query' && /^Page(Size)?$/.test(p.name)).map((p) => [name, p] as const),
    );
    expect(paging.length).toBeGreaterThanOrEqual(6);
    expect(paging.filter(([, p]) => p.required === true).map(([name, p]) => `${name} ${p.name}`)).toEqual([]);
  });

  it('summarises, describes and tags every operation, and documents its error answers', () => {
    const lacking = operations()
      .filter(([, op]) => !op.summary || !op.description || !op.tags?.length || !Object.keys(op.responses ?? {}).some((s) => /^4\d\d$/.test(s)))
      .map(([name]) => name);
    expect(lacking).toEqual([]);
  });

  it('carries no internal labels in what a reader sees', () => {
    const text = JSON.stringify(doc);
    expect(text.match(/\b(D\d{1,2}|issue \d+|interface\.md[^"]*)\b/g) ?? []).toEqual([]);
  });
});
