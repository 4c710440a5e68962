import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema, TUnknown } from 'typebox';
import type { ValidateFunction } from 'ajv';
import { compiledFor, nulErrors } from '../validation.js';

// Fastify's side of request validation. Query strings, path parameters and headers are checked here,
// before the handler runs. A body is the input of a service operation, and the service checks it
// (src/validation.ts, checkInput): routes declare their body schema only for the OpenAPI document.

/** The app's compiler for the parts of a request that are not its body (and for bodies of routes that leave them to Fastify). */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const validate = compiledFor(schema, httpPart === 'body' ? 'body' : 'text');
  // PostgreSQL text cannot hold U+0000: a NUL anywhere in the input is a field error of its own,
  // reported with the schema's errors (§Errors), instead of a database error after the route ran.
  const checked = ((data: unknown, dataCxt?: Parameters<ValidateFunction>[1]) => {
    const ok = validate(data, dataCxt);
    const nul = nulErrors(data);
    checked.errors = nul.length === 0 ? validate.errors : [...(validate.errors ?? []), ...nul];
    return ok && nul.length === 0;
  }) as ValidateFunction;
  // Fastify passes the parent object (so coercion can replace a root value) only when it sees this.
  Object.assign(checked, { schemaEnv: validate.schemaEnv, schema: validate.schema });
  return checked;
};

const passThrough = (() => true) as unknown as ValidateFunction;

/**
 * For a route whose service checks the body: the body schema stays on the route (the OpenAPI
 * document is made from it) but Fastify does not run it, so a body is validated once, by the
 * service, whoever calls it. Every other part of the request is checked as on any route.
 */
export const bodyCheckedByService: FastifySchemaCompiler<object> = (route) => (route.httpPart === 'body' ? passThrough : validatorCompiler(route));

/** The same for a route whose service takes its query string as its input (rotating a webhook's secrets). */
export const queryCheckedByService: FastifySchemaCompiler<object> = (route) => (route.httpPart === 'querystring' ? passThrough : validatorCompiler(route));

/**
 * A body schema of a route whose service checks the body (with `validatorCompiler: bodyCheckedByService`):
 * the schema itself is what the OpenAPI document shows, but the handler sees the body as `unknown`,
 * since Fastify has not checked it; the handler passes it on and trusts nothing in it.
 */
export function checkedByService(schema: TSchema): TUnknown {
  return schema as unknown as TUnknown;
}
