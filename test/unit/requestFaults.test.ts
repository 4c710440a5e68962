import { describe, expect, it } from 'vitest';
import type { FastifyError } from 'fastify';
import { requestFaultOf } from '../../src/http/errorHandler.js';
import { pageErrorOf } from '../../src/web/errorPages.js';

// Fastify's own errors are mapped once (requestFaultOf in src/http/errorHandler.ts): the API answers
// each with its catalogue code and the pages with the same status, drawn as their own page.

function fastifyError(code: string, statusCode: number, message = code): FastifyError {
  return Object.assign(new Error(message), { code, statusCode, name: 'FastifyError' }) as FastifyError;
}

const CASES = [
  { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413, api: 'PAYLOAD_TOO_LARGE', page: 'tooLarge' },
  { code: 'FST_REQ_FILE_TOO_LARGE', statusCode: 413, api: 'PAYLOAD_TOO_LARGE', page: 'tooLarge' },
  { code: 'FST_PARTS_LIMIT', statusCode: 413, api: 'PAYLOAD_TOO_LARGE', page: 'tooLarge' },
  { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415, api: 'UNSUPPORTED_MEDIA_TYPE', page: 'badRequest' },
  { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400, api: 'MALFORMED_JSON', page: 'badRequest' },
  { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400, api: 'MALFORMED_JSON', page: 'badRequest' },
  { code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 400, api: 'NOT_FOUND', page: 'notFound' },
  { code: 'FST_MP_PREMATURE_CLOSE', statusCode: 400, api: 'VALIDATION_FAILED', page: 'badRequest' },
] as const;

describe("Fastify's errors: one mapping for the API and the pages", () => {
  for (const c of CASES) {
    it(`${c.code}: ${c.api} on the API, the ${c.page} page with the same status`, () => {
      const error = fastifyError(c.code, c.statusCode);
      const fault = requestFaultOf(error);
      expect(fault?.code).toBe(c.api);
      expect(pageErrorOf(error)).toEqual({ status: fault?.status, problem: c.page });
    });
  }

  it('a fault that is not the request’s is none of these: the API answers INTERNAL, the page 500', () => {
    const bug = new TypeError('x is undefined');
    expect(requestFaultOf(bug)).toBeNull();
    expect(pageErrorOf(bug as FastifyError)).toEqual({ status: 500, problem: 'error' });
  });
});
